import { describe, expect, it } from 'vitest';
import { redateExample, shiftValue, timeOfValue } from './example-time.js';
import type { TimeBoundField } from './types.js';

const DAY = 24 * 60 * 60 * 1000;
const fields: TimeBoundField[] = [
  { field: 'expiration_date', pastRefused: true },
  { field: 'properties.card_expiry', pastRefused: false },
];

describe('timeOfValue', () => {
  it.each([
    ['an ISO 8601 time in UTC', '2026-11-24T23:59:00.000Z', Date.UTC(2026, 10, 24, 23, 59)],
    ['an ISO 8601 time with an offset', '2026-11-25T06:59:00+07:00', Date.UTC(2026, 10, 24, 23, 59)],
    ['a card expiry MM/YY, as the last moment of that month', '06/29', Date.UTC(2029, 6, 1) - 1],
    ['a calendar date, which no time rule compares', '2026-11-24', undefined],
    ['other text', 'soon', undefined],
  ])('reads %s', (_name, value, want) => {
    expect(timeOfValue(value)).toBe(want);
  });
});

describe('shiftValue', () => {
  it.each([
    ['keeps milliseconds where the value had them', '2026-11-24T23:59:00.000Z', DAY, '2026-11-25T23:59:00.000Z'],
    ['writes none where it had none', '2026-11-24T23:59:00Z', DAY, '2026-11-25T23:59:00Z'],
    ['writes UTC for a value with an offset', '2026-11-25T06:59:00+07:00', DAY, '2026-11-25T23:59:00Z'],
    ['moves a card expiry by whole months as the time passes', '06/29', 400 * DAY, '08/30'],
    ['moves backwards too', '06/29', -31 * DAY, '05/29'],
  ])('%s', (_name, value, shift, want) => {
    expect(shiftValue(value, shift)).toBe(want);
  });
});

describe('redateExample', () => {
  const example = {
    external_id: 'order-2026-11-004512',
    expiration_date: '2026-11-24T23:59:00.000Z',
    properties: { card_expiry: '06/29' },
  };

  it('moves each time-bound value the example holds, keeps every other value, and says what it moved', () => {
    const { value, redated } = redateExample(example, fields, 400 * DAY);
    expect(value).toEqual({
      external_id: 'order-2026-11-004512',
      expiration_date: '2027-12-29T23:59:00.000Z',
      properties: { card_expiry: '08/30' },
    });
    expect(redated).toEqual([
      { field: 'expiration_date', from: '2026-11-24T23:59:00.000Z', to: '2027-12-29T23:59:00.000Z' },
      { field: 'properties.card_expiry', from: '06/29', to: '08/30' },
    ]);
    expect(example.expiration_date).toBe('2026-11-24T23:59:00.000Z');
  });

  it('moves nothing when no time has passed, and skips fields the example does not hold or that hold no time', () => {
    expect(redateExample(example, fields, 0)).toEqual({ value: example, redated: [] });
    expect(redateExample({ name: 'x' }, fields, DAY)).toEqual({ value: { name: 'x' }, redated: [] });
    expect(redateExample({ expiration_date: 12 }, fields, DAY).redated).toEqual([]);
  });
});
