// The spacing of one callback's attempts, judged in the target's own time while the suite moves that clock.
// A move only ever makes an attempt later, never sooner: an attempt that was due inside the time a move
// skipped is made at the move's end. So a gap shorter than the contract allows is a failure whatever moved
// the clock; an attempt made at the end of one of the suite's own moves was due somewhere in the time that
// move skipped, which bounds its spacing from below by where the move started. A gap is judged on those
// bounds: within the tolerance at both ends passes, beyond it at the near end fails, and a gap the bounds
// leave undecided is reported as not judged, never as passed nor failed. When the target's clock moved more
// than the suite moved it (a move the suite did not make), only a gap too short is judged.
import type { RetryExpectation } from './retry.js';
import type { ClockMove } from './sandbox.js';

/** Moves of the target's clock the suite did not make, found by comparing its time with real time. */
export interface UnexplainedMove {
  ms: number;
  /** How far off the comparison may be (the round trips of the two readings). */
  uncertaintyMs: number;
}

export interface SpacingVerdict {
  /** What departs from x-delivery. */
  problems: string[];
  /** Gaps the data cannot decide, with why. */
  unjudged: string[];
}

const round = Math.round;

/** The suite's move during which the target made an attempt at `at`: the attempt was due in the time it skipped. */
function moveEndingAt(at: number, moves: readonly ClockMove[]): (ClockMove & { now: number }) | undefined {
  return moves.find(
    (move): move is ClockMove & { now: number } => move.now !== undefined && move.now - move.ms < at && at <= move.now,
  );
}

/**
 * Judges the gaps between the attempt times (ms, the target's time) against the expectation, given the
 * moves of the target's clock the suite made (from the move answers' target times) and any it did not make.
 */
export function judgeSpacing(
  times: readonly number[],
  expected: RetryExpectation,
  moves: readonly ClockMove[],
  unexplained?: UnexplainedMove,
): SpacingVerdict {
  const sorted = [...times].sort((a, b) => a - b);
  const verdict: SpacingVerdict = { problems: [], unjudged: [] };
  if (sorted.length !== expected.attempts)
    verdict.problems.push(
      `${sorted.length} attempt(s) while every attempt failed; x-delivery.attempts is ${expected.attempts}`,
    );
  const lowest = expected.intervalMs - expected.earlyToleranceMs;
  const highest = expected.intervalMs + expected.lateToleranceMs;
  const wanted = `expected ${expected.intervalMs} ms (x-delivery.retry_interval_seconds), between ${round(lowest)} and ${round(highest)} ms`;
  for (let index = 1; index < sorted.length; index++) {
    const [before, at] = [sorted[index - 1] as number, sorted[index] as number];
    const gap = at - before;
    const what = `attempt ${index + 1} came ${round(gap)} ms after attempt ${index}`;
    if (gap < lowest) {
      verdict.problems.push(`${what}; ${wanted}`);
      continue;
    }
    if (unexplained) {
      verdict.unjudged.push(
        `${what}, but the target's clock moved ${round(unexplained.ms)} ms (± ${round(unexplained.uncertaintyMs)}) more than the suite moved it while its attempts were timed, so only a gap too short can be told; ${wanted}`,
      );
      continue;
    }
    const move = moveEndingAt(at, moves);
    // Due somewhere between the move's start and the attempt: the earliest it can have been due.
    const least = move ? Math.max(move.now - move.ms - before, 0) : gap;
    if (least > highest) verdict.problems.push(`${what}; ${wanted}`);
    else if (least < lowest || gap > highest) {
      verdict.unjudged.push(
        `${what}, at the end of a ${move?.ms ?? 0} ms move of the target's clock the suite made, so it was due between ${round(least)} and ${round(gap)} ms after it; ${wanted}`,
      );
    }
  }
  return verdict;
}
