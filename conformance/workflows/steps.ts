// Building blocks the workflows share: the contract pieces a workflow needs (skipping when a version of
// the contract lacks one), fresh request bodies, lookups by identifier, and checks on answers.
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import { bodyExamples, buildRequest } from '../data/requests.js';
import type { Contract } from '../contract.js';
import type { RequestSpec } from '../http.js';
import { getPath, setPath, uniquify, withFutureTime, type UniqueValues } from './data.js';
import { machineWithCreation, type StateMachine } from './machines.js';
import { identifierField, resourceOperations, type ResourceOperations } from './resources.js';
import type { Answer, Scenario } from './scenario.js';

/** What every workflow gets: the scenario, unique values for this run, and the suite's settings. */
export interface WorkflowEnv {
  unique: UniqueValues;
  settings: WorkflowSettings;
}

export interface WorkflowSettings {
  /** How long to poll for a state reached asynchronously (test-mode outcomes). */
  pollTimeoutMs: number;
  pollIntervalMs: number;
}

export const DEFAULT_WORKFLOW_SETTINGS: WorkflowSettings = { pollTimeoutMs: 10_000, pollIntervalMs: 200 };

export interface Workflow {
  subject: string;
  /** The steps in order (a function when they depend on the contract's version). */
  steps: readonly string[] | ((contract: Contract) => readonly string[]);
  script: (scenario: Scenario, env: WorkflowEnv) => Promise<void>;
}

/** The state machine a workflow follows and the operation that creates its resource, or a skip. */
export function creationOrSkip(scenario: Scenario, key: string): { machine: StateMachine; create: OperationModel } {
  return (
    machineWithCreation(scenario.contract, key) ??
    scenario.notApplicable(`the contract has no state machine ${key} with an operation that creates its resource`)
  );
}

/** The resource operations a workflow needs, or a skip naming the missing one. */
export function resourceOrSkip<K extends keyof ResourceOperations>(
  scenario: Scenario,
  create: OperationModel,
  needed: K[],
): ResourceOperations & Required<Pick<ResourceOperations, K>> {
  const operations = resourceOperations(scenario.contract, create);
  const missing = needed.filter((role) => operations[role] === undefined);
  if (missing.length > 0)
    scenario.notApplicable(
      `the contract has no ${missing.join(' or ')} operation for what ${create.operationId} creates`,
    );
  return operations as ResourceOperations & Required<Pick<ResourceOperations, K>>;
}

/**
 * The operation's first body example, with its identifiers unique to this run, its expiry in the future,
 * and, when the run has a public callback address, that address in the field a webhook is delivered to.
 */
export function freshBody(scenario: Scenario, env: WorkflowEnv, operation: OperationModel, expiry?: string): Json {
  const example =
    bodyExamples(scenario.contract, operation)[0]?.value ??
    scenario.notApplicable(`${operation.operationId} has no request body example to build from`);
  const body = withFutureTime(
    scenario.contract,
    operation,
    uniquify(scenario.contract, operation, example, env.unique),
    expiry,
  );
  const publicUrl = scenario.context.options.callbacks?.publicUrl;
  const destinations = scenario.contract.model.webhooks
    .map((webhook) => webhook.delivery.destination)
    .flatMap((destination) => ('request_field' in destination ? [destination.request_field] : []));
  const field = destinations.find((destination) => destination.operation === operation.operationId)?.field;
  return publicUrl && field !== undefined && getPath(body, field) !== undefined
    ? setPath(body, field, publicUrl)
    : body;
}

/** A request for an item operation (`/things/{id}`) of the resource. */
export function itemRequest(scenario: Scenario, operation: OperationModel, id: string, body?: Json): RequestSpec {
  const parameter = operation.parameters.find((p) => p.in === 'path');
  return buildRequest(scenario.contract, operation, {
    parameters: parameter ? { [parameter.name]: id } : {},
    ...(body === undefined ? {} : { body }),
  });
}

/** A lookup request whose query parameters take their values from `source` (the created resource or its request). */
export function lookupRequest(
  scenario: Scenario,
  lookup: OperationModel,
  source: Json,
): { request: RequestSpec; query: Record<string, string> } {
  const query: Record<string, string> = {};
  for (const parameter of lookup.parameters.filter((p) => p.in === 'query')) {
    const value = getPath(source, parameter.name);
    if (typeof value === 'string' || typeof value === 'number') query[parameter.name] = String(value);
  }
  return { request: buildRequest(scenario.contract, lookup, { parameters: query }), query };
}

/** The identifier of a created resource, read from the field its read operation names. */
export function createdId(
  scenario: Scenario,
  step: string,
  answer: Answer,
  create: OperationModel,
  read?: OperationModel,
): string {
  return scenario.text(step, answer, identifierField(scenario.contract, create, read));
}

/** The resource's state, when its machine names a state field. */
export function stateOf(machine: StateMachine, value: Json): string | undefined {
  if (!machine.field || !isObject(value)) return undefined;
  const state = value[machine.field];
  return typeof state === 'string' ? state : undefined;
}

/** Requires the answer's state to be one the machine allows at this point; returns it. */
export function requireState(
  scenario: Scenario,
  step: string,
  answer: Answer,
  machine: StateMachine,
  allowed: string[],
): string | undefined {
  if (!machine.field) return undefined;
  const state = stateOf(machine, answer.value);
  scenario.require(
    state !== undefined && allowed.includes(state),
    step,
    answer.exchange,
    `${machine.field} is ${state ?? 'missing'}; the state machine ${machine.key} allows ${allowed.join(' or ') || 'no state'} here`,
  );
  return state;
}

const sameValue = (sent: Json, got: Json | undefined): boolean => {
  if (
    typeof sent === 'string' &&
    typeof got === 'string' &&
    !Number.isNaN(Date.parse(sent)) &&
    /\d{4}-\d{2}-\d{2}T/.test(sent)
  )
    return Date.parse(sent) === Date.parse(got);
  if (isObject(sent) || Array.isArray(sent)) return JSON.stringify(sent) === JSON.stringify(got);
  return got !== undefined && got !== null && String(sent) === String(got);
};

/** Top-level fields sent in a create or update that the answer shows with another value. */
export function unreflectedFields(sent: Json, answer: Json, only?: string[]): string[] {
  if (!isObject(sent) || !isObject(answer)) return [];
  return Object.entries(sent)
    .filter(
      ([name, value]) => (only ? only.includes(name) : !isObject(value) && !Array.isArray(value)) && name in answer,
    )
    .filter(([name, value]) => !sameValue(value, answer[name]))
    .map(([name]) => name);
}

/** Requires every listed item to carry the values that were queried. */
export function requireMatchesQuery(
  scenario: Scenario,
  step: string,
  answer: Answer,
  items: Json[],
  query: Record<string, string>,
): void {
  for (const item of items) {
    const wrong = Object.entries(query).filter(([name, value]) => !isObject(item) || String(item[name]) !== value);
    scenario.require(
      wrong.length === 0,
      step,
      answer.exchange,
      `an item does not match the query (${wrong.map(([name]) => name).join(', ')})`,
    );
  }
}

/** The body with each dotted field replaced. */
export function withFields(body: Json, fields: Record<string, Json>): Json {
  return Object.entries(fields).reduce<Json>((current, [path, value]) => setPath(current, path, value), body);
}
