// The bundled contract, read once for the whole sandbox, and the facts modules take from it instead of
// restating them: example catalogs that a
// decision makes authoritative, the parameters of x-error-triggers, conditional rules of schemas. Read once
// at start-up; a contract that no longer holds a fact the sandbox relies on fails loudly here, not later
// in a request.
import { readFileSync } from 'node:fs';
import { dereference, isObject, readModel, responseExampleValues } from '@payments-contract/contract/model';
import type {
  ErrorTrigger,
  ErrorTriggerKind,
  ErrorTriggerOf,
  Json,
  JsonObject,
  OperationModel,
} from '@payments-contract/contract/model/types';
import { openapiPath, sandboxOpenapiPath } from '@payments-contract/contract';
import type { Mode } from './context.js';
import { rateLimitTable, type RateLimitTable } from './limits/rate-limits.js';

const document = JSON.parse(readFileSync(openapiPath, 'utf8')) as JsonObject;
const model = readModel(document);

export function contractOperation(operationId: string): OperationModel {
  const operation = model.operations.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`the contract has no operation ${operationId}`);
  return operation;
}

/** The `x-error-triggers` entry of `code` on the operation, which must be of the kind `when`. */
export function errorTrigger<K extends ErrorTriggerKind>(
  operationId: string,
  code: string,
  when: K,
): ErrorTriggerOf<K> {
  const trigger = contractOperation(operationId).errorTriggers[code];
  if (!trigger) throw new Error(`${operationId} has no x-error-triggers entry for ${code}`);
  if (!isTriggerOf(trigger, when)) throw new Error(`${operationId} x-error-triggers ${code} is not a ${when} trigger`);
  return trigger;
}

const isTriggerOf = <K extends ErrorTriggerKind>(trigger: ErrorTrigger, when: K): trigger is ErrorTriggerOf<K> =>
  trigger.when === when;

/** The values of every named example of the operation's JSON response with this status, in document order. */
export function responseExamples(operationId: string, status: number): Json[] {
  const values = responseExampleValues(document, contractOperation(operationId).pointer, status);
  if (values.length === 0) throw new Error(`${operationId} ${status} has no examples`);
  return values;
}

/** A component schema of the contract, references resolved at the top level. */
export function componentSchema(name: string): JsonObject {
  const schema = dereference(document, model.componentSchemas[name]);
  if (!isObject(schema)) throw new Error(`the contract has no schema ${name}`);
  return schema;
}

/**
 * The values of `field` for which a schema's conditional rules (`allOf` members `if`/`then`) require
 * `required`: `if: { properties: { <field>: { const: X } } }, then: { required: [<required>] }` gives X.
 */
export function valuesRequiring(schemaName: string, field: string, required: string): string[] {
  const members = componentSchema(schemaName).allOf;
  return (Array.isArray(members) ? members : []).flatMap((member) => {
    if (!isObject(member) || !isObject(member.if) || !isObject(member.then)) return [];
    const requires = Array.isArray(member.then.required) && member.then.required.includes(required);
    const condition = isObject(member.if.properties) ? member.if.properties[field] : undefined;
    return requires && isObject(condition) && typeof condition.const === 'string' ? [condition.const] : [];
  });
}

/** The control contract (the sandbox's own API), for what it says about the sandbox's behaviour. */
const controlDocument = JSON.parse(readFileSync(sandboxOpenapiPath, 'utf8')) as JsonObject;

/** One auto-resolve outcome of the sandbox's test mode: the request value selecting it, and what it ends in. */
export interface SandboxTestOutcome {
  value: Json;
  status: string;
  failureCode: string | null;
}

/** `x-test-modes.<operationId>` of the control contract: the request field, its listed outcomes and the default. */
export interface SandboxTestMode {
  field: string;
  outcomes: SandboxTestOutcome[];
  defaultOutcome: SandboxTestOutcome;
  /** The listed outcome `body`'s field selects, else the default. */
  outcomeOf(body: Readonly<Record<string, unknown>>): SandboxTestOutcome;
}

export function sandboxTestMode(operationId: string): SandboxTestMode {
  const where = `x-test-modes.${operationId} of the control contract`;
  const modes = controlDocument['x-test-modes'];
  const raw = isObject(modes) ? modes[operationId] : undefined;
  if (!isObject(raw) || typeof raw.field !== 'string' || !Array.isArray(raw.outcomes) || !isObject(raw.default_outcome))
    throw new Error(`${where}: expected field, outcomes and default_outcome`);
  const field = raw.field;
  const outcome = (entry: Json, value: Json, at: string): SandboxTestOutcome => {
    if (!isObject(entry) || typeof entry.status !== 'string') throw new Error(`${where}${at}: expected a status`);
    return {
      value,
      status: entry.status,
      failureCode: typeof entry.failure_code === 'string' ? entry.failure_code : null,
    };
  };
  const outcomes = raw.outcomes.map((entry, index) =>
    outcome(entry, isObject(entry) ? (entry[field] ?? null) : null, `.outcomes[${index}]`),
  );
  const defaultOutcome = outcome(raw.default_outcome, null, '.default_outcome');
  return {
    field,
    outcomes,
    defaultOutcome,
    outcomeOf: (body) => outcomes.find((listed) => listed.value === body[field]) ?? defaultOutcome,
  };
}

/** An auto-resolve outcome of the sandbox's test mode, its failure code one of the contract's. */
export type AutoResolveOutcome<Code extends string> = { status: 'COMPLETED' } | { status: 'FAILED'; failureCode: Code };

/**
 * The outcome an object created by `operationId` reaches by itself: in test mode the one its request's
 * value selects (`x-test-modes`), in live mode the default. Every outcome is checked once, here, against the
 * component schema `failureCodes` (the enum `Code` is generated from), so a contract that lists another code
 * fails at start-up.
 */
export function autoResolveOutcomes<Code extends string>(
  operationId: string,
  failureCodes: string,
): (mode: Mode, request: Readonly<Record<string, unknown>>) => AutoResolveOutcome<Code> {
  const codes = componentSchema(failureCodes).enum;
  if (!Array.isArray(codes)) throw new Error(`the contract has no ${failureCodes} enum`);
  const isCode = (code: string | null): code is Code => code !== null && codes.includes(code);
  const typed = (outcome: SandboxTestOutcome): AutoResolveOutcome<Code> => {
    if (outcome.status === 'COMPLETED' && outcome.failureCode === null) return { status: 'COMPLETED' };
    if (outcome.status === 'FAILED' && isCode(outcome.failureCode))
      return { status: 'FAILED', failureCode: outcome.failureCode };
    throw new Error(
      `x-test-modes.${operationId}: ${JSON.stringify(outcome)} is neither COMPLETED nor FAILED with a code of ${failureCodes}`,
    );
  };
  const testMode = sandboxTestMode(operationId);
  const listed = testMode.outcomes.map((outcome) => ({ value: outcome.value, outcome: typed(outcome) }));
  const fallback = typed(testMode.defaultOutcome);
  return (mode, request) =>
    mode === 'test' ? (listed.find((entry) => entry.value === request[testMode.field])?.outcome ?? fallback) : fallback;
}

/** A component schema of the control contract, references resolved at the top level. */
export function controlComponentSchema(name: string): JsonObject {
  const schemas = isObject(controlDocument.components) ? controlDocument.components.schemas : undefined;
  const schema = isObject(schemas) ? dereference(controlDocument, schemas[name]) : undefined;
  if (!isObject(schema)) throw new Error(`the control contract has no schema ${name}`);
  return schema;
}

/** The `default` of each property of a control contract schema that has one (what a request leaving it out gets). */
export function controlDefaults(name: string): Readonly<Record<string, Json>> {
  const properties = controlComponentSchema(name).properties;
  return Object.fromEntries(
    Object.entries(isObject(properties) ? properties : {}).flatMap(([property, schema]) =>
      isObject(schema) && schema.default !== undefined ? [[property, schema.default]] : [],
    ),
  );
}

/** The `maxItems` of the array `operationId` answers with 200 in `source` (decision `list-bounds`). */
function listLimitOf(source: JsonObject, operations: OperationModel[], operationId: string): number {
  const operation = operations.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`the contract has no operation ${operationId}`);
  const schema = dereference(source, operation.responses.find((response) => response.status === 200)?.schema);
  const limit = isObject(schema) ? schema.maxItems : undefined;
  if (typeof limit !== 'number') throw new Error(`${operationId} 200 is not a list with maxItems`);
  return limit;
}

/** At most how many entries the service operation's 200 answer lists (its array's `maxItems`, decision `list-bounds`). */
export function listLimit(operationId: string): number {
  return listLimitOf(document, model.operations, operationId);
}

const controlModel = readModel(controlDocument);

/** At most how many entries the control operation's 200 answer lists (its array's `maxItems`). */
export function controlListLimit(operationId: string): number {
  return listLimitOf(controlDocument, controlModel.operations, operationId);
}

/** The service's rate limits by operationId (`x-rate-limits`, `x-rate-limit`). */
export const serviceRateLimits: RateLimitTable = rateLimitTable(model.operations);
/** The control API's, from its own contract. */
export const controlRateLimits: RateLimitTable = rateLimitTable(controlModel.operations);

/** `latest` of the control contract's `x-clock-advance`: the time no advance may take a clock past (decision `sandbox-clock-range`), in ms. */
export function clockLatestMs(): number {
  const marker = controlDocument['x-clock-advance'];
  const latest = isObject(marker) && typeof marker.latest === 'string' ? Date.parse(marker.latest) : Number.NaN;
  if (Number.isNaN(latest)) throw new Error('the control contract has no date-time x-clock-advance.latest');
  return latest;
}
