// What a parsed JSON body may hold beyond its schema. JSON.parse turns a number too large for a double
// (`1e309`) into Infinity, which JSON.stringify writes back as `null`: stored, it would silently become
// another value. And a body nested thousands of levels deep parses, but overflows the stack of any recursive
// code that walks it later (serializers, comparisons, validators). Both are refused before the body goes
// further, as a validation error naming where the value is (decision `json-body-limits`).

/** Default nesting limit: objects and arrays inside each other at most this many levels (the body itself is level 1). */
export const DEFAULT_MAX_JSON_DEPTH = 32;

/** A value of the body that breaks one of these limits: where it is (JSON Pointer) and the rule, in words. */
export interface JsonLimitBreach {
  path: string;
  message: string;
  keyword: 'maxDepth' | 'type';
}

const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** One value still to look at; `parent` and `key` rebuild its pointer only when it breaks a limit. */
interface Pending {
  value: unknown;
  depth: number;
  parent: Pending | undefined;
  key: string;
}

function pointerOf(entry: Pending): string {
  const tokens: string[] = [];
  for (let at: Pending | undefined = entry; at?.parent !== undefined; at = at.parent) tokens.push(escapeToken(at.key));
  return tokens.length === 0 ? '' : `/${tokens.reverse().join('/')}`;
}

/**
 * The first value of `body` (as JSON.parse gave it) that JSON cannot carry back or that nests deeper than
 * `maxDepth`, or undefined. Walks with its own stack, so a body of any depth is looked at without recursion.
 */
export function findJsonLimitBreach(body: unknown, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): JsonLimitBreach | undefined {
  if (typeof body !== 'object' || body === null) return typeof body === 'number' && !Number.isFinite(body) ? nonFinite({ value: body, depth: 0, parent: undefined, key: '' }) : undefined;
  const stack: Pending[] = [{ value: body, depth: 1, parent: undefined, key: '' }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { value, depth } = entry;
    if (depth > maxDepth) return { path: pointerOf(entry), message: `must not nest objects and arrays more than ${maxDepth} levels deep`, keyword: 'maxDepth' };
    const children: [string, unknown][] = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value as object);
    for (const [key, child] of children) {
      if (typeof child === 'number') {
        if (!Number.isFinite(child)) return nonFinite({ value: child, depth: depth + 1, parent: entry, key });
      } else if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1, parent: entry, key });
    }
  }
  return undefined;
}

function nonFinite(entry: Pending): JsonLimitBreach {
  return { path: pointerOf(entry), message: `must be a number JSON can carry: at most ${Number.MAX_VALUE} in magnitude`, keyword: 'type' };
}
