// A resource that needs a chain of others first (a direct debit: customer -> account link -> OTP ->
// accounts -> payment method): the chain is planned from the contract (provision.ts), the referenced
// resource's duplicate is refused as its machine says, then the resource is created, confirmed with the
// test-mode value its machine accepts (the OTP), and read back by id and by the identifier it was created with.
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { bodyExamples, buildRequest } from '../data/requests.js';
import { setPath } from './data.js';
import {
  acceptedTransitions,
  errorInState,
  machineForResource,
  machineWithCreation,
  statesAfter,
  type StateMachine,
} from './machines.js';
import {
  CannotProvide,
  planReferences,
  succeedingTestValue,
  withReferences,
  type Action,
  type Provided,
} from './provision.js';
import { bodyReferences, identifierField, referencedKind, resourceOperations } from './resources.js';
import { createdId, freshBody, itemRequest, lookupRequest, requireState, stateOf, type Workflow } from './steps.js';

interface ChainPlan {
  machine: StateMachine;
  create: OperationModel;
  /** The referenced kind whose duplicate creation is refused, with its machine and creator. */
  referenced?: { kind: string; machine: StateMachine; create: OperationModel };
  confirm?: { operation: OperationModel; field: string; value: Json };
  read?: OperationModel;
  lookup?: OperationModel;
  setup: Action[];
}

function plan(contract: Contract, machineKey: string): ChainPlan | string {
  const found = machineWithCreation(contract, machineKey);
  if (!found) return `the contract has no state machine ${machineKey} with a creating operation`;
  const { machine, create } = found;
  let setup: Action[];
  try {
    setup = planReferences(contract, create);
  } catch (error) {
    if (error instanceof CannotProvide) return error.message;
    throw error;
  }
  const referenced = bodyReferences(contract, create)
    .map((reference) => referencedKind(contract, reference))
    .flatMap((kind) => {
      const key = kind ? machineForResource(contract, kind)?.key : undefined;
      const referencedMachine = key ? machineWithCreation(contract, key) : undefined;
      return kind && referencedMachine ? [{ kind, ...referencedMachine }] : [];
    })[0];
  const created = acceptedTransitions(machine, null, create.operationId)[0]?.to ?? machine.initial;
  const confirmation = machine.transitions
    .filter(
      (t) =>
        t.from === created &&
        t.trigger.operation &&
        t.trigger.operation !== create.operationId &&
        !t.effects.some((e) => e.error),
    )
    .map((t) => contract.model.operations.find((o) => o.operationId === t.trigger.operation))
    .find((operation) => operation !== undefined && succeedingTestValue(operation) !== undefined);
  const value = confirmation ? succeedingTestValue(confirmation) : undefined;
  const field = confirmation?.testMode?.field;
  const { read, lookup } = resourceOperations(contract, create);
  return {
    machine,
    create,
    ...(referenced ? { referenced } : {}),
    ...(confirmation && value !== undefined && typeof field === 'string'
      ? { confirm: { operation: confirmation, field, value } }
      : {}),
    ...(read ? { read } : {}),
    ...(lookup ? { lookup } : {}),
    setup,
  };
}

const again = (operation: OperationModel): string => `${operation.operationId} again`;

export function chainWorkflow(subject: string, machineKey: string): Workflow {
  return {
    subject,
    steps: (contract) => {
      const p = plan(contract, machineKey);
      if (typeof p === 'string') return [];
      return [
        ...p.setup.map((a) => a.step),
        ...(p.referenced ? [again(p.referenced.create)] : []),
        p.create.operationId,
        ...[p.confirm?.operation, p.read, p.lookup].flatMap((o) => (o ? [o.operationId] : [])),
      ];
    },
    script: async (s, env) => {
      const p = plan(s.contract, machineKey);
      if (typeof p === 'string') return s.skip(p);
      const provided: Provided = new Map();
      for (const action of p.setup) await action.run(s, env, provided);

      if (p.referenced) {
        const { kind, machine, create } = p.referenced;
        const existing = provided.get(kind) ?? {};
        const state =
          stateOf(machine, existing) ??
          acceptedTransitions(machine, null, create.operationId)[0]?.to ??
          machine.initial;
        const code = errorInState(machine, state, create.operationId);
        // The same request for the same referenced resources: the machine's error for a second one.
        if (code)
          await s.reject(
            again(create),
            create,
            buildRequest(s.contract, create, {
              body: withReferences(s.contract, create, freshBody(s, env, create), provided),
            }),
            code,
          );
      }

      const body = withReferences(s.contract, p.create, freshBody(s, env, p.create), provided);
      const created = await s.succeed(p.create.operationId, p.create, buildRequest(s.contract, p.create, { body }));
      let state = requireState(
        s,
        p.create.operationId,
        created,
        p.machine,
        statesAfter(p.machine, null, p.create.operationId),
      );
      const id = createdId(s, p.create.operationId, created, p.create, p.read);

      if (p.confirm) {
        const { operation, field, value } = p.confirm;
        const confirmBody = setPath(bodyExamples(s.contract, operation)[0]?.value ?? {}, field, value);
        const confirmed = await s.succeed(operation.operationId, operation, itemRequest(s, operation, id, confirmBody));
        state = requireState(
          s,
          operation.operationId,
          confirmed,
          p.machine,
          statesAfter(p.machine, state ?? p.machine.initial, operation.operationId),
        );
      }
      const field = identifierField(s.contract, p.create, p.read);
      if (p.read) {
        const got = await s.succeed(p.read.operationId, p.read, itemRequest(s, p.read, id));
        s.require(
          s.object(p.read.operationId, got)[field] === id,
          p.read.operationId,
          got.exchange,
          `answered another resource than ${id}`,
        );
        requireState(s, p.read.operationId, got, p.machine, p.machine.states);
      }
      if (p.lookup) {
        const found = await s.succeed(p.lookup.operationId, p.lookup, lookupRequest(s, p.lookup, body).request);
        const items = Array.isArray(found.value) ? found.value : [found.value];
        s.require(
          items.some((item) => isObject(item) && item[field] === id),
          p.lookup.operationId,
          found.exchange,
          `the created resource ${id} is not what the lookup answers`,
        );
      }
    },
  };
}
