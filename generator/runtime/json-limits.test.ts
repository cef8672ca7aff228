import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_JSON_DEPTH, findJsonLimitBreach, type JsonLimitBreach } from './json-limits.js';

/** `levels` arrays inside each other around `inner`, built without JSON.parse's own recursion. */
function nested(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('findJsonLimitBreach', () => {
  const cases: [string, { body: unknown; maxDepth?: number; want: JsonLimitBreach | undefined }][] = [
    ['an ordinary body', { body: { amount: 10, metadata: { a: [1, 2, { b: null }] } }, want: undefined }],
    ['the largest double', { body: { amount: Number.MAX_VALUE }, want: undefined }],
    [
      '1e309 in a field: JSON.parse gives Infinity, which would be stored as null',
      {
        body: JSON.parse('{"metadata":{"x":1e309}}'),
        want: {
          path: '/metadata/x',
          keyword: 'type',
          message: expect.stringContaining('number JSON can carry') as string,
        },
      },
    ],
    [
      '-1e309 in an array',
      {
        body: JSON.parse('{"list":[1,-1e309]}'),
        want: { path: '/list/1', keyword: 'type', message: expect.any(String) as string },
      },
    ],
    [
      'a whole body that is 1e309',
      { body: JSON.parse('1e309'), want: { path: '', keyword: 'type', message: expect.any(String) as string } },
    ],
    [
      'pointer tokens are escaped',
      {
        body: JSON.parse('{"a/b":{"c~d":1e400}}'),
        want: { path: '/a~1b/c~0d', keyword: 'type', message: expect.any(String) as string },
      },
    ],
    [
      'a lone high surrogate escape in a value',
      {
        body: JSON.parse('{"name":"a\\ud800"}'),
        want: { path: '/name', keyword: 'pattern', message: expect.stringContaining('Unicode text') as string },
      },
    ],
    [
      'a lone low surrogate in an array',
      {
        body: JSON.parse('{"tags":["ok","\\udc00b"]}'),
        want: { path: '/tags/1', keyword: 'pattern', message: expect.any(String) as string },
      },
    ],
    [
      'two high surrogates, the first unpaired',
      {
        body: JSON.parse('{"n":"\\ud800\\ud83d\\ude00"}'),
        want: { path: '/n', keyword: 'pattern', message: expect.any(String) as string },
      },
    ],
    [
      'U+0000 in free-form metadata',
      {
        body: JSON.parse('{"metadata":{"note":"a\\u0000b"}}'),
        want: { path: '/metadata/note', keyword: 'pattern', message: expect.any(String) as string },
      },
    ],
    [
      'U+0000 in a member name: the pointer names the object',
      {
        body: JSON.parse('{"metadata":{"a\\u0000":1}}'),
        want: {
          path: '/metadata',
          keyword: 'propertyNames',
          message: expect.stringContaining('member names') as string,
        },
      },
    ],
    [
      'a lone surrogate in a member name at the top',
      {
        body: JSON.parse('{"\\ud800":{"x":"\\u0000"}}'),
        want: { path: '', keyword: 'propertyNames', message: expect.any(String) as string },
      },
    ],
    [
      'a whole body that is a lone surrogate',
      { body: JSON.parse('"\\ud800"'), want: { path: '', keyword: 'pattern', message: expect.any(String) as string } },
    ],
    [
      'pairs, astral and other characters, and the escapes written out, are text',
      { body: { a: '😀\ud83d\ude00', b: '\u0001\u2028\uffff', c: '\\u0000 \\ud800', 'k😀': ['é'] }, want: undefined },
    ],
    ['exactly the limit', { body: nested(4), maxDepth: 4, want: undefined }],
    [
      'one level over the limit',
      {
        body: nested(5),
        maxDepth: 4,
        want: {
          path: '/0/0/0/0',
          keyword: 'maxDepth',
          message: 'must not nest objects and arrays more than 4 levels deep',
        },
      },
    ],
    [
      'objects count as arrays do',
      {
        body: { a: { b: { c: {} } } },
        maxDepth: 3,
        want: { path: '/a/b/c', keyword: 'maxDepth', message: expect.any(String) as string },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { body, maxDepth, want }) => {
    expect(findJsonLimitBreach(body, maxDepth)).toEqual(want);
  });

  it('walks a body nested 100,000 levels deep without overflowing the stack', () => {
    expect(findJsonLimitBreach(nested(100_000))).toMatchObject({ keyword: 'maxDepth' });
    expect(findJsonLimitBreach(nested(100_000), 200_000)).toBeUndefined();
  });

  it('allows 32 levels by default', () => {
    expect(DEFAULT_MAX_JSON_DEPTH).toBe(32);
    expect(findJsonLimitBreach(nested(32))).toBeUndefined();
    expect(findJsonLimitBreach(nested(33))).toMatchObject({ keyword: 'maxDepth' });
  });
});
