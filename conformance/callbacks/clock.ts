// Callback retries brought on by the target's clock instead of waited for in real time. A target with the
// sandbox control API moves its clock on request (`x-clock-advance`), runs whatever the move made due (a
// callback's next attempt included) before it answers, and answers its time after the move; it also lists
// every callback it sent with the start of each attempt in its own time (`x-callback-deliveries`). A move
// only makes an attempt due inside the time it skipped come at its end, so the suite never skips a time
// the judgement needs: from each attempt's recorded time it lands the clock exactly on the earliest time
// the next attempt may come, then on the interval, then just inside and just past the latest, the nearest
// first across every timed callback, until each has had its attempts and the clock is past the latest time
// one more could come. Real time that passed meanwhile (a slow receiver, another callback awaited) only
// means a landing is already behind the clock: no move is made for it.
import type { ProgressEvent } from '../types.js';
import type { CallbackEvent } from './events.js';
import { belongsTo, byBody, ownRecords } from './judge.js';
import type { CallbackReceiver } from './receiver.js';
import type { RetryExpectation } from './retry.js';
import type { ControlClock, ControlDeliveries, RecordedDelivery } from './sandbox.js';
import type { UnexplainedMove } from './spacing.js';

/**
 * How long to wait, after the last move, for attempts the target recorded to reach the receiver: the move
 * answers once they have run, so this is only room for a delivery still on the wire.
 */
export const ATTEMPT_GRACE_MS = 1_000;

export interface TimedRetry {
  event: CallbackEvent;
  expected: RetryExpectation;
}

/**
 * The target times to land the clock on after a callback's latest attempt at `last`: the earliest the next
 * may come (so a move bringing it started inside the tolerance), the interval, and either side of the latest
 * (a late attempt is told from one too late, and no attempt can hide past the end).
 */
export function landings(last: number, expected: RetryExpectation): number[] {
  const { intervalMs, earlyToleranceMs, lateToleranceMs } = expected;
  const margin = lateToleranceMs / 4;
  return [
    last + intervalMs - earlyToleranceMs,
    last + intervalMs,
    last + intervalMs + lateToleranceMs - margin,
    last + intervalMs + lateToleranceMs + margin,
  ];
}

/** The landings still ahead of `now`, for every callback of the timed events the records list; a callback with one attempt too many is done. */
export function nextLanding(
  now: number,
  attempts: readonly { times: readonly number[]; expected: RetryExpectation }[],
): number | undefined {
  const ahead = attempts
    .flatMap(({ times, expected }) =>
      times.length === 0 || times.length > expected.attempts ? [] : landings(Math.max(...times), expected),
    )
    .filter((at) => at > now);
  return ahead.length === 0 ? undefined : Math.min(...ahead);
}

/** The recorded attempt times of every callback of the timed events, matched by the body the receiver got. */
function recordedAttempts(
  receiver: CallbackReceiver,
  timed: readonly TimedRetry[],
  records: readonly RecordedDelivery[],
): { times: number[]; expected: RetryExpectation }[] {
  return timed.flatMap(({ event, expected }) =>
    byBody(receiver.deliveries().filter((d) => belongsTo(event, d))).flatMap(([first]) =>
      first ? ownRecords(records, first.json).map((record) => ({ times: record.attemptTimes, expected })) : [],
    ),
  );
}

/** Resolves once every callback of the event has had `count` attempts at the receiver, or after `timeoutMs`. */
export async function attemptsArrived(
  receiver: CallbackReceiver,
  event: CallbackEvent,
  count: number,
  timeoutMs: number,
): Promise<void> {
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

/** The target's clock against real time, read once: how far ahead it is, give or take half the reading's round trip. */
export interface OffsetReading {
  offsetMs: number;
  uncertaintyMs: number;
  /** How many of the suite's moves had been made when it was read. */
  moves: number;
}

export async function readOffset(clock: ControlClock): Promise<OffsetReading | { reason: string }> {
  const sent = performance.now();
  const now = await clock.now();
  const answered = performance.now();
  if ('reason' in now) return now;
  return {
    offsetMs: now.ms - (performance.timeOrigin + (sent + answered) / 2),
    uncertaintyMs: (answered - sent) / 2,
    moves: clock.moves().length,
  };
}

/** How much more the target's clock moved between two readings than the suite moved it, when more than the readings can tell apart. */
export function unexplainedMove(
  before: OffsetReading,
  after: OffsetReading,
  clock: ControlClock,
): UnexplainedMove | undefined {
  const moved = clock
    .moves()
    .slice(before.moves, after.moves)
    .reduce((sum, move) => sum + move.ms, 0);
  const ms = after.offsetMs - before.offsetMs - moved;
  const uncertaintyMs = before.uncertaintyMs + after.uncertaintyMs;
  return Math.abs(ms) > uncertaintyMs ? { ms, uncertaintyMs } : undefined;
}

/**
 * Lands the clock on every timed callback's next landing, nearest first, until none is ahead; then waits for
 * the receiver to have every attempt the target recorded. Answers the records as they stand at the end, or
 * why the clock could not be moved or the records read.
 */
export async function driveRetries(
  clock: ControlClock,
  deliveries: ControlDeliveries,
  receiver: CallbackReceiver,
  timed: readonly TimedRetry[],
  onProgress: (event: ProgressEvent) => void,
): Promise<{ records: RecordedDelivery[] } | { reason: string }> {
  const webhooks = [...new Set(timed.map((t) => t.event.webhook))].join(', ');
  const start = await clock.now();
  if ('reason' in start) return { reason: `${clock.operation.operationId}: ${start.reason}` };
  let known = { now: start.ms, at: performance.now() };
  // Each landing follows an attempt or ends a callback: a bound for a target that never stops trying.
  const bound = timed.reduce((sum, t) => sum + 4 * (t.expected.attempts + 2), 0);
  for (let landing = 0; ; landing++) {
    const listed = await deliveries.list();
    if ('reason' in listed) return listed;
    const now = known.now + (performance.now() - known.at);
    const next = nextLanding(now, recordedAttempts(receiver, timed, listed.records));
    if (next === undefined || landing >= bound) {
      await Promise.all(
        timed.map((t) =>
          attemptsArrived(
            receiver,
            t.event,
            Math.max(0, ...recordedAttempts(receiver, [t], listed.records).map((r) => r.times.length)),
            ATTEMPT_GRACE_MS,
          ),
        ),
      );
      return listed;
    }
    const step = Math.ceil(next - now);
    onProgress({
      kind: 'working',
      check: 'callbacks',
      what: `moving the target's clock ${step} ms ahead for the retries of ${webhooks}`,
    });
    const moved = await clock.advance(step);
    if (!moved.ok) return { reason: `${clock.operation.operationId} failed: ${moved.reason}` };
    known = { now: moved.now ?? now + step, at: performance.now() };
  }
}
