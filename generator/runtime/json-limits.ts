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

/** One value still to look at; `parent` and `key` (an array index as a number) rebuild its pointer only when it breaks a limit. */
interface Pending {
  value: unknown;
  depth: number;
  parent: Pending | undefined;
  key: string | number;
}

function pointerOf(entry: Pending): string {
  const tokens: string[] = [];
  for (let at: Pending | undefined = entry; at?.parent !== undefined; at = at.parent) tokens.push(escapeToken(String(at.key)));
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
    // Children are read in place, without an array of entries per object: this walks every JSON body.
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        const breach = visitChild(value[index], index, entry, stack);
        if (breach) return breach;
      }
    } else {
      const object = value as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        const breach = visitChild(object[key], key, entry, stack);
        if (breach) return breach;
      }
    }
  }
  return undefined;
}

/** A child that breaks a limit by itself (a number JSON cannot carry), or undefined; objects and arrays go on the stack. */
function visitChild(child: unknown, key: string | number, parent: Pending, stack: Pending[]): JsonLimitBreach | undefined {
  if (typeof child === 'number') return Number.isFinite(child) ? undefined : nonFinite({ value: child, depth: parent.depth + 1, parent, key });
  if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: parent.depth + 1, parent, key });
  return undefined;
}

function nonFinite(entry: Pending): JsonLimitBreach {
  return { path: pointerOf(entry), message: `must be a number JSON can carry: at most ${Number.MAX_VALUE} in magnitude`, keyword: 'type' };
}
