// Small helpers over the bundled documents: equality, references followed with their pointers, and
// pointer building. Kept apart from the rules so each rule reads as the comparison it makes.
import { escapePointerToken, isObject } from '@payments-contract/model';
import type { Json, JsonObject } from '@payments-contract/model/types';
import type { Located } from './types.js';

export { isObject };

/** Structural equality of two JSON values (key order ignored). */
export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && deepEqual(a[key], b[key]));
  }
  return false;
}

/** `pointer` with one more token. */
export const child = (pointer: string, token: string | number): string =>
  `${pointer}/${escapePointerToken(String(token))}`;

function at(doc: JsonObject, pointer: string): Json | undefined {
  return pointer
    .slice(2)
    .split('/')
    .filter((token) => token !== '')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<Json | undefined>(
      (node, token) => (isObject(node) ? node[token] : Array.isArray(node) ? node[Number(token)] : undefined),
      doc,
    );
}

/**
 * Follows local `$ref`s, keeping the pointer of what was reached: a change inside a shared component is
 * reported where the component is defined. Keywords beside a `$ref` (OpenAPI 3.1 allows them) are laid
 * over the target, so a property's own description or bound is not lost.
 */
export function resolve(located: Located): Located {
  let { node, pointer } = located;
  let siblings: JsonObject = {};
  for (let depth = 0; isObject(node) && typeof node.$ref === 'string'; depth++) {
    if (depth > 32) throw new Error(`reference cycle at ${node.$ref}`);
    if (!node.$ref.startsWith('#/')) throw new Error(`only local references are supported: ${node.$ref}`);
    const { $ref, ...rest } = node;
    siblings = { ...rest, ...siblings };
    pointer = $ref;
    node = at(located.doc, $ref);
  }
  if (Object.keys(siblings).length > 0 && isObject(node)) node = { ...node, ...siblings };
  return { doc: located.doc, node, pointer };
}

/** The child of a located object (undefined node when absent), references not followed. */
export function member(located: Located, token: string | number): Located {
  const { node } = located;
  const value = isObject(node) ? node[String(token)] : Array.isArray(node) ? node[Number(token)] : undefined;
  return { doc: located.doc, node: value, pointer: child(located.pointer, token) };
}

/** The child with references followed on the way and at the end. */
export const resolvedMember = (located: Located, token: string | number): Located =>
  resolve(member(resolve(located), token));

/** A located object's entries (empty when it is not an object), references followed. */
export function entriesOf(located: Located): [string, Located][] {
  const resolved = resolve(located);
  return isObject(resolved.node) ? Object.keys(resolved.node).map((key) => [key, member(resolved, key)]) : [];
}

/** A short rendering of a value for a sentence. */
export function show(value: Json | undefined): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export const list = (values: readonly (Json | undefined)[]): string => values.map(show).join(', ');
