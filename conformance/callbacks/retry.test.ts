import { describe, expect, it } from 'vitest';
import { retryExpectation, retryWindowMs } from './retry.js';

const policy = { attempts: 3, retry_interval_seconds: 30 };

describe('retryExpectation', () => {
  it.each([
    [
      'the contract policy',
      undefined,
      { attempts: 3, intervalMs: 30_000, earlyToleranceMs: 7_500, lateToleranceMs: 15_000 },
    ],
    [
      'an override, saying what it replaces',
      200,
      { attempts: 3, intervalMs: 200, earlyToleranceMs: 100, lateToleranceMs: 300, overriddenFromMs: 30_000 },
    ],
    [
      'an override equal to the contract, not flagged',
      30_000,
      { attempts: 3, intervalMs: 30_000, earlyToleranceMs: 7_500, lateToleranceMs: 15_000 },
    ],
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
