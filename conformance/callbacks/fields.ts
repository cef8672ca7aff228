// Request fields by dotted path (`properties.id`), their schemas, and values unique to one event: a
// callback is matched to the request that caused it by a value no other request of any run carries.
import { randomInt } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { isObject } from '@payments-contract/contract/model';
import type { ErrorTrigger, Json, JsonObject } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';

export function getAt(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => {
    if (Array.isArray(node)) return node[Number(key)];
    return typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }, value);
}

/** Equal values; with `instant`, two date-times naming the same instant count as equal however they are spelt. */
export function sameValue(a: unknown, b: unknown, instant = false): boolean {
  if (instant && typeof a === 'string' && typeof b === 'string') {
    const [left, right] = [Date.parse(a), Date.parse(b)];
    if (!Number.isNaN(left) && !Number.isNaN(right)) return left === right;
  }
  return isDeepStrictEqual(a, b);
}

/** A copy of `body` with `path` set (intermediate objects created as needed). */
export function setAt(body: JsonObject, path: string, value: Json): JsonObject {
  const copy = structuredClone(body);
  const keys = path.split('.');
  const last = keys.pop() as string;
  let node: JsonObject = copy;
  for (const key of keys) {
    const child = node[key];
    if (!isObject(child)) node[key] = {};
    node = node[key] as JsonObject;
  }
  node[last] = value;
  return copy;
}

/** The schema of a property path inside an object schema, looking through references and `allOf`/`anyOf`/`oneOf`. */
export function schemaAt(contract: Contract, schema: Json | undefined, path: string): Json | undefined {
  let current: Json | undefined = schema;
  for (const key of path.split('.')) {
    current = propertyOf(contract, current, key);
    if (current === undefined) return undefined;
  }
  return current;
}

function propertyOf(contract: Contract, schema: Json | undefined, key: string, depth = 0): Json | undefined {
  const resolved = contract.deref(schema);
  if (!isObject(resolved) || depth > 8) return undefined;
  const properties = contract.deref(resolved.properties);
  if (isObject(properties) && properties[key] !== undefined) return properties[key];
  for (const combinator of ['allOf', 'anyOf', 'oneOf']) {
    const members = resolved[combinator];
    for (const member of Array.isArray(members) ? members : []) {
      const found = propertyOf(contract, member, key, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

const TAIL = 8;
const pick = (alphabet: string): string => alphabet.charAt(randomInt(alphabet.length));

/** Same character classes as the original (digits stay digits), so patterns and lengths still hold. */
function replaceTail(value: string): string {
  const head = value.slice(0, Math.max(0, value.length - TAIL));
  const tail = [...value.slice(head.length)].map((char) =>
    /[0-9]/.test(char)
      ? pick('0123456789')
      : /[a-z]/.test(char)
        ? pick('abcdefghijklmnopqrstuvwxyz')
        : /[A-Z]/.test(char)
          ? pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ')
          : char,
  );
  return head + tail.join('');
}

/** A fresh variant of `value` that `accepts` (the field's schema) still allows, or undefined. */
export function uniqueVariant(value: string, accepts: (candidate: string) => boolean): string | undefined {
  for (let attempt = 0; attempt < 8; attempt++) {
    const appended = `${value}-${replaceTail('a0a0a0a0')}`;
    const candidates = value.length >= TAIL ? [replaceTail(value), appended] : [appended, replaceTail(value)];
    const found = candidates.find((candidate) => candidate !== value && accepts(candidate));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Replaces each listed string field of `body` by a unique variant its schema accepts; enums and formats are left alone. */
export function uniquify(
  contract: Contract,
  schema: Json | undefined,
  body: JsonObject,
  fields: readonly string[],
): { body: JsonObject; values: Record<string, string> } {
  let result = body;
  const values: Record<string, string> = {};
  for (const field of fields) {
    const current = getAt(result, field);
    const fieldSchema = contract.deref(schemaAt(contract, schema, field));
    if (
      typeof current !== 'string' ||
      !isObject(fieldSchema) ||
      'enum' in fieldSchema ||
      'const' in fieldSchema ||
      'format' in fieldSchema
    )
      continue;
    const variant = uniqueVariant(current, (candidate) => contract.validate(fieldSchema, candidate).length === 0);
    if (variant === undefined) continue;
    result = setAt(result, field, variant);
    values[field] = variant;
  }
  return { body: result, values };
}

/** The fields an operation's `duplicate` error triggers say must not repeat. */
export function duplicateFields(errorTriggers: Record<string, ErrorTrigger>): string[] {
  return Object.values(errorTriggers).flatMap((trigger) => (trigger.when === 'duplicate' ? trigger.fields : []));
}

/**
 * The merchant's own identifiers in a request that the callback echoes: top-level string fields named
 * `*_id` (the API's naming for identifiers) that the webhook's body also declares, except `references`
 * to existing objects. Made unique, they tell which request a callback answers.
 */
export function echoedIdentifiers(
  contract: Contract,
  requestSchema: Json | undefined,
  webhookSchema: Json,
  body: JsonObject,
  references: readonly string[],
): string[] {
  return Object.keys(body).filter(
    (field) =>
      field.endsWith('_id') &&
      !references.includes(field) &&
      typeof body[field] === 'string' &&
      schemaAt(contract, requestSchema, field) !== undefined &&
      schemaAt(contract, webhookSchema, field) !== undefined,
  );
}
