// Retry behaviour measured against a webhook's `x-delivery`: when every attempt fails, the target makes
// exactly `attempts` attempts, `retry_interval_seconds` apart within a tolerance, and then stops.
import type { JsonObject } from '@payments-contract/contract/model/types';

export interface RetryExpectation {
  attempts: number;
  intervalMs: number;
  /** How much sooner than the interval an attempt may come. */
  earlyToleranceMs: number;
  /** How much later: more, since networks and schedulers only ever delay an attempt. */
  lateToleranceMs: number;
  /** Set when the interval comes from an option rather than the contract, to say so in the result. */
  overriddenFromMs?: number;
}

/** Relative, so that a 30 s policy and a 500 ms test policy are judged alike; never below scheduling jitter. */
const EARLY = { share: 0.25, minMs: 100 };
const LATE = { share: 0.5, minMs: 300 };

export function retryExpectation(delivery: JsonObject, overrideIntervalMs?: number): RetryExpectation | undefined {
  const { attempts, retry_interval_seconds: seconds } = delivery;
  if (typeof attempts !== 'number' || typeof seconds !== 'number') return undefined;
  const contractMs = seconds * 1000;
  const intervalMs = overrideIntervalMs ?? contractMs;
  return {
    attempts,
    intervalMs,
    earlyToleranceMs: Math.max(intervalMs * EARLY.share, EARLY.minMs),
    lateToleranceMs: Math.max(intervalMs * LATE.share, LATE.minMs),
    ...(overrideIntervalMs !== undefined && overrideIntervalMs !== contractMs ? { overriddenFromMs: contractMs } : {}),
  };
}

/** How long after the first attempt to keep listening: long enough to see one attempt too many. */
export function retryWindowMs(expected: RetryExpectation): number {
  return expected.attempts * expected.intervalMs + expected.lateToleranceMs;
}

/** What departs from the expectation, given the arrival times (ms) of every attempt of one callback. */
export function judgeRetries(times: readonly number[], expected: RetryExpectation): string[] {
  const sorted = [...times].sort((a, b) => a - b);
  const problems: string[] = [];
  if (sorted.length !== expected.attempts) {
    problems.push(`${sorted.length} attempt(s) while every attempt failed; x-delivery.attempts is ${expected.attempts}`);
  }
  const lowest = expected.intervalMs - expected.earlyToleranceMs;
  const highest = expected.intervalMs + expected.lateToleranceMs;
  for (let index = 1; index < sorted.length; index++) {
    const gap = (sorted[index] as number) - (sorted[index - 1] as number);
    if (gap < lowest || gap > highest) {
      problems.push(`attempt ${index + 1} came ${Math.round(gap)} ms after attempt ${index}; expected ${expected.intervalMs} ms (x-delivery.retry_interval_seconds), between ${Math.round(lowest)} and ${Math.round(highest)} ms`);
    }
  }
  return problems;
}
