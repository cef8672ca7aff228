import { describe, expect, it } from 'vitest';
import { landings, nextLanding, unexplainedMove } from './clock.js';
import { readRecords, type ClockMove, type ControlClock } from './sandbox.js';

const expected = { attempts: 3, intervalMs: 30_000, earlyToleranceMs: 7_500, lateToleranceMs: 15_000 };

describe('landings', () => {
  it('lands on the earliest allowed time, the interval, and either side of the latest', () => {
    expect(landings(1_000, expected)).toEqual([23_500, 31_000, 42_250, 49_750]);
  });
});

describe('nextLanding', () => {
  it.each([
    [
      'the nearest landing ahead across callbacks',
      20_000,
      [
        { times: [0], expected },
        { times: [5_000], expected },
      ],
      22_500,
    ],
    ['none behind the clock: real time already passed it', 23_000, [{ times: [0], expected }], 30_000],
    ['from the latest attempt', 31_000, [{ times: [0, 30_000], expected }], 52_500],
    [
      'the last attempt followed to past the latest time one more could come',
      60_000,
      [{ times: [0, 30_000, 60_000], expected }],
      82_500,
    ],
    ['nothing for a callback with an attempt too many', 0, [{ times: [0, 1, 2, 3], expected }], undefined],
    ['nothing once the clock is past every landing', 200_000, [{ times: [0, 30_000, 60_000], expected }], undefined],
  ] as [string, number, { times: number[]; expected: typeof expected }[], number | undefined][])(
    '%s',
    (_name, now, attempts, want) => {
      expect(nextLanding(now, attempts)).toBe(want);
    },
  );
});

describe('unexplainedMove', () => {
  const clockWith = (moves: ClockMove[]): ControlClock => ({
    operation: {} as ControlClock['operation'],
    advance: async () => ({ ok: true }),
    now: async () => ({ ms: 0 }),
    moves: () => moves,
  });
  const reading = (offsetMs: number, moves: number) => ({ offsetMs, uncertaintyMs: 5, moves });

  it('is nothing when the clock moved by the suite’s own moves, within the readings’ uncertainty', () => {
    expect(
      unexplainedMove(reading(0, 0), reading(3_008, 2), clockWith([{ ms: 1_000 }, { ms: 2_000 }])),
    ).toBeUndefined();
  });

  it('is what the clock moved beyond the suite’s moves since the first reading', () => {
    expect(unexplainedMove(reading(500, 1), reading(6_500, 2), clockWith([{ ms: 500 }, { ms: 2_000 }]))).toEqual({
      ms: 4_000,
      uncertaintyMs: 10,
    });
  });
});

describe('readRecords', () => {
  const fields = { payload: 'payload', attempts: 'attempts', attemptTime: 'at' };
  it('reads the body and the start of each attempt, in the target time', () => {
    const answer = [
      { payload: { id: 'a' }, attempts: [{ at: '2026-11-21T09:30:00.000Z' }, { at: '2026-11-21T09:30:30.000Z' }] },
    ];
    expect(readRecords(answer, fields)).toEqual({
      records: [
        {
          payload: { id: 'a' },
          attemptTimes: [Date.parse('2026-11-21T09:30:00.000Z'), Date.parse('2026-11-21T09:30:30.000Z')],
        },
      ],
    });
  });

  it.each([
    ['an answer that is no list', { deliveries: [] }, /not a list/],
    ['a record without attempts', [{ payload: {} }], /no attempts list/],
    ['an attempt without a time', [{ payload: {}, attempts: [{ at: 'soon' }] }], /no date-time at/],
  ])('says why it cannot read %s', (_name, answer, pattern) => {
    const read = readRecords(answer, fields);
    expect('reason' in read ? read.reason : '').toMatch(pattern);
  });
});
