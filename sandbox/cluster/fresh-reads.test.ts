import { describe, expect, it } from 'vitest';
import { coalesced, createSharedStateReads } from './fresh-reads.js';

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

describe('coalesced reads with a maximum age', () => {
  it('lets a caller use a read that began less than the age ago, and makes it wait for a new one after', async () => {
    const { load, finishNext, runs } = controlledLoad();
    let time = 1_000;
    const fresh = coalesced(load, 25, () => time);
    const first = fresh();
    await finishNext();
    await first;
    time += 24;
    await fresh();
    expect(runs()).toBe(1);
    time += 1;
    let done = false;
    const later = fresh().then(() => (done = true));
    expect(runs()).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    await finishNext();
    await later;
    expect(done).toBe(true);
  });

  it('shares a read under way that began less than the age ago, and not one that began earlier', async () => {
    const { load, finishNext, runs } = controlledLoad();
    let time = 0;
    const fresh = coalesced(load, 25, () => time);
    const first = fresh();
    time = 10;
    const sharing = fresh();
    expect(runs()).toBe(1);
    time = 30;
    const waiting = fresh();
    await finishNext();
    await Promise.all([first, sharing]);
    expect(runs()).toBe(2);
    await finishNext();
    await waiting;
  });

  it('counts a failed read as no read', async () => {
    let fail = true;
    let runs = 0;
    const fresh = coalesced(
      async () => {
        runs++;
        if (fail) throw new Error('database away');
      },
      25,
      () => 0,
    );
    await expect(fresh()).rejects.toThrow('database away');
    fail = false;
    await fresh();
    await fresh();
    expect(runs).toBe(2);
  });
});

describe('publishing a change of the shared state', () => {
  it('holds the answer of a request that changed it until every copy is younger than the change', async () => {
    const reads = createSharedStateReads(async () => undefined, 25);
    const since = reads.now();
    reads.changed();
    const changedAt = reads.now();
    await reads.published(since);
    expect(reads.now() - changedAt).toBeGreaterThanOrEqual(25);
  });

  it('answers at once a request during which nothing changed', async () => {
    const reads = createSharedStateReads(async () => undefined, 25);
    reads.changed();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = reads.now();
    const started = performance.now();
    await reads.published(since);
    expect(performance.now() - started).toBeLessThan(20);
  });
});
