// Retry behaviour expected from a webhook's `x-delivery`: when every attempt fails, the target makes
// exactly `attempts` attempts, `retry_interval_seconds` apart within a tolerance, and then stops
// (judged in spacing.ts).
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
