import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir, testStores } from '../callbacks/testing.js';
import type { Clock } from '../context.js';
import type { Scope, Store } from '../store/store.js';
import { createFaults, faultsCollections, type SandboxFaults } from './faults.js';
import { createIds } from './ids.js';

const stores = testStores(faultsCollections);
afterEach(() => stores.closeAll());

const A: Scope = { merchantId: 'merchant-a', mode: 'test' };
const B: Scope = { merchantId: 'merchant-b', mode: 'test' };
const NOW = new Date('2026-11-21T09:30:00.000Z');
const clock: Clock = { now: () => NOW, advance: async () => NOW, onAdvance: () => undefined };
const open = (store: Store = stores.open()): Promise<SandboxFaults> => createFaults({ store, clock, ids: createIds() });

describe('armed faults', () => {
  it("arm with the control contract's defaults, settings of other kinds null, in the order they apply", async () => {
    const faults = await open();
    const limited = await faults.arm(A, { kind: 'rate_limited' });
    const failing = await faults.arm(A, { kind: 'server_error', operation: 'createDisbursement', count: 2 });
    expect(limited).toEqual({
      kind: 'armed',
      fault: {
        id: expect.any(String),
        kind: 'rate_limited',
        operation: null,
        count: 1,
        remaining: 1,
        retry_after_seconds: 1,
        limit: 100,
        outcome: null,
        delay_ms: null,
        created: NOW.toISOString(),
      },
    });
    expect(failing).toMatchObject({
      fault: {
        kind: 'server_error',
        operation: 'createDisbursement',
        count: 2,
        remaining: 2,
        retry_after_seconds: null,
        limit: null,
        outcome: 'not_applied',
        delay_ms: null,
      },
    });
    expect((await faults.list(A)).map((fault) => fault.kind)).toEqual(['rate_limited', 'server_error']);
    expect(await faults.list(B)).toEqual([]);
  });

  it('are taken one request at a time, the first that applies to the operation, and gone once used up', async () => {
    const faults = await open();
    await faults.arm(A, { kind: 'unavailable', operation: 'getBalance', count: 2 });
    await faults.arm(A, { kind: 'delay', delay_ms: 50 });
    expect(await faults.take(A, 'createDisbursement')).toMatchObject({ kind: 'delay', remaining: 1 });
    expect(await faults.take(A, 'getBalance')).toMatchObject({ kind: 'unavailable', remaining: 2 });
    expect((await faults.list(A)).map((fault) => [fault.kind, fault.remaining])).toEqual([['unavailable', 1]]);
    expect(await faults.take(A, 'createDisbursement')).toBeUndefined();
    expect(await faults.take(A, 'getBalance')).toMatchObject({ kind: 'unavailable', remaining: 1 });
    expect(await faults.list(A)).toEqual([]);
    expect(await faults.take(A, 'getBalance')).toBeUndefined();
  });

  it('count down exactly once per request when many take at the same time', async () => {
    const faults = await open(stores.open(tempDataDir()));
    await faults.arm(A, { kind: 'rate_limited', count: 7 });
    const taken = await Promise.all(Array.from({ length: 60 }, () => faults.take(A, 'getBalance')));
    expect(
      taken
        .filter((fault) => fault !== undefined)
        .map((fault) => fault?.remaining)
        .sort((x, y) => (x ?? 0) - (y ?? 0)),
    ).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await faults.list(A)).toEqual([]);
  });

  it('are refused beyond 20 per merchant and mode', async () => {
    const faults = await open();
    for (let n = 0; n < 20; n++) expect((await faults.arm(A, { kind: 'unavailable' })).kind).toBe('armed');
    expect(await faults.arm(A, { kind: 'unavailable' })).toEqual({ kind: 'full', max: 20 });
    expect((await faults.arm(B, { kind: 'unavailable' })).kind).toBe('armed');
  });

  it('are removed one by one or all at once, with what was left of them', async () => {
    const faults = await open();
    const first = await faults.arm(A, { kind: 'unavailable', count: 3 });
    await faults.arm(A, { kind: 'delay', delay_ms: 5 });
    if (first.kind !== 'armed') throw new Error('not armed');
    await faults.take(A, 'getBalance');
    expect(await faults.remove(A, first.fault.id)).toMatchObject({ id: first.fault.id, remaining: 2 });
    expect(await faults.remove(A, first.fault.id)).toBeUndefined();
    expect(await faults.remove(B, 'nothing')).toBeUndefined();
    expect((await faults.clear(A)).map((fault) => fault.kind)).toEqual(['delay']);
    expect(await faults.list(A)).toEqual([]);
  });

  it('outlive a restart: they are records of the store', async () => {
    const dataDir = tempDataDir();
    const store = stores.open(dataDir);
    await (await open(store)).arm(A, { kind: 'unavailable', count: 4 });
    await stores.close(store);
    const reopened = await open(stores.open(dataDir));
    expect(reopened.mayHaveFaults(A)).toBe(true);
    expect(await reopened.list(A)).toMatchObject([{ kind: 'unavailable', remaining: 4 }]);
  });
});

describe('which scopes may have faults (asked by every request)', () => {
  it("follows this process's own arming, taking, removing and forgetting", async () => {
    const faults = await open();
    expect([faults.anyArmed(), faults.mayHaveFaults(A)]).toEqual([false, false]);
    const armed = await faults.arm(A, { kind: 'unavailable' });
    expect([
      faults.anyArmed(),
      faults.mayHaveFaults(A),
      faults.mayHaveFaults(B),
      faults.mayHaveFaults({ ...A, mode: 'live' }),
    ]).toEqual([true, true, false, false]);
    await faults.take(A, 'getBalance');
    expect([faults.anyArmed(), faults.mayHaveFaults(A)]).toEqual([false, false]);
    const again = await faults.arm(A, { kind: 'unavailable' });
    if (armed.kind !== 'armed' || again.kind !== 'armed') throw new Error('not armed');
    await faults.remove(A, again.fault.id);
    expect(faults.mayHaveFaults(A)).toBe(false);
    await faults.arm(B, { kind: 'unavailable' });
    await faults.clear(B);
    expect(faults.anyArmed()).toBe(false);
    await faults.arm(B, { kind: 'unavailable' });
    faults.forget(B);
    expect(faults.mayHaveFaults(B)).toBe(false);
  });

  it('learns on reload what another sandbox sharing the store armed or used up', async () => {
    const store = stores.open();
    const [one, other] = [await open(store), await open(store)];
    await one.arm(A, { kind: 'unavailable' });
    expect(other.mayHaveFaults(A)).toBe(false);
    await other.reload();
    expect(other.mayHaveFaults(A)).toBe(true);
    expect(await other.take(A, 'getBalance')).toMatchObject({ kind: 'unavailable' });
    // The first still thinks A has one until it looks: taking finds none and says so.
    expect(one.mayHaveFaults(A)).toBe(true);
    expect(await one.take(A, 'getBalance')).toBeUndefined();
    expect(one.mayHaveFaults(A)).toBe(false);
  });
});
