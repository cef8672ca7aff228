import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir, testStores } from '../callbacks/testing.js';
import type { Caller, Scope } from '../context.js';
import { CLOCK_COLLECTION, clockCollections, ClockRangeError, createClock, LEGACY_SHARED_SCOPE } from './clock.js';

const stores = testStores(clockCollections);
const open = stores.open;
afterEach(stores.closeAll);

const REAL = Date.parse('2026-11-21T09:30:00.000Z');
const A_TEST: Scope = { merchantId: 'merchant-a', mode: 'test' };
const A_LIVE: Scope = { merchantId: 'merchant-a', mode: 'live' };
const B_TEST: Scope = { merchantId: 'merchant-b', mode: 'test' };

describe('the sandbox clock', () => {
  it('is real time until advanced, then real time plus every advance', async () => {
    let real = REAL;
    const clock = await createClock({ store: open(':memory:'), realTime: () => real });
    expect(clock.now(A_TEST).toISOString()).toBe('2026-11-21T09:30:00.000Z');
    real += 1000;
    expect(clock.now(A_TEST).getTime()).toBe(REAL + 1000);
    expect((await clock.advance(A_TEST, 86_400_000)).toISOString()).toBe('2026-11-22T09:30:01.000Z');
    expect(clock.offsetMs(A_TEST)).toBe(86_400_000);
  });

  it('is one per merchant and mode: an advance moves only the time of the scope that asked', async () => {
    const clock = await createClock({ store: open(':memory:'), realTime: () => REAL });
    await clock.advance(A_TEST, 60_000);
    expect([clock.offsetMs(A_TEST), clock.offsetMs(A_LIVE), clock.offsetMs(B_TEST)]).toEqual([60_000, 0, 0]);
    expect(clock.now(B_TEST).getTime()).toBe(REAL);
    await clock.advance(B_TEST, 5000);
    expect([clock.offsetMs(A_TEST), clock.offsetMs(A_LIVE), clock.offsetMs(B_TEST)]).toEqual([60_000, 0, 5000]);
  });

  it('reads a caller (a scope with more fields) as its merchant and mode', async () => {
    const clock = await createClock({ store: open(':memory:'), realTime: () => REAL });
    const caller: Caller = { ...A_TEST, ownerId: 'owner-1' };
    await clock.advance(caller, 1000);
    expect(clock.offsetMs(A_TEST)).toBe(1000);
    const sameScope: Caller = { ...A_TEST, ownerId: 'owner-2' };
    expect(clock.offsetMs(sameScope)).toBe(1000);
  });

  it('adds up concurrent advances and refuses to go back', async () => {
    const clock = await createClock({ store: open(':memory:'), realTime: () => REAL });
    await Promise.all(Array.from({ length: 10 }, () => clock.advance(A_TEST, 1000)));
    expect(clock.offsetMs(A_TEST)).toBe(10_000);
    await expect(clock.advance(A_TEST, -1)).rejects.toThrow(RangeError);
    expect(clock.offsetMs(A_TEST)).toBe(10_000);
  });

  it('refuses an advance past its latest time and stores nothing, concurrent advances included; 0 is always allowed', async () => {
    const latestMs = REAL + 10_000;
    const store = open(':memory:');
    const clock = await createClock({ store, realTime: () => REAL, latestMs });
    await clock.advance(A_TEST, 4000);
    const refused = await clock.advance(A_TEST, 6001).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ClockRangeError);
    expect(refused).toMatchObject({ latestMs, allowedMs: 6000 });
    expect(clock.offsetMs(A_TEST)).toBe(4000);
    expect(await store.get(CLOCK_COLLECTION, A_TEST, 'clock')).toEqual({ id: 'clock', offset_ms: 4000 });
    // Together they would pass it: the ones that fit commit, the others are refused.
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => clock.advance(A_TEST, 2000)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect(clock.now(A_TEST).getTime()).toBe(latestMs);
    expect((await clock.advance(A_TEST, 0)).getTime()).toBe(latestMs);
    // Only this scope reached it.
    expect((await clock.advance(B_TEST, 10_000)).getTime()).toBe(latestMs);
  });

  it('by default stops at the end of year 9999, the last time a four-digit year writes', async () => {
    const clock = await createClock({ store: open(':memory:'), realTime: () => REAL });
    const hundredYears = 3_155_760_000_000;
    let advances = 0;
    while (
      advances < 200 &&
      (await clock.advance(A_TEST, hundredYears).then(
        () => true,
        () => false,
      ))
    )
      advances++;
    expect(advances).toBe(79);
    expect(clock.now(A_TEST).toISOString()).toMatch(/^99\d\d-/);
  });

  it("keeps every scope's offset across a restart", async () => {
    const dir = tempDataDir();
    const first = open(dir);
    const before = await createClock({ store: first, realTime: () => REAL });
    await before.advance(A_TEST, 5000);
    await before.advance(B_TEST, 7000);
    await stores.close(first);
    const again = await createClock({ store: open(dir), realTime: () => REAL });
    expect([again.now(A_TEST).getTime(), again.now(A_LIVE).getTime(), again.now(B_TEST).getTime()]).toEqual([
      REAL + 5000,
      REAL,
      REAL + 7000,
    ]);
  });

  it("puts a scope back at the start once its records are cleared (a reset) and it is forgotten, leaving the others' time", async () => {
    const store = open(':memory:');
    const clock = await createClock({ store, realTime: () => REAL });
    await clock.advance(A_TEST, 5000);
    await clock.advance(B_TEST, 5000);
    await store.transaction((tx) => tx.clearScope(A_TEST));
    clock.forget(A_TEST);
    expect([clock.offsetMs(A_TEST), clock.offsetMs(B_TEST)]).toEqual([0, 5000]);
    await clock.advance(A_TEST, 1000);
    expect(clock.offsetMs(A_TEST)).toBe(1000);
  });

  it('starts every scope at the offset the shared clock of earlier versions had stored, and never moves that one', async () => {
    const dir = tempDataDir();
    const old = open(dir);
    await old.insert(CLOCK_COLLECTION, LEGACY_SHARED_SCOPE, { id: 'clock', offset_ms: 86_400_000 });
    await stores.close(old);

    const store = open(dir);
    const clock = await createClock({ store, realTime: () => REAL });
    // What the shared clock had expired for anyone stays expired for everyone: no scope's time goes back.
    expect([clock.offsetMs(A_TEST), clock.offsetMs(A_LIVE), clock.offsetMs(B_TEST)]).toEqual([
      86_400_000, 86_400_000, 86_400_000,
    ]);
    await clock.advance(A_TEST, 1000);
    expect([clock.offsetMs(A_TEST), clock.offsetMs(B_TEST)]).toEqual([86_401_000, 86_400_000]);
    expect(await store.get(CLOCK_COLLECTION, LEGACY_SHARED_SCOPE, 'clock')).toEqual({
      id: 'clock',
      offset_ms: 86_400_000,
    });

    // A reset scope goes back to that start, not to real time.
    await store.transaction((tx) => tx.clearScope(A_TEST));
    clock.forget(A_TEST);
    expect(clock.offsetMs(A_TEST)).toBe(86_400_000);
  });

  it('awaits its listeners with the scope and its new time, and survives one that throws', async () => {
    const errors: unknown[] = [];
    const clock = await createClock({
      store: open(':memory:'),
      realTime: () => REAL,
      onListenerError: (error) => void errors.push(error),
    });
    const seen: { scope: Scope; now: string }[] = [];
    clock.onAdvance(() => {
      throw new Error('broken listener');
    });
    clock.onAdvance(async (scope, now) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen.push({ scope, now: now.toISOString() });
    });
    const caller: Caller = { ...B_TEST, ownerId: 'owner-b' };
    await clock.advance(caller, 60_000);
    expect(seen).toEqual([{ scope: B_TEST, now: '2026-11-21T09:31:00.000Z' }]);
    expect(errors).toHaveLength(1);
  });
});
