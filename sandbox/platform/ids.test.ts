import { describe, expect, it } from 'vitest';
import { createIds } from './ids.js';

describe('createIds', () => {
  it('makes 24 lower-case hex digits after the prefix', () => {
    const ids = createIds();
    expect(ids.next()).toMatch(/^[0-9a-f]{24}$/);
    expect(ids.next('ddpy-')).toMatch(/^ddpy-[0-9a-f]{24}$/);
  });

  it('starts with the time in seconds, as the seed ids (ObjectIds) do', () => {
    const ids = createIds(() => 0x5ed75086);
    expect(ids.next()).toMatch(/^5ed75086[0-9a-f]{16}$/);
  });

  it('never repeats, and ids made one after another sort one after another', () => {
    const ids = createIds(() => 1_800_000_000);
    const drawn = Array.from({ length: 5000 }, () => ids.next());
    expect(new Set(drawn).size).toBe(drawn.length);
    const wrapped = drawn.findIndex((id, index) => index > 0 && id < drawn[index - 1]!);
    // The counter starts at a random point and wraps at most once in 5000 draws.
    const inOrder = wrapped < 0 ? drawn : drawn.slice(wrapped);
    expect([...inOrder].sort()).toEqual(inOrder);
  });

  it('gives two generators (two sandbox runs) different ids at the same second', () => {
    const first = createIds(() => 1_800_000_000);
    const second = createIds(() => 1_800_000_000);
    expect(first.next()).not.toBe(second.next());
  });
});
