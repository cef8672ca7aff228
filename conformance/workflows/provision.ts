// Provides the resources a request refers to (a direct debit names a payment method, which names a
// customer and a linked account...). The chain is derived, not scripted: a body field that must name an
// existing resource (`not_found` trigger in the body) is matched to a resource kind; a kind is provided by
// the operation that creates it, or, when nothing creates it, by the list operation that yields it under
// an owner whose state machine is first driven to its successful final state with the test-mode value
// that succeeds (an OTP code). Planning sends nothing, so a workflow knows all its steps before it starts.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { bodyExamples, buildRequest } from '../data/requests.js';
import { setPath, testModeOutcomes, testModeValue } from './data.js';
import {
  acceptedTransitions,
  creationOperation,
  endingTransition,
  machineForResource,
  stateMachines,
  type StateMachine,
} from './machines.js';
import {
  bodyReferences,
  creatorOf,
  parentPath,
  referencedKind,
  resourceKind,
  successBody,
  type Reference,
} from './resources.js';
import type { Scenario } from './scenario.js';
import { createdId, freshBody, itemRequest, requireState, type WorkflowEnv } from './steps.js';

/** Resources provided so far in one scenario, by kind (the latest of each). */
export type Provided = Map<string, JsonObject>;

export interface Action {
  step: string;
  run: (s: Scenario, env: WorkflowEnv, provided: Provided) => Promise<void>;
}

export class CannotProvide extends Error {}

/** The value of `x-test-mode` that makes the operation succeed (an outcome without an error). */
export function succeedingTestValue(operation: OperationModel): Json | undefined {
  const outcome = testModeOutcomes(operation).find(
    (o) => o.error_code === undefined && !(typeof o.status === 'number' && o.status >= 400),
  );
  return outcome && operation.testMode ? testModeValue(operation.testMode, outcome) : undefined;
}

/** The identifier of a provided resource (its `id`-like field). */
function idOf(value: JsonObject): string | undefined {
  return typeof value.id === 'string' ? value.id : undefined;
}

/** Fills each reference field of a body with the provided resource of the kind it names. */
export function withReferences(contract: Contract, operation: OperationModel, body: Json, provided: Provided): Json {
  return bodyReferences(contract, operation).reduce<Json>((current, reference) => {
    const kind = referencedKind(contract, reference);
    const target = kind ? provided.get(kind) : undefined;
    const id = target ? idOf(target) : undefined;
    return id === undefined ? current : setPath(current, reference.field, id);
  }, body);
}

/** A create step: fresh example body, references filled, success required, the answer kept under its kind. */
export function createAction(contract: Contract, create: OperationModel, kind: string): Action {
  return {
    step: create.operationId,
    run: async (s, env, provided) => {
      const body = withReferences(contract, create, freshBody(s, env, create), provided);
      const answer = await s.succeed(create.operationId, create, buildRequest(contract, create, { body }));
      const machine = machineForResource(contract, kind);
      if (machine)
        requireState(
          s,
          create.operationId,
          answer,
          machine,
          acceptedTransitions(machine, null, create.operationId).map((t) => t.to),
        );
      createdId(s, create.operationId, answer, create);
      provided.set(kind, s.object(create.operationId, answer));
    },
  };
}

/** Drives a provided resource along its machine, from its creation state into a successful final state. */
function driveAction(contract: Contract, machine: StateMachine, kind: string): Action {
  const from = acceptedTransitions(machine, null, creationOperation(machine) ?? '')[0]?.to ?? machine.initial;
  const transition = endingTransition(machine, from);
  const operation = contract.model.operations.find((o) => o.operationId === transition?.trigger.operation);
  const value = operation ? succeedingTestValue(operation) : undefined;
  const field = typeof operation?.testMode?.field === 'string' ? operation.testMode.field : undefined;
  if (!transition || !operation || value === undefined || !field)
    throw new CannotProvide(`the contract gives no test-mode way to move a ${kind} from ${from} into a final state`);
  return {
    step: operation.operationId,
    run: async (s, _env, provided) => {
      const id = idOf(provided.get(kind) ?? {}) ?? s.skip(`no ${kind} was provided`);
      const example = bodyExamples(contract, operation)[0]?.value ?? {};
      const answer = await s.succeed(
        operation.operationId,
        operation,
        itemRequest(s, operation, id, setPath(example, field, value)),
      );
      requireState(s, operation.operationId, answer, machine, [transition.to]);
    },
  };
}

/** A list step under an owner: keeps the first item of the kind. */
function listAction(list: OperationModel, kind: string, ownerKind: string): Action {
  return {
    step: list.operationId,
    run: async (s, _env, provided) => {
      const id = idOf(provided.get(ownerKind) ?? {}) ?? s.skip(`no ${ownerKind} was provided`);
      const answer = await s.succeed(list.operationId, list, itemRequest(s, list, id));
      const first =
        s.list(list.operationId, answer).find(isObject) ??
        s.fail(
          list.operationId,
          answer.exchange,
          `${list.operationId}: the list is empty, so there is no ${kind} to use`,
        );
      provided.set(kind, first);
    },
  };
}

/** The steps that provide a resource of `kind`, after those it refers to. */
export function planProvision(contract: Contract, kind: string, planned: Set<string> = new Set()): Action[] {
  if (planned.has(kind)) return [];
  const create = creatorOf(contract, kind);
  if (create) {
    const before = planReferences(contract, create, planned);
    planned.add(kind);
    return [...before, createAction(contract, create, kind)];
  }
  // Nothing creates it: a list operation yields it under an owner (`/owners/{id}/things`).
  const list = contract.model.operations.find(
    (o) =>
      o.method === 'get' &&
      successBody(contract, o).list &&
      resourceKind(contract, o) === kind &&
      o.parameters.some((p) => p.in === 'path'),
  );
  if (!list) throw new CannotProvide(`the contract has no operation that creates or lists a ${kind}`);
  const owner = [...stateMachines(contract).values()].find((machine) =>
    machine.transitions.some((t) => {
      const operation = contract.model.operations.find((o) => o.operationId === t.trigger.operation);
      return operation !== undefined && operation !== list && parentPath(operation.path) === parentPath(list.path);
    }),
  );
  if (!owner) throw new CannotProvide(`no state machine owns the ${kind} listed by ${list.operationId}`);
  const ownerPlan = planProvision(contract, owner.resource, planned);
  planned.add(kind);
  return [...ownerPlan, driveAction(contract, owner, owner.resource), listAction(list, kind, owner.resource)];
}

/** The steps that provide everything an operation's body refers to. */
export function planReferences(
  contract: Contract,
  operation: OperationModel,
  planned: Set<string> = new Set(),
): Action[] {
  return bodyReferences(contract, operation).flatMap((reference: Reference) => {
    const kind = referencedKind(contract, reference);
    if (!kind) throw new CannotProvide(`${operation.operationId}: cannot tell which resource ${reference.field} names`);
    return planProvision(contract, kind, planned);
  });
}
