// The control API's fault operations (spec/sandbox/paths/sandbox_faults*.yaml): arm, list, remove one,
// remove all, for the key's merchant and mode. The router has checked each request against the control
// contract (kinds, bounds, settings of another kind); what the schema cannot know is whether `operation`
// names an operation of the service contract, which is checked here against the service's operation table.
import { operationTable } from '@payments-contract/server';
import type { Handlers } from '@payments-contract/server/sandbox/server';
import { scopeOf, type Caller } from '../context.js';
import type { SandboxFaults } from './faults.js';

export type FaultControlHandlers = Pick<Handlers<Caller>, 'armFault' | 'listFaults' | 'clearFaults' | 'removeFault'>;

const isServiceOperation = (name: string): boolean => Object.hasOwn(operationTable, name);

export function faultControlHandlers(faults: SandboxFaults): FaultControlHandlers {
  return {
    armFault: async ({ body }, { principal }) => {
      if (body.operation !== undefined && !isServiceOperation(body.operation)) {
        return {
          status: 400,
          body: {
            error_code: 'API_VALIDATION_ERROR',
            message: 'The fault has 1 invalid value. See errors for each problem.',
            errors: [
              {
                location: 'body',
                path: '/operation',
                message: `must be an operationId of the service contract (${body.operation} is not one)`,
                keyword: 'enum',
              },
            ],
          },
        };
      }
      const result = await faults.arm(scopeOf(principal), body);
      if (result.kind === 'full') {
        return {
          status: 409,
          body: {
            error_code: 'SANDBOX_STATE_CONFLICT',
            message: `${result.max} faults are armed for this merchant and mode already; remove one before arming another.`,
          },
        };
      }
      return { status: 200, body: result.fault };
    },

    listFaults: async (_input, { principal }) => ({
      status: 200,
      body: { data: await faults.list(scopeOf(principal)) },
    }),

    clearFaults: async (_input, { principal }) => ({
      status: 200,
      body: { data: await faults.clear(scopeOf(principal)) },
    }),

    removeFault: async ({ path }, { principal }) => {
      const removed = await faults.remove(scopeOf(principal), path.id);
      if (!removed)
        return {
          status: 404,
          body: { error_code: 'FAULT_NOT_FOUND_ERROR', message: `No armed fault with id ${path.id} was found.` },
        };
      return { status: 200, body: removed };
    },
  };
}
