// Valid requests for an operation, built from the contract's own examples (and, where a parameter has
// none, from its schema), so that the suite restates nothing.
import { randomUUID } from 'node:crypto';
import { assertNever, isObject, redateExample, type Redated } from '@payments-contract/contract/model';
import type {
  ErrorTrigger,
  Json,
  JsonObject,
  OperationModel,
  ParameterModel,
} from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { fillPath, type RequestSpec } from '../http.js';

export interface ExampleBody {
  name: string;
  mediaType: string;
  /** The example's value, its time-bound values moved to the target's time. */
  value: Json;
  /** The time-bound values moved, as the example holds them and as they are sent. */
  redated: Redated[];
}

/**
 * How far the target's time is from the moment the contract's examples are written against: what each
 * time-bound value is moved by, so it means what the example means (none for a contract without that moment).
 */
export function exampleShiftMs(contract: Contract): number {
  const reference = contract.model.examplesReferenceTime;
  return reference === undefined ? 0 : contract.clock.now() - Date.parse(reference);
}

/** The named examples of the operation's request body (JSON media type), re-dated to the target's time. */
export function bodyExamples(contract: Contract, operation: OperationModel): ExampleBody[] {
  const raw = contract.deref({ $ref: operation.pointer }) as JsonObject;
  const body = contract.deref(raw.requestBody);
  if (!isObject(body)) return [];
  const content = contract.deref(body.content);
  const media = isObject(content) ? contract.deref(content['application/json']) : undefined;
  const examples = isObject(media) ? contract.deref(media.examples) : undefined;
  if (!isObject(examples)) return [];
  const shiftMs = exampleShiftMs(contract);
  return Object.entries(examples).flatMap(([name, example]) => {
    const resolved = contract.deref(example);
    return isObject(resolved) && resolved.value !== undefined
      ? [{ name, mediaType: 'application/json', ...redateExample(resolved.value, operation.timeBound, shiftMs) }]
      : [];
  });
}

/** One line per example whose time-bound values were sent moved: which, from what to what, and why. */
export function redatedNotes(contract: Contract, examples: readonly ExampleBody[]): string[] {
  const reference = contract.model.examplesReferenceTime;
  return examples
    .filter((example) => example.redated.length > 0)
    .map((example) => {
      const moved = example.redated.map((r) => `${r.field} ${r.from} sent as ${r.to}`).join(', ');
      return `example "${example.name}": ${moved} (re-dated from the examples' reference time ${String(reference)} to the target's time, read from ${contract.clock.source()})`;
    });
}

/** A value for a parameter: its first example, else its schema's example/enum/default, else a plain string. */
export function parameterValue(contract: Contract, parameter: ParameterModel, operation: OperationModel): string {
  const raw = contract.deref({ $ref: operation.pointer }) as JsonObject;
  const declared = [...(Array.isArray(raw.parameters) ? raw.parameters : [])]
    .map((p) => contract.deref(p))
    .find((p) => isObject(p) && p.name === parameter.name && p.in === parameter.in);
  if (isObject(declared)) {
    if (declared.example !== undefined) return String(declared.example);
    const examples = contract.deref(declared.examples);
    if (isObject(examples)) {
      for (const example of Object.values(examples)) {
        const resolved = contract.deref(example);
        if (isObject(resolved) && resolved.value !== undefined) return String(resolved.value);
      }
    }
  }
  const schema = contract.deref(parameter.schema);
  if (isObject(schema)) {
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return String(schema.examples[0]);
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return String(schema.enum[0]);
    if (schema.default !== undefined) return String(schema.default);
  }
  return 'conformance';
}

/** Header parameters whose value must be unique per request (idempotency keys). */
export function isIdempotencyHeader(parameter: ParameterModel): boolean {
  return parameter.in === 'header' && /idempotency/i.test(parameter.name);
}

export interface BuildOptions {
  /** Override parameter values by name. */
  parameters?: Record<string, string>;
  body?: Json;
}

/** A valid request for the operation: required parameters and the first body example. Idempotency keys are fresh unless given. */
export function buildRequest(contract: Contract, operation: OperationModel, options: BuildOptions = {}): RequestSpec {
  const values = (location: ParameterModel['in']): Record<string, string> =>
    Object.fromEntries(
      operation.parameters
        // Optional parameters are sent only when the caller asks for them.
        .filter((p) => p.in === location && (p.required || options.parameters?.[p.name] !== undefined))
        .map((p) => [
          p.name,
          options.parameters?.[p.name] ??
            (isIdempotencyHeader(p) ? randomUUID() : parameterValue(contract, p, operation)),
        ]),
    );
  const body = options.body ?? bodyExamples(contract, operation)[0]?.value;
  return {
    method: operation.method,
    path: fillPath(operation.path, values('path')),
    query: values('query'),
    headers: values('header'),
    ...(operation.body && body !== undefined
      ? { body: { contentType: 'application/json', text: JSON.stringify(body) } }
      : {}),
  };
}

/** Whether a trigger's answer depends on the target's state (stored objects, settings, balance...), not on the request alone. */
function dependsOnState(trigger: ErrorTrigger): boolean {
  switch (trigger.when) {
    case 'not_found':
    case 'duplicate':
    case 'state':
    case 'merchant_setting':
    case 'insufficient_balance':
    case 'other_merchant':
    case 'idempotency_replay':
    case 'idempotency_mismatch':
    case 'otp':
    case 'stored_field':
    case 'upstream_unavailable':
    case 'test_mode':
      return true;
    case 'past_timestamp':
    case 'not_in_catalog':
    case 'forbidden_terms':
      return false;
    default:
      return assertNever(trigger);
  }
}

export function stateDependentCodes(operation: OperationModel): string[] {
  return Object.entries(operation.errorTriggers)
    .filter(([, trigger]) => dependsOnState(trigger))
    .map(([code]) => code);
}
