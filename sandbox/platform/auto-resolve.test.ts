import { afterEach, describe, expect, it, vi } from 'vitest';
import { removeTempDirs, tempDataDir, testStores } from '../callbacks/testing.js';
import { JOBS_COLLECTION, jobsCollections, type Scope, type Transaction } from '../store/store.js';
import { clockCollections, createClock } from './clock.js';
import { createAutoResolve, LEGACY_COUNTDOWNS_COLLECTION, legacyCountdownsCollections } from './auto-resolve.js';
import { createScheduler } from './scheduler.js';

const stores = testStores([
  ...clockCollections,
  ...jobsCollections,
  ...legacyCountdownsCollections,
  { name: 'things' },
]);
const SCOPE: Scope = { merchantId: 'm1', mode: 'test' };
afterEach(async () => {
  await stores.closeAll();
  removeTempDirs();
});

/** Auto-resolve on a fresh store whose real time stands still at `now()` (a test moves it). */
async function setUp(options: { delayMs?: number } = {}) {
  const store = stores.open(tempDataDir());
  let realNow = Date.parse('2026-11-24T00:00:00.000Z');
  const realTime = () => realNow;
  const clock = await createClock({ store, realTime });
  const scheduler = createScheduler({ store, clock, leaseMs: 15_000, realTime, sweepIntervalMs: 3_600_000 });
  const autoResolve = createAutoResolve({ store, clock, scheduler, delayMs: options.delayMs ?? 60_000 });
  const finished: string[] = [];
  // The module's handler: finishes a thing once, deciding in its own transaction, which ends the countdown.
  autoResolve.handle('thing', async (scope, id, ran) => {
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
      await autoResolve.schedule(tx, SCOPE, 'thing', id);
    });
  return { store, clock, autoResolve, finished, create, moveRealTime: (ms: number) => (realNow += ms) };
}

describe('automatic autoResolve', () => {
  it('end in the transaction that decides their object: none is left once its object finished', async () => {
    const { store, clock, autoResolve, finished, create } = await setUp();
    await autoResolve.start();
    await create('t1');
    await clock.advance(SCOPE, 60_000);
    expect(finished).toEqual(['t1']);
    expect(await store.list(JOBS_COLLECTION, SCOPE)).toEqual([]);
    await autoResolve.stop();
  });

  it('run each object once however often they are reached (an advance, then the sweep, then the timer)', async () => {
    const { autoResolve, finished, create, clock } = await setUp();
    await autoResolve.start();
    await create('t2');
    await clock.advance(SCOPE, 60_000);
    await autoResolve.runDue();
    await autoResolve.runDue(SCOPE);
    expect(finished).toEqual(['t2']);
    await autoResolve.stop();
  });

  it('run a countdown an earlier version stored in their own collection, once started, and keep it there no more', async () => {
    const { store, autoResolve, finished } = await setUp();
    await store.insert('things', SCOPE, { id: 't3', state: 'PENDING' });
    await store.insert(LEGACY_COUNTDOWNS_COLLECTION, SCOPE, {
      id: 'thing:t3',
      kind: 'thing',
      resource_id: 't3',
      due_at: '2026-11-23T00:00:00.000Z',
      state: 'pending',
    });
    await autoResolve.start();
    await autoResolve.runDue(SCOPE);
    expect(finished).toEqual(['t3']);
    expect(await store.list(LEGACY_COUNTDOWNS_COLLECTION, SCOPE)).toEqual([]);
    expect(await store.list(JOBS_COLLECTION, SCOPE)).toEqual([]);
    await autoResolve.stop();
  });

  it('start the timer of a new countdown without reading every pending countdown', async () => {
    const { store, autoResolve, create } = await setUp({ delayMs: 60_000 });
    await autoResolve.start();
    const across = vi.spyOn(store, 'findAcrossScopes');
    const byField = vi.spyOn(store, 'findBy');
    for (let n = 0; n < 20; n++) await create(`t${n}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(across).not.toHaveBeenCalled();
    expect(byField).not.toHaveBeenCalled();
    await autoResolve.stop();
  });
});
