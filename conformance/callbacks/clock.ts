// Callback retries brought on by the target's clock instead of waited for in real time. A target with the
// sandbox control API moves its clock on request (`x-clock-advance`) and runs, before it answers, whatever
// the move made due, a callback's next attempt included; it also lists every callback it sent with the
// start of each attempt in its own time (`x-callback-deliveries`). So the suite moves the clock one retry
// interval at a time, as many times as there are attempts (the last move proves no attempt follows the
// last one), and judges the spacing from the records rather than from arrival times on its own clock.
import type { ProgressEvent } from '../types.js';
import type { CallbackEvent } from './events.js';
import { belongsTo, byBody } from './judge.js';
import type { CallbackReceiver } from './receiver.js';
import type { RetryExpectation } from './retry.js';
import type { ControlClock } from './sandbox.js';

/**
 * How long to wait, after a move, for an attempt the move should have brought: the control contract says
 * the move answers once it has run, so this is only room for a delivery still on the wire.
 */
export const ATTEMPT_GRACE_MS = 1_000;

export interface TimedRetry {
  event: CallbackEvent;
  expected: RetryExpectation;
}

/**
 * The moves of the clock that bring every timed callback's attempts and one interval more: steps of the
 * shortest interval, up to the longest `attempts × interval`.
 */
export function clockSteps(expectations: readonly RetryExpectation[]): number[] {
  if (expectations.length === 0) return [];
  const step = Math.min(...expectations.map((e) => e.intervalMs));
  const total = Math.max(...expectations.map((e) => e.attempts * e.intervalMs));
  return step <= 0 ? [0] : Array.from({ length: Math.ceil(total / step) }, () => step);
}

/** Resolves once every callback of the event has had `count` attempts at the receiver, or after `timeoutMs`. */
export async function attemptsArrived(receiver: CallbackReceiver, event: CallbackEvent, count: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const groups = byBody(receiver.deliveries().filter((d) => belongsTo(event, d)));
    if (groups.length > 0 && groups.every((attempts) => attempts.length >= count)) return;
    const remaining = deadline - performance.now();
    if (remaining <= 0) return;
    const known = receiver.deliveries().length;
    await receiver.waitFor((d) => d.seq >= known && belongsTo(event, d), remaining);
  }
}

/** Moves the clock until every timed callback has had its attempts and one interval more; why it could not, when it could not. */
export async function driveRetries(clock: ControlClock, receiver: CallbackReceiver, timed: readonly TimedRetry[], onProgress: (event: ProgressEvent) => void): Promise<{ ok: true } | { ok: false; reason: string }> {
  const steps = clockSteps(timed.map((t) => t.expected));
  const webhooks = [...new Set(timed.map((t) => t.event.webhook))].join(', ');
  for (const [index, step] of steps.entries()) {
    onProgress({ kind: 'working', check: 'callbacks', what: `moving the target's clock ${step} ms ahead (${index + 1} of ${steps.length}) for the retries of ${webhooks}` });
    const moved = await clock.advance(step);
    if (!moved.ok) return { ok: false, reason: `${clock.operation.operationId} failed: ${moved.reason}` };
    // Attempt index + 2 is the one this move is due to bring (the first came in real time).
    await Promise.all(timed.map((t) => attemptsArrived(receiver, t.event, Math.min(index + 2, t.expected.attempts), ATTEMPT_GRACE_MS)));
  }
  return { ok: true };
}
