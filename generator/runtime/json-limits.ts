// What a parsed JSON body may hold beyond its schema. JSON.parse turns a number too large for a double
// (`1e309`) into Infinity, which JSON.stringify writes back as `null`: stored, it would silently become
// another value. And a body nested thousands of levels deep parses, but overflows the stack of any recursive
// code that walks it later (serializers, comparisons, validators). Both are refused before the body goes
// further, as a validation error naming where the value is (decision `json-body-limits`). So is text that is
// not Unicode characters (a lone surrogate escape, `"\ud800"`, which UTF-8 cannot encode) or holds U+0000,
// which databases' text and JSON types cannot keep: in a value or a member name (decision `json-body-text`).

/** Default nesting limit: objects and arrays inside each other at most this many levels (the body itself is level 1). */
export const DEFAULT_MAX_JSON_DEPTH = 32;

/** A value of the body that breaks one of these limits: where it is (JSON Pointer) and the rule, in words. */
export interface JsonLimitBreach {
  path: string;
  message: string;
  keyword: 'maxDepth' | 'type' | 'pattern' | 'propertyNames';
}

/** A lone surrogate (a high one not followed by a low one, or a low one not after a high one), or U+0000. */
const NOT_TEXT = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\0/;
const TEXT_RULE = 'Unicode text without U+0000 (no unpaired surrogate such as \\ud800, no \\u0000)';

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
  for (let at: Pending | undefined = entry; at?.parent !== undefined; at = at.parent)
    tokens.push(escapeToken(String(at.key)));
  return tokens.length === 0 ? '' : `/${tokens.reverse().join('/')}`;
}

/**
 * The first value of `body` (as JSON.parse gave it) that JSON cannot carry back or that nests deeper than
 * `maxDepth`, or undefined. Walks with its own stack, so a body of any depth is looked at without recursion.
 */
export function findJsonLimitBreach(
  body: unknown,
  maxDepth: number = DEFAULT_MAX_JSON_DEPTH,
): JsonLimitBreach | undefined {
  if (typeof body !== 'object' || body === null)
    return scalarBreach(body, { value: body, depth: 0, parent: undefined, key: '' });
  const stack: Pending[] = [{ value: body, depth: 1, parent: undefined, key: '' }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { value, depth } = entry;
    if (depth > maxDepth)
      return {
        path: pointerOf(entry),
        message: `must not nest objects and arrays more than ${maxDepth} levels deep`,
        keyword: 'maxDepth',
      };
    // Children are read in place, without an array of entries per object: this walks every JSON body.
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        const breach = visitChild(value[index], index, entry, stack);
        if (breach) return breach;
      }
    } else {
      const object = value as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        // The name is looked at before any value under it, so a breach's pointer is always text.
        if (NOT_TEXT.test(key))
          return {
            path: pointerOf(entry),
            message: `must have member names that are ${TEXT_RULE}`,
            keyword: 'propertyNames',
          };
        const breach = visitChild(object[key], key, entry, stack);
        if (breach) return breach;
      }
    }
  }
  return undefined;
}

/** A child that breaks a limit by itself (a number JSON cannot carry, text no store keeps), or undefined; objects and arrays go on the stack. */
function visitChild(
  child: unknown,
  key: string | number,
  parent: Pending,
  stack: Pending[],
): JsonLimitBreach | undefined {
  if (typeof child === 'object' && child !== null) {
    stack.push({ value: child, depth: parent.depth + 1, parent, key });
    return undefined;
  }
  return scalarBreach(child, { value: child, depth: parent.depth + 1, parent, key });
}

function scalarBreach(value: unknown, entry: Pending): JsonLimitBreach | undefined {
  if (typeof value === 'number')
    return Number.isFinite(value)
      ? undefined
      : {
          path: pointerOf(entry),
          message: `must be a number JSON can carry: at most ${Number.MAX_VALUE} in magnitude`,
          keyword: 'type',
        };
  if (typeof value === 'string' && NOT_TEXT.test(value))
    return { path: pointerOf(entry), message: `must be ${TEXT_RULE}`, keyword: 'pattern' };
  return undefined;
}
