import { describe, expect, it } from 'vitest';
import { clockSteps } from './clock.js';
import { readRecords } from './sandbox.js';

const expectation = (attempts: number, intervalMs: number) => ({ attempts, intervalMs, earlyToleranceMs: 0, lateToleranceMs: 0 });

describe('clockSteps', () => {
  it.each([
    ['nothing to time', [], []],
    ['three attempts: two moves bring the retries, a third proves none follows', [expectation(3, 30_000)], [30_000, 30_000, 30_000]],
    ['policies of their own: steps of the shortest interval up to the longest policy', [expectation(3, 30_000), expectation(2, 60_000)], [30_000, 30_000, 30_000, 30_000]],
  ] as [string, ReturnType<typeof expectation>[], number[]][])('%s', (_name, expectations, want) => {
    expect(clockSteps(expectations)).toEqual(want);
  });
});

describe('readRecords', () => {
  const fields = { payload: 'payload', attempts: 'attempts', attemptTime: 'at' };
  it('reads the body and the start of each attempt, in the target time', () => {
    const answer = [{ payload: { id: 'a' }, attempts: [{ at: '2026-11-21T09:30:00.000Z' }, { at: '2026-11-21T09:30:30.000Z' }] }];
    expect(readRecords(answer, fields)).toEqual({ records: [{ payload: { id: 'a' }, attemptTimes: [Date.parse('2026-11-21T09:30:00.000Z'), Date.parse('2026-11-21T09:30:30.000Z')] }] });
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
