import { describe, expect, it } from 'vitest';
import { median } from './median.js';

describe('median', () => {
  it('is the middle value of an odd count, in any order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });

  it('is the mean of the two middle values of an even count', () => {
    expect(median([4, 1, 10, 2])).toBe(3);
  });

  it('leaves its input as it was', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});
