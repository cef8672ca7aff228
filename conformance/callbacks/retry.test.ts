import { describe, expect, it } from 'vitest';
import { judgeRetries, retryExpectation, retryWindowMs } from './retry.js';

const policy = { attempts: 3, retry_interval_seconds: 30 };

describe('retryExpectation', () => {
  it.each([
    ['the contract policy', undefined, { attempts: 3, intervalMs: 30_000, earlyToleranceMs: 7_500, lateToleranceMs: 15_000 }],
    ['an override, saying what it replaces', 200, { attempts: 3, intervalMs: 200, earlyToleranceMs: 100, lateToleranceMs: 300, overriddenFromMs: 30_000 }],
    ['an override equal to the contract, not flagged', 30_000, { attempts: 3, intervalMs: 30_000, earlyToleranceMs: 7_500, lateToleranceMs: 15_000 }],
  ])('%s', (_name, override, want) => {
    expect(retryExpectation(policy, override)).toEqual(want);
  });

  it('is undefined for a delivery policy without attempts or interval', () => {
    expect(retryExpectation({ attempts: 3 })).toBeUndefined();
  });

  it('listens long enough to see one attempt too many', () => {
    const expected = retryExpectation(policy, 200);
    expect(expected && retryWindowMs(expected)).toBe(3 * 200 + 300);
  });
});

describe('judgeRetries', () => {
  const expected = { attempts: 3, intervalMs: 1000, earlyToleranceMs: 250, lateToleranceMs: 500 };
  const window = 'expected 1000 ms (x-delivery.retry_interval_seconds), between 750 and 1500 ms';
  it.each([
    ['on time', [0, 1000, 2000], []],
    ['within tolerance, any order', [2400, 0, 900], []],
    ['too few attempts', [0, 1000], ['2 attempt(s) while every attempt failed; x-delivery.attempts is 3']],
    ['too many attempts', [0, 1000, 2000, 3000], ['4 attempt(s) while every attempt failed; x-delivery.attempts is 3']],
    ['too fast', [0, 700, 1700], [`attempt 2 came 700 ms after attempt 1; ${window}`]],
    ['too slow', [0, 1000, 2600], [`attempt 3 came 1600 ms after attempt 2; ${window}`]],
  ])('%s', (_name, times, want) => {
    expect(judgeRetries(times, expected)).toEqual(want);
  });
});
