import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir, testStores } from '../callbacks/testing.js';
import { clockCollections, createClock } from './clock.js';

const stores = testStores(clockCollections);
const open = stores.open;
afterEach(stores.closeAll);

const REAL = Date.parse('2026-11-21T09:30:00.000Z');

describe('the sandbox clock', () => {
  it('is real time until advanced, then real time plus every advance', async () => {
    let real = REAL;
    const clock = await createClock({ store: open(':memory:'), realTime: () => real });
    expect(clock.now().toISOString()).toBe('2026-11-21T09:30:00.000Z');
    real += 1000;
    expect(clock.now().getTime()).toBe(REAL + 1000);
    expect((await clock.advance(86_400_000)).toISOString()).toBe('2026-11-22T09:30:01.000Z');
    expect(clock.offsetMs()).toBe(86_400_000);
  });

  it('adds up concurrent advances and refuses to go back', async () => {
    const clock = await createClock({ store: open(':memory:'), realTime: () => REAL });
    await Promise.all(Array.from({ length: 10 }, () => clock.advance(1000)));
    expect(clock.offsetMs()).toBe(10_000);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    expect(clock.offsetMs()).toBe(10_000);
  });

  it('keeps its offset across a restart', async () => {
    const dir = tempDataDir();
    const first = open(dir);
    await (await createClock({ store: first, realTime: () => REAL })).advance(5000);
    await stores.close(first);
    const again = await createClock({ store: open(dir), realTime: () => REAL });
    expect(again.now().getTime()).toBe(REAL + 5000);
  });

  it('awaits its listeners with the new time, and survives one that throws', async () => {
    const errors: unknown[] = [];
    const clock = await createClock({ store: open(':memory:'), realTime: () => REAL, onListenerError: (error) => void errors.push(error) });
    const seen: string[] = [];
    clock.onAdvance(() => {
      throw new Error('broken listener');
    });
    clock.onAdvance(async (now) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen.push(now.toISOString());
    });
    await clock.advance(60_000);
    expect(seen).toEqual(['2026-11-21T09:31:00.000Z']);
    expect(errors).toHaveLength(1);
  });
});
