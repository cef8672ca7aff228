import { describe, expect, it } from 'vitest';
import { digestsEqual, secretDigest, secretsEqual } from './constant-time.js';

describe('secretsEqual', () => {
  const expected = 'cbtok_test_5f6ee8de3a733c1d';
  it.each([
    ['the same secret', expected, true],
    ['a different secret of the same length', 'cbtok_test_5f6ee8de3a733c1e', false],
    ['a prefix of the secret', 'cbtok_test_', false],
    ['the secret with more after it', `${expected}x`, false],
    ['an empty string', '', false],
    ['the secret in another case', expected.toUpperCase(), false],
  ])('%s -> %s', (_name, given, want) => {
    expect(secretsEqual(given, expected)).toBe(want);
  });

  it('compares strings of any lengths without throwing (timingSafeEqual alone throws on unequal lengths)', () => {
    expect(() => secretsEqual('a', 'a much longer secret')).not.toThrow();
  });

  it('gives the same answers from digests made once (a server checking many requests against known secrets)', () => {
    const known = secretDigest(expected);
    expect(digestsEqual(secretDigest(expected), known)).toBe(true);
    expect(digestsEqual(secretDigest(`${expected}x`), known)).toBe(false);
    expect(digestsEqual(secretDigest(''), known)).toBe(false);
  });
});
