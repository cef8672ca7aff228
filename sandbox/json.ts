// Plain-JSON helpers shared by the sandbox's modules (the idempotency fingerprint among them): the store takes JSON records,
// while the generated types describe the same data with optional properties (which TypeScript does not
// count as JSON because they may be `undefined`).
import type { Json, JsonRecord } from './context.js';

/** A generated payload type as the store keeps it: JSON, optional fields that are absent left out. */
export function toJson(value: unknown): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${value} is not a JSON number`);
    return value;
  }
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

function sortedKeys(node: Json): Json {
  if (Array.isArray(node)) return node.map(sortedKeys);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.keys(node)
      .sort()
      .map((key) => [key, sortedKeys(node[key] ?? null)]),
  );
}

/** JSON with object keys sorted at every level: equal requests give equal text (idempotency fingerprints). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(toJson(value)));
}
