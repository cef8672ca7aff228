// Request data for stateful runs. A stateful target remembers earlier runs, so every identifier the
// contract treats as unique (duplicate triggers, lookup keys) is made unique per run, within the field's own
// schema; times that decide a resource's life are moved relative to now; unknown identifiers still satisfy
// the parameter's schema, so the answer is "not found", not "invalid".
import { randomBytes, randomUUID } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { propertySchema, resourceOperations, schemaProperties, triggersOf } from './resources.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export const futureTimestamp = (): string => new Date(Date.now() + 30 * DAY_MS).toISOString();
export const pastTimestamp = (): string => new Date(Date.now() - DAY_MS).toISOString();

export function getPath(value: Json | undefined, path: string): Json | undefined {
  return path
    .split('.')
    .reduce<Json | undefined>((current, name) => (isObject(current) ? current[name] : undefined), value);
}

/** A copy of `value` with the dotted path set (intermediate objects created). */
export function setPath(value: Json, path: string, replacement: Json): Json {
  const [head, ...rest] = path.split('.');
  const object: JsonObject = isObject(value) ? { ...value } : {};
  if (head === undefined) return value;
  object[head] = rest.length === 0 ? replacement : setPath(object[head] ?? {}, rest.join('.'), replacement);
  return object;
}

/** Makes values unique to this run: a run tag plus a counter, fitted to each field's schema. */
export class UniqueValues {
  private count = 0;
  readonly tag = randomBytes(4).toString('hex');

  constructor(private readonly contract: Contract) {}

  /** A fresh value valid against `schema`; the original when no candidate is (an enum, say). */
  next(schema: Json | undefined, original: Json): Json {
    if (typeof original !== 'string') return original;
    const resolved = this.contract.deref(schema);
    const max = isObject(resolved) && typeof resolved.maxLength === 'number' ? resolved.maxLength : Infinity;
    const n = ++this.count;
    const candidates = [
      `conf-${this.tag}-${n}`,
      `conf${this.tag}${n}`,
      `${this.tag}${n}`,
      `${original}-${this.tag}-${n}`,
      `${original}${this.tag}${n}`,
    ]
      // Too long: keep the end, which carries the tag and the counter.
      .map((candidate) => (candidate.length > max ? candidate.slice(candidate.length - max) : candidate));
    return candidates.find((candidate) => this.contract.validate(schema ?? {}, candidate).length === 0) ?? original;
  }

  /** Whether `value` is one this run made: only those name one resource (an enum value or an example's code is shared). */
  made(value: Json | undefined): value is string {
    return typeof value === 'string' && value.includes(this.tag);
  }
}

/**
 * Body fields that identify a resource for the target: those a `duplicate` trigger compares, and those
 * its lookup operation queries by.
 */
export function identifierFields(contract: Contract, operation: OperationModel): string[] {
  const duplicates = triggersOf(operation, 'duplicate').flatMap(([, trigger]) =>
    Array.isArray(trigger.fields) ? trigger.fields.map(String) : [],
  );
  const lookup = resourceOperations(contract, operation).lookup;
  const queried = (lookup?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const fields = Object.keys(schemaProperties(contract, operation.body?.schema));
  return [...new Set([...duplicates, ...queried])].filter((name) => fields.includes(name.split('.')[0] ?? ''));
}

/** Replaces the body's identifier fields with values unique to this run. */
export function uniquify(contract: Contract, operation: OperationModel, body: Json, unique: UniqueValues): Json {
  return identifierFields(contract, operation).reduce<Json>((current, field) => {
    const original = getPath(current, field);
    return original === undefined
      ? current
      : setPath(current, field, unique.next(propertySchema(contract, operation.body?.schema, field), original));
  }, body);
}

/** Moves a date-time field into the future, so an example written years ago still describes a live resource. */
export function withFutureTime(
  contract: Contract,
  operation: OperationModel,
  body: Json,
  field: string | undefined,
): Json {
  if (!field || typeof getPath(body, field) !== 'string') return body;
  const schema = contract.deref(propertySchema(contract, operation.body?.schema, field));
  return isObject(schema) && schema.format === 'date-time' ? setPath(body, field, futureTimestamp()) : body;
}

/** A value for a parameter or field that satisfies its schema but names nothing the target has. */
export function unknownIdentifier(contract: Contract, schema: Json | undefined, example: string): string {
  const resolved = contract.deref(schema);
  const pattern = isObject(resolved) && typeof resolved.pattern === 'string' ? resolved.pattern : '';
  const prefix = /^\^([A-Za-z0-9_-]+)/.exec(pattern)?.[1] ?? '';
  const uuid = randomUUID();
  const hex = uuid.replaceAll('-', '').slice(0, 24);
  const candidates = [
    `${prefix}${uuid}`,
    example.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, uuid),
    /^[0-9a-f]+$/i.test(example) ? hex.slice(0, example.length).padEnd(example.length, '0') : `unknown-${uuid}`,
    `${example}${hex.slice(0, 8)}`,
  ];
  return (
    candidates.find((candidate) => candidate !== example && contract.validate(schema ?? {}, candidate).length === 0) ??
    `${prefix}${uuid}`
  );
}

/** The value an `x-test-mode` outcome is selected by (`value`, or the key named like the mode's field). */
export function testModeValue(testMode: JsonObject, outcome: JsonObject): Json | undefined {
  const field = typeof testMode.field === 'string' ? testMode.field : '';
  return outcome.value ?? outcome[field.split('.').pop() ?? ''];
}

/** The `x-test-mode` outcomes of an operation. */
export function testModeOutcomes(operation: OperationModel): JsonObject[] {
  const outcomes = operation.testMode?.outcomes;
  return Array.isArray(outcomes) ? outcomes.filter(isObject) : [];
}
