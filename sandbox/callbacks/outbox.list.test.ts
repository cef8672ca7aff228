// The outbox's list is what the control API's listCallbackDeliveries answers: at most the contract's
// `maxItems`, the newest first, however many deliveries a merchant and mode has recorded (retention keeps
// more than that at times, and pending deliveries for good). The same on every store.
import { afterEach, describe, expect, it } from 'vitest';
import { controlListLimit } from '../contract.js';
import type { Clock, Ids, Settings } from '../context.js';
import { openJournalStore } from '../store/journal/store.js';
import { openSqliteStore } from '../store/sqlite/store.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import { openTestStore } from '../store/postgres/testing/test-schemas.js';
import type { Store } from '../store/store.js';
import {
  createOutbox,
  DELIVERIES_COLLECTION,
  outboxCollections,
  type DeliveryRecord,
  type ListFilter,
  type Outbox,
} from './outbox.js';
import { MERCHANT, webhookExample } from './testing.js';

const LIMIT = controlListLimit('listCallbackDeliveries');
const CALLBACK_URL = 'https://merchant.example/callbacks';

const { server } = useThrowawayPostgres();
const backends: [string, () => Store | Promise<Store>][] = [
  ['journal', () => openJournalStore({ dataDir: ':memory:', collections: outboxCollections })],
  ['sqlite', () => openSqliteStore({ dataDir: ':memory:', collections: outboxCollections })],
  ['postgres', () => openTestStore(server().url, ':memory:', outboxCollections)],
];

const opened: Store[] = [];
afterEach(async () => void (await Promise.all(opened.splice(0).map((store) => store.close()))));

/** An outbox on `store` that keeps every delivery (retention is not what is tested here) and sends none. */
function outboxOn(store: Store): Outbox {
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
  return createOutbox({ store, clock, ids, settings, retention: { kept: 10 * LIMIT } });
}

/**
 * More deliveries than a list holds, in one transaction: fixedVirtualAccountChanged ones, pending (a URL,
 * and no dispatcher to send them) or, one in seven, failed (no URL); every eleventh a disbursementFinished.
 * Pending fixedVirtualAccountChanged deliveries alone are more than LIMIT, and not all in its first LIMIT.
 */
async function recordMany(store: Store, outbox: Outbox): Promise<void> {
  const payloads = {
    disbursementFinished: webhookExample('disbursementFinished'),
    fixedVirtualAccountChanged: webhookExample('fixedVirtualAccountChanged'),
  };
  const count = LIMIT + Math.ceil(LIMIT / 2);
  await store.transaction(async (tx) => {
    for (let n = 0; n < count; n++) {
      const kind = n % 11 === 0 ? 'disbursementFinished' : 'fixedVirtualAccountChanged';
      await outbox.enqueue(tx, MERCHANT, kind, payloads[kind], n % 7 === 0 ? null : CALLBACK_URL);
    }
  });
}

describe.each(backends)('the callback deliveries listed, on the %s store', (_name, openStore) => {
  /** A store holding more deliveries than a list holds, and the outbox on it. */
  const recordedMany = async (): Promise<{ store: Store; outbox: Outbox }> => {
    const store = await openStore();
    opened.push(store);
    const outbox = outboxOn(store);
    await recordMany(store, outbox);
    return { store, outbox };
  };

  it('are at most the control contract’s maxItems, the newest first, with or without filters', async () => {
    const { store, outbox } = await recordedMany();
    // Every recorded delivery, newest first, read past the bound: what each list is the start of.
    const all = await store.list<DeliveryRecord>(DELIVERIES_COLLECTION, MERCHANT);
    const filters: ListFilter[] = [
      {},
      { state: 'pending' },
      { webhook: 'fixedVirtualAccountChanged' },
      { state: 'pending', webhook: 'fixedVirtualAccountChanged' },
    ];
    for (const filter of filters) {
      const matching = all.filter(
        (record) =>
          (!filter.state || record.state === filter.state) && (!filter.webhook || record.webhook === filter.webhook),
      );
      expect(matching.length, JSON.stringify(filter)).toBeGreaterThan(LIMIT);
      expect(
        (await outbox.list(MERCHANT, filter)).map((record) => record.id),
        JSON.stringify(filter),
      ).toEqual(matching.slice(0, LIMIT).map((record) => record.id));
    }
  });

  it('with both filters, are every match when fewer than maxItems match, even past the first maxItems of one', async () => {
    const { store, outbox } = await recordedMany();
    const all = await store.list<DeliveryRecord>(DELIVERIES_COLLECTION, MERCHANT);
    const failed = all.filter((record) => record.state === 'failed' && record.webhook === 'fixedVirtualAccountChanged');
    expect(failed.length).toBeLessThan(LIMIT);
    expect(
      (await outbox.list(MERCHANT, { state: 'failed', webhook: 'fixedVirtualAccountChanged' })).map(
        (record) => record.id,
      ),
    ).toEqual(failed.map((record) => record.id));
  });
});
