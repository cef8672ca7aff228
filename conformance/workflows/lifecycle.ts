// Resources that live until an expiry time (fixed virtual accounts, fixed payment codes): create -> get ->
// update -> expire by an update that sets the expiry in the past -> a further update is refused with the
// code the state machine gives for the final state. Operations, states, the expiry field and the code
// all come from the resource's state machine.
import { endingTransition, errorInState, expiryField, statesAfter } from './machines.js';
import { pastTimestamp } from './data.js';
import {
  createdId,
  freshBody,
  itemRequest,
  creationOrSkip,
  requireState,
  resourceOrSkip,
  unreflectedFields,
  withFields,
  type Workflow,
} from './steps.js';
import { buildRequest } from '../data/requests.js';

const STEPS = ['create', 'get', 'update', 'expire', 'update when ended'] as const;

export function lifecycleWorkflow(subject: string, machineKey: string): Workflow {
  return {
    subject,
    steps: STEPS,
    script: async (s, env) => {
      const { machine, create } = creationOrSkip(s, machineKey);
      const { read, update } = resourceOrSkip(s, create, ['read', 'update']);
      const expiry = expiryField(machine) ?? s.notApplicable(`the state machine ${machine.key} ends no state by time`);

      const created = await s.succeed(
        'create',
        create,
        buildRequest(s.contract, create, { body: freshBody(s, env, create, expiry) }),
      );
      const id = createdId(s, 'create', created, create, read);
      // Without a state field the state is implicit: the one creation leads to.
      let state =
        requireState(s, 'create', created, machine, statesAfter(machine, null, create.operationId)) ??
        statesAfter(machine, null, create.operationId)[0] ??
        machine.initial;

      const got = await s.succeed('get', read, itemRequest(s, read, id));
      s.require(
        createdId(s, 'get', got, create, read) === id,
        'get',
        got.exchange,
        `answered another resource than ${id}`,
      );

      const change = freshBody(s, env, update, expiry);
      const updated = await s.succeed('update', update, itemRequest(s, update, id, change));
      const live = statesAfter(machine, state, update.operationId).filter((to) => !machine.final.includes(to));
      state = requireState(s, 'update', updated, machine, live) ?? live[0] ?? state;
      const stale = unreflectedFields(change, updated.value);
      s.require(
        stale.length === 0,
        'update',
        updated.exchange,
        `the answer does not show the updated ${stale.join(', ')}`,
      );

      const ending = endingTransition(machine, state);
      if (!ending || ending.trigger.operation !== update.operationId)
        return s.notApplicable(
          `the state machine ${machine.key} has no transition by ${update.operationId} from ${state} into a final state`,
        );
      const expired = await s.succeed(
        'expire',
        update,
        itemRequest(s, update, id, withFields({}, { [expiry]: pastTimestamp() })),
      );
      requireState(s, 'expire', expired, machine, [ending.to]);

      const code =
        errorInState(machine, ending.to, update.operationId) ??
        s.notApplicable(
          `the state machine ${machine.key} documents no error for ${update.operationId} in ${ending.to}`,
        );
      await s.reject('update when ended', update, itemRequest(s, update, id, change), code);
    },
  };
}
