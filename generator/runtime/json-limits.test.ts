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
    ['1e309 in a field: JSON.parse gives Infinity, which would be stored as null', { body: JSON.parse('{"metadata":{"x":1e309}}'), want: { path: '/metadata/x', keyword: 'type', message: expect.stringContaining('number JSON can carry') as string } }],
    ['-1e309 in an array', { body: JSON.parse('{"list":[1,-1e309]}'), want: { path: '/list/1', keyword: 'type', message: expect.any(String) as string } }],
    ['a whole body that is 1e309', { body: JSON.parse('1e309'), want: { path: '', keyword: 'type', message: expect.any(String) as string } }],
    ['pointer tokens are escaped', { body: JSON.parse('{"a/b":{"c~d":1e400}}'), want: { path: '/a~1b/c~0d', keyword: 'type', message: expect.any(String) as string } }],
    ['exactly the limit', { body: nested(4), maxDepth: 4, want: undefined }],
    ['one level over the limit', { body: nested(5), maxDepth: 4, want: { path: '/0/0/0/0', keyword: 'maxDepth', message: 'must not nest objects and arrays more than 4 levels deep' } }],
    ['objects count as arrays do', { body: { a: { b: { c: {} } } }, maxDepth: 3, want: { path: '/a/b/c', keyword: 'maxDepth', message: expect.any(String) as string } }],
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
