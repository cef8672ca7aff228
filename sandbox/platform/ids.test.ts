import { describe, expect, it } from 'vitest';
import { createIds } from './ids.js';

describe('createIds', () => {
  it('makes 24 lower-case hex digits after the prefix', () => {
    const ids = createIds();
    expect(ids.next()).toMatch(/^[0-9a-f]{24}$/);
    expect(ids.next('ddpy-')).toMatch(/^ddpy-[0-9a-f]{24}$/);
  });

  it('never repeats, across many refills of its random pool', () => {
    const ids = createIds();
    const drawn = Array.from({ length: 5000 }, () => ids.next());
    expect(new Set(drawn).size).toBe(drawn.length);
  });

  it('gives two generators (two sandbox runs) different ids', () => {
    const first = createIds();
    const second = createIds();
    expect(first.next()).not.toBe(second.next());
  });
});
