import { describe, expect, it } from 'vitest';
import { createRateLimiter, readRateLimits, type RateLimitGroup } from './rate-limits.js';

const SCOPE = { merchantId: 'm1', mode: 'test' as const };
const READ: RateLimitGroup = { name: 'read', limit: 3, windowSeconds: 1 };

describe('rate limits', () => {
  it('read from the contract: each operation gets the group it names, with the root’s limit and window', () => {
    const table = readRateLimits({
      'x-rate-limits': { read: { limit: 100, window_seconds: 1, description: 'reads' }, write: { limit: 50, window_seconds: 1, description: 'writes' } },
      paths: { '/things': { get: { operationId: 'listThings', 'x-rate-limit': 'read' }, post: { operationId: 'createThing', 'x-rate-limit': 'write' }, parameters: [] } },
    });
    expect(table.get('listThings')).toEqual({ name: 'read', limit: 100, windowSeconds: 1 });
    expect(table.get('createThing')).toEqual({ name: 'write', limit: 50, windowSeconds: 1 });
  });

  it('refuse a contract whose operation names no group, or a group it does not define', () => {
    const groups = { read: { limit: 1, window_seconds: 1 } };
    expect(() => readRateLimits({ 'x-rate-limits': groups, paths: { '/a': { get: { operationId: 'a' } } } })).toThrow(/a: x-rate-limit undefined/);
    expect(() => readRateLimits({ 'x-rate-limits': groups, paths: { '/a': { get: { operationId: 'a', 'x-rate-limit': 'burst' } } } })).toThrow(/burst is not a group/);
    expect(() => readRateLimits({ 'x-rate-limits': { read: { limit: 0, window_seconds: 1 } }, paths: {} })).toThrow(/read needs/);
    expect(() => readRateLimits({ paths: {} })).toThrow(/no x-rate-limits/);
  });

  it('let a key make the limit’s requests in a window, counting down, then refuse until the next window starts', () => {
    let now = 10_000.25 * 1000;
    const limiter = createRateLimiter(() => now);
    expect([1, 2, 3].map(() => limiter.take(SCOPE, READ))).toEqual([
      { allowed: true, limit: 3, remaining: 2, resetSeconds: 1 },
      { allowed: true, limit: 3, remaining: 1, resetSeconds: 1 },
      { allowed: true, limit: 3, remaining: 0, resetSeconds: 1 },
    ]);
    expect(limiter.take(SCOPE, READ)).toEqual({ allowed: false, limit: 3, remaining: 0, resetSeconds: 1 });
    now += 750;
    expect(limiter.take(SCOPE, READ)).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('count each key and each group on its own', () => {
    const limiter = createRateLimiter(() => 5_000);
    for (let n = 0; n < 3; n++) limiter.take(SCOPE, READ);
    expect(limiter.take(SCOPE, READ).allowed).toBe(false);
    expect(limiter.take({ ...SCOPE, mode: 'live' }, READ).allowed).toBe(true);
    expect(limiter.take({ ...SCOPE, merchantId: 'm2' }, READ).allowed).toBe(true);
    expect(limiter.take(SCOPE, { ...READ, name: 'write' }).allowed).toBe(true);
  });

  it('say how long is left of a longer window, in whole seconds rounded up', () => {
    const limiter = createRateLimiter(() => 60_000 + 20_500);
    expect(limiter.take(SCOPE, { name: 'otp', limit: 1, windowSeconds: 60 })).toMatchObject({ resetSeconds: 40 });
  });
});
