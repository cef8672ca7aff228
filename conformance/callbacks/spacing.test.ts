import { describe, expect, it } from 'vitest';
import type { ClockMove } from './sandbox.js';
import { judgeSpacing } from './spacing.js';

const expected = { attempts: 3, intervalMs: 1000, earlyToleranceMs: 250, lateToleranceMs: 500 };
const window = 'expected 1000 ms (x-delivery.retry_interval_seconds), between 750 and 1500 ms';

describe('judgeSpacing without moves of the clock', () => {
  it.each([
    ['on time', [0, 1000, 2000], []],
    ['within tolerance, any order', [2400, 0, 900], []],
    ['too few attempts', [0, 1000], ['2 attempt(s) while every attempt failed; x-delivery.attempts is 3']],
    ['too many attempts', [0, 1000, 2000, 3000], ['4 attempt(s) while every attempt failed; x-delivery.attempts is 3']],
    ['too fast', [0, 700, 1700], [`attempt 2 came 700 ms after attempt 1; ${window}`]],
    ['too slow', [0, 1000, 2600], [`attempt 3 came 1600 ms after attempt 2; ${window}`]],
  ])('%s', (_name, times, want) => {
    expect(judgeSpacing(times, expected, [])).toEqual({ problems: want, unjudged: [] });
  });
});

describe('judgeSpacing net of the moves the suite made', () => {
  // Target times: attempt 1 at 10 000; a move answers the target's time after it (`now`).
  const move = (ms: number, now: number): ClockMove => ({ ms, now });

  it('does not fail a gap another case stretched by moving the clock inside it (a 3 s automatic outcome)', () => {
    // Attempt 2 was due at 11 000; another case's 3 s move from 10 025 skipped it, so it came at 13 025.
    const verdict = judgeSpacing([10_000, 13_025, 14_025], expected, [move(3_000, 13_025)]);
    expect(verdict.problems).toEqual([]);
    expect(verdict.unjudged).toEqual([
      `attempt 2 came 3025 ms after attempt 1, at the end of a 3000 ms move of the target's clock the suite made, so it was due between 25 and 3025 ms after it; ${window}`,
    ]);
  });

  it('passes an attempt brought by a move that started inside the tolerance, landing on the interval', () => {
    // The suite moved to attempt 1 + 750 (the earliest allowed), then to attempt 1 + 1000.
    const moves = [move(700, 10_750), move(250, 11_000), move(750, 11_750), move(250, 12_000)];
    expect(judgeSpacing([10_000, 11_000, 12_000], expected, moves)).toEqual({ problems: [], unjudged: [] });
  });

  it('fails a gap too short whatever moved the clock: a move only ever makes an attempt later', () => {
    const verdict = judgeSpacing([10_000, 10_600, 11_600], expected, [move(600, 10_600)], {
      ms: 5_000,
      uncertaintyMs: 10,
    });
    expect(verdict.problems).toEqual([`attempt 2 came 600 ms after attempt 1; ${window}`]);
  });

  it('fails an attempt not made though the clock passed the latest allowed time before the move that brought it', () => {
    // The move started at 11 600, past attempt 1 + 1500.
    expect(judgeSpacing([10_000, 12_000, 13_000], expected, [move(400, 12_000)]).problems).toEqual([
      `attempt 2 came 2000 ms after attempt 1; ${window}`,
    ]);
  });

  it('passes an attempt made in the clock’s own time after a move elsewhere in the gap: the target keeps its own time', () => {
    expect(judgeSpacing([10_000, 11_000, 12_000], expected, [move(300, 10_400)])).toEqual({
      problems: [],
      unjudged: [],
    });
  });

  it('judges only a gap too short when the target’s clock moved more than the suite moved it', () => {
    const verdict = judgeSpacing([10_000, 11_000, 11_500], expected, [], { ms: 3_000, uncertaintyMs: 12 });
    expect(verdict.problems).toEqual([`attempt 3 came 500 ms after attempt 2; ${window}`]);
    expect(verdict.unjudged).toEqual([
      `attempt 2 came 1000 ms after attempt 1, but the target's clock moved 3000 ms (± 12) more than the suite moved it while its attempts were timed, so only a gap too short can be told; ${window}`,
    ]);
  });
});
