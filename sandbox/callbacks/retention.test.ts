import { afterEach, describe, expect, it } from 'vitest';
import type { Clock, Ids, Settings } from '../context.js';
import type { Scope } from '../store/store.js';
import {
  createOutbox,
  DELIVERIES_COLLECTION,
  outboxCollections,
  type DeliveryRecord,
  type DeliveryState,
} from './outbox.js';
import { createRetention } from './retention.js';
import { MERCHANT, testStores, webhookExample } from './testing.js';

const stores = testStores(outboxCollections);
afterEach(() => stores.closeAll());

const OTHER_MODE: Scope = { ...MERCHANT, mode: 'live' };
const delivery = (id: string, state: DeliveryState): Pick<DeliveryRecord, 'id' | 'state'> => ({ id, state });
const idsOf = async (store: ReturnType<typeof stores.open>, scope: Scope = MERCHANT): Promise<string[]> =>
  (await store.list<DeliveryRecord>(DELIVERIES_COLLECTION, scope, { order: 'oldest' })).map((record) => record.id);

describe('callback delivery retention', () => {
  it('keeps the newest deliveries of a merchant and mode, and removes older ones once delivered or failed, never a pending one', async () => {
    const store = stores.open();
    const retention = createRetention(DELIVERIES_COLLECTION, { kept: 3, every: 1 });
    const states: DeliveryState[] = ['delivered', 'pending', 'failed', 'delivered', 'failed', 'delivered', 'pending'];
    for (const [n, state] of states.entries())
      await store.insert(DELIVERIES_COLLECTION, MERCHANT, delivery(`d${n}`, state));
    await store.insert(DELIVERIES_COLLECTION, OTHER_MODE, delivery('live', 'delivered'));
    await store.transaction((tx) => retention.recorded(tx, MERCHANT));
    // d4..d6 are the newest three; of the older ones only the pending d1 stays. The live mode is counted apart.
    expect(await idsOf(store)).toEqual(['d1', 'd4', 'd5', 'd6']);
    expect(await idsOf(store, OTHER_MODE)).toEqual(['live']);
  });

  it('looks for deliveries to remove at the first one a scope records, then once every so many', async () => {
    const store = stores.open();
    const retention = createRetention(DELIVERIES_COLLECTION, { kept: 1, every: 3 });
    const record = async (id: string): Promise<string[]> => {
      await store.transaction(async (tx) => {
        await tx.insert(DELIVERIES_COLLECTION, MERCHANT, delivery(id, 'delivered'));
        await retention.recorded(tx, MERCHANT);
      });
      return idsOf(store);
    };
    expect(await record('a')).toEqual(['a']);
    expect(await record('b')).toEqual(['a', 'b']);
    expect(await record('c')).toEqual(['a', 'b', 'c']);
    expect(await record('d')).toEqual(['d']);
  });

  it('is what the outbox applies to every delivery it records', async () => {
    const store = stores.open();
    let nextId = 0;
    const ids: Ids = { next: () => (nextId++).toString(16).padStart(24, '0') };
    const clock: Clock = {
      now: () => new Date('2026-11-21T09:30:00.000Z'),
      advance: () => Promise.reject(new Error('not used')),
      onAdvance: () => undefined,
    };
    const settings: Settings = {
      get: () => Promise.reject(new Error('not used')),
      peek: () => {
        throw new Error('not used');
      },
      update: () => Promise.reject(new Error('not used')),
    };
    const outbox = createOutbox({ store, clock, ids, settings, retention: { kept: 5, every: 1 } });
    const payload = webhookExample('fixedVirtualAccountChanged');
    // With no callback URL each delivery is failed as it is recorded (the control contract's decision).
    for (let n = 0; n < 20; n++)
      await store.transaction((tx) => outbox.enqueue(tx, MERCHANT, 'fixedVirtualAccountChanged', payload, null));
    const kept = await outbox.list(MERCHANT);
    expect(kept.map((record) => record.state)).toEqual(Array(5).fill('failed'));
    expect(kept[0]?.id).toBe((19).toString(16).padStart(24, '0'));
  });
});
