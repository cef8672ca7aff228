import { afterEach, describe, expect, it, vi } from 'vitest';
import { removeTempDirs, tempDataDir, testStores } from '../callbacks/testing.js';
import type { Scope, Transaction } from '../store/store.js';
import { clockCollections, createClock } from './clock.js';
import {
  createProgressions,
  PROGRESSIONS_COLLECTION,
  progressionsCollections,
  SHARED_SWEEP_GRACE_MS,
} from './progressions.js';

const stores = testStores([...clockCollections, ...progressionsCollections, { name: 'things' }]);
const SCOPE: Scope = { merchantId: 'm1', mode: 'test' };
afterEach(async () => {
  await stores.closeAll();
  removeTempDirs();
});

/** Progressions on a fresh store whose real time stands still at `now()` (a test moves it). */
async function setUp(options: { shared?: boolean; delayMs?: number } = {}) {
  const store = stores.open(tempDataDir());
  let realNow = Date.parse('2026-11-24T00:00:00.000Z');
  const clock = await createClock({ store, realTime: () => realNow });
  const progressions = createProgressions({
    store,
    clock,
    delayMs: options.delayMs ?? 60_000,
    shared: options.shared ?? false,
    sweepIntervalMs: 3_600_000,
  });
  const finished: string[] = [];
  // The module's handler: finishes a thing once, deciding in its own transaction, which ends the progression.
  progressions.handle('thing', async (scope, id, ran) => {
    await store.transaction(async (tx: Transaction) => {
      await ran(tx);
      const thing = await tx.get<{ id: string; state: string }>('things', scope, id);
      if (thing?.state !== 'PENDING') return;
      await tx.update('things', scope, { ...thing, state: 'DONE' });
      finished.push(id);
    });
  });
  const create = (id: string) =>
    store.transaction(async (tx) => {
      await tx.insert('things', SCOPE, { id, state: 'PENDING' });
      await progressions.schedule(tx, SCOPE, 'thing', id);
    });
  return { store, clock, progressions, finished, create, moveRealTime: (ms: number) => (realNow += ms) };
}

describe('automatic progressions', () => {
  it('end in the transaction that decides their object: none is left once its object finished', async () => {
    const { store, clock, progressions, finished, create } = await setUp();
    await progressions.start();
    await create('t1');
    await clock.advance(SCOPE, 60_000);
    expect(finished).toEqual(['t1']);
    expect(await store.list(PROGRESSIONS_COLLECTION, SCOPE)).toEqual([]);
    await progressions.stop();
  });

  it('run each object once however often they are reached (an advance, then the sweep, then the timer)', async () => {
    const { progressions, finished, create, clock } = await setUp();
    await progressions.start();
    await create('t2');
    await clock.advance(SCOPE, 60_000);
    await progressions.runDue();
    await progressions.runDue(SCOPE);
    expect(finished).toEqual(['t2']);
    await progressions.stop();
  });

  it('with a store other sandboxes share, leave to its own sandbox a progression due less than the grace ago, and take it up once overdue', async () => {
    // Another sandbox started this countdown: its record is in the store, and this sandbox has no timer for it.
    const other = await setUp({ shared: true, delayMs: 0 });
    await other.create('t3');
    const { progressions, finished, moveRealTime } = { ...other };
    await progressions.start();
    // Due now, not yet overdue: this sandbox's sweep leaves it.
    await progressions.runDue();
    // (The timer of the sandbox that created it would have run it by now; `create` above ran in this process
    // with the sandbox stopped, so nothing did.)
    expect(finished).toEqual([]);
    moveRealTime(SHARED_SWEEP_GRACE_MS);
    await progressions.runDue();
    expect(finished).toEqual(['t3']);
    await progressions.stop();
  });

  it('with a store other sandboxes share, set no timer of its own for a countdown another sandbox started (it would run twice)', async () => {
    const other = await setUp({ shared: true, delayMs: 30 });
    // Created while this sandbox was stopped: as another sandbox's, which has the timer.
    await other.create('t4');
    // The creating side sets its timer just after the transaction; stopped, it sets none.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const { progressions, finished } = other;
    await progressions.start();
    // The sweep finds it pending and not yet due.
    await progressions.runDue();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(finished).toEqual([]);
    await progressions.stop();
  });

  it('start the timer of a new countdown without reading every pending progression', async () => {
    const { store, progressions, create } = await setUp({ delayMs: 60_000 });
    await progressions.start();
    const across = vi.spyOn(store, 'findAcrossScopes');
    const byField = vi.spyOn(store, 'findBy');
    for (let n = 0; n < 20; n++) await create(`t${n}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(across).not.toHaveBeenCalled();
    expect(byField).not.toHaveBeenCalled();
    await progressions.stop();
  });
});
