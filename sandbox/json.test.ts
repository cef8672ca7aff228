// canonicalJson's text is kept in stored idempotency records (as it is, or hashed): a key used before a
// restart or an upgrade must give the same text for the same request, so the text itself is pinned here.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './json.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and leaves absent fields out', () => {
    expect(canonicalJson({ b: [{ d: 1, c: null }, 'x'], a: { z: true, y: undefined }, m: -0 })).toBe(
      '{"a":{"z":true},"b":[{"c":null,"d":1},"x"],"m":0}',
    );
  });

  it('writes array indexes as keys first, in numeric order, then the other keys sorted by code unit', () => {
    expect(canonicalJson({ é: 1, e: 2, E: 3, 10: 4, 9: 5, '01': 6, '-1': 7, 4294967295: 8, 4294967294: 9 })).toBe(
      '{"9":5,"10":4,"4294967294":9,"-1":7,"01":6,"4294967295":8,"E":3,"e":2,"é":1}',
    );
  });

  it('leaves out a parsed __proto__ field, and escapes text as JSON does', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"b":"a\\"\\u2028"}'))).toBe('{"b":"a\\"\u2028"}');
  });

  it('refuses what JSON cannot hold', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow('NaN is not a JSON number');
    expect(() => canonicalJson([undefined])).toThrow('a undefined is not JSON');
  });
});
