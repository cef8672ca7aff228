// Plain-JSON helpers shared by the sandbox's modules (the idempotency fingerprint among them): the store takes JSON records,
// while the generated types describe the same data with optional properties (which TypeScript does not
// count as JSON because they may be `undefined`).
import type { Json, JsonRecord } from './context.js';

/** Whether `value` is a JSON scalar; throws for a number JSON cannot hold. */
function isScalar(value: unknown): value is null | boolean | number | string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`${value} is not a JSON number`);
  return value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number';
}

/** A generated payload type as the store keeps it: JSON, optional fields that are absent left out. */
export function toJson(value: unknown): Json {
  if (isScalar(value)) return value;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object') {
    const object: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) object[key] = toJson(item);
    return object;
  }
  throw new TypeError(`a ${typeof value} is not JSON`);
}

/**
 * A resource as a stored record. The resource types come from the contract and hold JSON only; the
 * round trip through `toJson` makes that true at run time, which is what the type assertion relies on.
 */
export function toRecord<T extends { id: string }>(value: T): T & JsonRecord {
  return toJson(value) as T & JsonRecord;
}

/** An array index as an object's key (`0` to `2 ** 32 - 2`, written as a number writes it). */
const isIndex = (key: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * The keys of `object` in the order JSON.stringify writes an object made with them sorted: array indexes
 * first, in numeric order (an object lists them so, and Object.keys gives them first), then the others sorted.
 */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  let indexes = 0;
  while (indexes < keys.length && isIndex(keys[indexes]!)) indexes++;
  return indexes === 0 ? keys.sort() : [...keys.slice(0, indexes), ...keys.slice(indexes).sort()];
}

/**
 * JSON with object keys sorted at every level: equal requests give equal text (idempotency fingerprints, kept
 * in stored records, so the text never changes). What `toJson` keeps, written in one pass rather than through
 * two copies (toJson's, then one with its keys sorted): absent fields left out, and `__proto__`, which
 * toJson's copy cannot hold as a field, too.
 */
export function canonicalJson(value: unknown): string {
  if (isScalar(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '';
    // A hole (never in parsed JSON) is written as JSON.stringify writes it.
    for (let i = 0; i < value.length; i++)
      text += `${i === 0 ? '' : ','}${i in value ? canonicalJson(value[i]) : 'null'}`;
    return `[${text}]`;
  }
  if (typeof value !== 'object') throw new TypeError(`a ${typeof value} is not JSON`);
  const object = value as { [key: string]: unknown };
  let text = '';
  for (const key of sortedKeys(object)) {
    const item = object[key];
    if (item === undefined) continue;
    const itemText = canonicalJson(item);
    if (key !== '__proto__') text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${itemText}`;
  }
  return `{${text}}`;
}
