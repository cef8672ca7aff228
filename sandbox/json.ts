// Plain-JSON helpers shared by the sandbox's modules (the idempotency fingerprint among them): the store takes JSON records,
// while the generated types describe the same data with optional properties (which TypeScript does not
// count as JSON because they may be `undefined`).
import { toJson } from './balance/callbacks.js';
import type { Json, JsonRecord } from './context.js';

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
