import { describe, expect, it } from 'vitest';
import { coalesced } from './fresh-reads.js';

/** A load that counts its runs and finishes when told to. */
function controlledLoad() {
  const finishers: (() => void)[] = [];
  let runs = 0;
  return {
    load: () => {
      runs++;
      return new Promise<void>((resolve) => finishers.push(resolve));
    },
    finishNext: async () => {
      finishers.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    },
    runs: () => runs,
  };
}

describe('coalesced reads', () => {
  it('makes a caller wait for a load that began after it asked, and lets callers meanwhile share one', async () => {
    const { load, finishNext, runs } = controlledLoad();
    const fresh = coalesced(load);
    const first = fresh();
    let laterDone = 0;
    // Asked while the first load runs: it may have read before their change, so they need the next one.
    const later = [fresh(), fresh(), fresh()].map((p) => p.then(() => laterDone++));
    expect(runs()).toBe(1);
    await finishNext();
    await first;
    expect(laterDone).toBe(0);
    expect(runs()).toBe(2);
    await finishNext();
    await Promise.all(later);
    expect(laterDone).toBe(3);
    expect(runs()).toBe(2);
  });

  it('passes a failed load on to its callers and loads again for the next', async () => {
    let fail = true;
    const fresh = coalesced(async () => {
      if (fail) throw new Error('database away');
    });
    await expect(fresh()).rejects.toThrow('database away');
    fail = false;
    await expect(fresh()).resolves.toBeUndefined();
  });
});
