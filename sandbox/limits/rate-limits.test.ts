import { describe, expect, it } from 'vitest';
import type { OperationModel, RateLimitModel } from '@payments-contract/contract/model/types';
import { controlRateLimits, serviceRateLimits } from '../contract.js';
import { createRateLimiter, rateLimitTable } from './rate-limits.js';

const SCOPE = { merchantId: 'm1', mode: 'test' as const };
const READ: RateLimitModel = { group: 'read', limit: 3, windowSeconds: 1 };

describe('rate limits', () => {
  it('hold every operation of both contracts to the limit of its group', () => {
    expect(serviceRateLimits.get('getBalance')).toEqual({
      group: 'read',
      limit: 100,
      windowSeconds: 1,
      scope: ['merchant', 'mode'],
    });
    expect(serviceRateLimits.get('createDisbursement')).toEqual({
      group: 'write',
      limit: 50,
      windowSeconds: 1,
      scope: ['merchant', 'mode'],
    });
    expect(controlRateLimits.get('advanceClock')?.group).toBe('control');
  });

  it('refuse a contract with an operation that has no limit', () => {
    const operation = (operationId: string, rateLimit?: RateLimitModel) =>
      ({ operationId, ...(rateLimit ? { rateLimit } : {}) }) as OperationModel;
    expect(() => rateLimitTable([operation('a', READ), operation('b'), operation('c')])).toThrow(
      /the contract gives no x-rate-limit to b, c/,
    );
    expect(rateLimitTable([operation('a', READ)]).get('a')).toBe(READ);
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
    expect(limiter.take(SCOPE, { ...READ, group: 'write' }).allowed).toBe(true);
  });

  it('say how long is left of a longer window, in whole seconds rounded up', () => {
    const limiter = createRateLimiter(() => 60_000 + 20_500);
    expect(limiter.take(SCOPE, { group: 'otp', limit: 1, windowSeconds: 60 })).toMatchObject({ resetSeconds: 40 });
  });
});
