// The one scheduler with two sandboxes over one PostgreSQL database: each due job is run by exactly one of
// them, the job a stopped sandbox held is taken over once its hold lapses, and an advance of a merchant's
// clock runs what another sandbox holds for later. (The embedded stores' single-process case is in
// auto-resolve.test.ts and callbacks/dispatcher.test.ts; the claim itself in the store contract suite.)
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openJournalStore } from '../store/journal/store.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import { openTestStore } from '../store/postgres/testing/test-schemas.js';
import { JOBS_COLLECTION, jobsCollections, type Scope, type Store } from '../store/store.js';
import { clockCollections, createClock, type SandboxClock } from './clock.js';
import { createScheduler, jobId, type Scheduler } from './scheduler.js';

const { server } = useThrowawayPostgres();
const SCOPE: Scope = { merchantId: 'm1', mode: 'test' };
const collections = [...clockCollections, ...jobsCollections];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Instance {
  store: Store;
  clock: SandboxClock;
  scheduler: Scheduler;
  /** Targets this instance ran, in order. */
  ran: string[];
}

async function instance(schema: string, leaseMs: number, sweepIntervalMs = 3_600_000): Promise<Instance> {
  return schedulerOn(await openTestStore(server().url, schema, collections), leaseMs, sweepIntervalMs);
}

/** A scheduler on `store` whose one kind of job records its target and is done; closed after the test. */
async function schedulerOn(store: Store, leaseMs: number, sweepIntervalMs: number): Promise<Instance> {
  const clock = await createClock({ store });
  const scheduler = createScheduler({ store, clock, leaseMs, sweepIntervalMs });
  const ran: string[] = [];
  scheduler.handle('thing', async (job) => {
    ran.push(job.target);
    await store.transaction((tx) => job.done(tx));
  });
  closers.push(
    () => store.close(),
    () => scheduler.stop(),
  );
  return { store, clock, scheduler, ran };
}

const schedule = (on: Instance, target: string, inMs: number) =>
  on.store.transaction((tx) => on.scheduler.schedule(tx, SCOPE, 'thing', target, on.clock.now(SCOPE).getTime() + inMs));

describe('one scheduler, two sandboxes on one PostgreSQL database', () => {
  it('runs each of 200 due jobs exactly once when both sweep at once', async () => {
    const [a, b] = [await instance('scheduler-race', 60_000), await instance('scheduler-race', 60_000)];
    // Written by a third party (stopped): free for either once its hold lapsed; here, held by nobody yet.
    const writer = await instance('scheduler-race', 0);
    for (let n = 0; n < 200; n++) await schedule(writer, `t${n}`, 0);
    await Promise.all([a.scheduler.start(), b.scheduler.start()]);
    for (let look = 0; look < 20 && a.ran.length + b.ran.length < 200; look++)
      await Promise.all([a.scheduler.runDue(), b.scheduler.runDue()]);
    const all = [...a.ran, ...b.ran];
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
  }, 60_000);

  it('leaves a job to the sandbox holding it, and takes it over once that one stopped and its hold lapsed', async () => {
    const leaseMs = 400;
    const holding = await instance('scheduler-takeover', leaseMs);
    const other = await instance('scheduler-takeover', leaseMs, 50);
    // Held by `holding`, which never starts (as if it died right after the commit).
    await schedule(holding, 'orphan', 0);
    const started = Date.now();
    await other.scheduler.start();
    await other.scheduler.runDue();
    expect(other.ran).toEqual([]);
    while (other.ran.length === 0 && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 20));
    expect(other.ran).toEqual(['orphan']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(leaseMs - 50);
    expect(holding.ran).toEqual([]);
  }, 30_000);

  it("runs on an advance of the merchant's clock what another sandbox holds for later, which then does not run it again", async () => {
    const [holding, advancing] = [
      await instance('scheduler-advance', 60_000),
      await instance('scheduler-advance', 60_000),
    ];
    await Promise.all([holding.scheduler.start(), advancing.scheduler.start()]);
    await schedule(holding, 'later', 3_600_000);
    await advancing.clock.advance(SCOPE, 3_600_000);
    expect(advancing.ran).toEqual(['later']);
    await holding.clock.reload();
    await holding.scheduler.runDue(SCOPE);
    await holding.scheduler.runDue();
    expect(holding.ran).toEqual([]);
  }, 30_000);
});

describe('one scheduler, one sandbox', () => {
  it("runs a job once when two of its claims take it and the second answers after the first one's run ended", async () => {
    const journal = openJournalStore({ dataDir: ':memory:', collections });
    let claims = 0;
    let firstRunEnded: Promise<void> | undefined;
    // The second claim answers only once the job it took is done: a claim statement slower than the run.
    const store: Store = Object.assign(Object.create(journal) as Store, {
      claim: async (request: Parameters<Store['claim']>[0]) => {
        const claimed = await journal.claim(request);
        if (++claims === 2) await firstRunEnded;
        return claimed;
      },
    });
    const only = await schedulerOn(store, 60_000, 3_600_000);
    await store.transaction((tx) => only.scheduler.schedule(tx, SCOPE, 'thing', 'once', 0));
    firstRunEnded = (async () => {
      while (only.ran.length === 0 || (await journal.get(JOBS_COLLECTION, SCOPE, jobId('thing', 'once'))))
        await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 20));
    })();
    // The start's sweep and this one claim at once.
    await Promise.all([only.scheduler.start(), only.scheduler.runDue()]);
    await firstRunEnded;
    await only.scheduler.runDue();
    expect(only.ran).toEqual(['once']);
  });

  it('writes no job its owner finds again at start when it is due at once, and runs it once its transaction is committed', async () => {
    const store = openJournalStore({ dataDir: ':memory:', collections: [...collections, { name: 'things' }] });
    const clock = await createClock({ store });
    const scheduler = createScheduler({ store, clock, leaseMs: 60_000, sweepIntervalMs: 3_600_000 });
    closers.push(
      () => store.close(),
      () => scheduler.stop(),
    );
    // The owner's own record says what is to do; the handler acts on it once it is committed.
    const looks: string[] = [];
    scheduler.handle('thing', async (job) => {
      const thing = await store.get('things', job.scope, job.target);
      looks.push(thing ? `${job.target} found` : `${job.target} not yet`);
      if (thing) await store.transaction((tx) => job.done(tx));
    });
    await scheduler.start();
    const scheduled = (target: string, then: () => Promise<void>) =>
      store.transaction(async (tx) => {
        await tx.insert('things', SCOPE, { id: target });
        const now = clock.now(SCOPE).getTime();
        await scheduler.schedule(tx, SCOPE, 'thing', target, now, { recoveredAtStart: true });
        expect(await tx.get(JOBS_COLLECTION, SCOPE, jobId('thing', target))).toBeUndefined();
        // Still under way when the job first runs: it finds nothing committed yet.
        await new Promise((resolve) => setTimeout(resolve, 30));
        await then();
      });
    await scheduled('kept', async () => undefined);
    await expect(
      scheduled('undone', async () => {
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    for (let waited = 0; looks.length < 4 && waited < 2000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Each looked before its commit and once after it: the kept one then ran, the undone one found nothing.
    expect(looks.filter((look) => look.startsWith('kept'))).toEqual(['kept not yet', 'kept found']);
    expect(looks.filter((look) => look.startsWith('undone'))).toEqual(['undone not yet', 'undone not yet']);
    expect(await store.list(JOBS_COLLECTION, SCOPE)).toEqual([]);
  });

  it('keeps one timer for every job it holds (the soonest), not one per job, and runs each on time', async () => {
    const { store, clock, scheduler, ran } = await schedulerOn(
      openJournalStore({ dataDir: ':memory:', collections }),
      60_000,
      3_600_000,
    );
    await scheduler.start();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const now = clock.now(SCOPE).getTime();
    // The soonest first: each later one leaves the timer as it is. Due a second away, so that none falls due
    // (and re-arms the timer) while a loaded machine is still scheduling them.
    for (let n = 0; n < 50; n++)
      await store.transaction((tx) => scheduler.schedule(tx, SCOPE, 'thing', `t${n}`, now + 1_000 + n));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(timers.mock.calls.length).toBeLessThanOrEqual(3);
    timers.mockRestore();
    for (let waited = 0; ran.length < 50 && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toHaveLength(50);
  });
});
