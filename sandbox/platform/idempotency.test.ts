import { describe, expect, it } from 'vitest';
import { openJournalStore } from '../store/journal/store.js';
import type { JsonRecord, Scope } from '../store/store.js';
import { clockCollections, createClock } from './clock.js';
import { createIdempotency, IDEMPOTENCY_KEY_LIFETIME_MS, idempotencyCollections } from './idempotency.js';
import { createIds } from './ids.js';

const merchant: Scope = { merchantId: 'm-a', mode: 'test' };
const REAL = Date.parse('2026-11-21T09:30:00.000Z');

async function setup() {
  const store = openJournalStore({
    dataDir: ':memory:',
    collections: [...clockCollections, ...idempotencyCollections, { name: 'things' }],
  });
  const clock = await createClock({ store, realTime: () => REAL });
  const ids = createIds();
  const idempotency = createIdempotency(clock, ids);
  let created = 0;
  /** An idempotent create of a thing; a 4xx-like outcome (no id) when `refuse` is set. */
  const create = (scope: Scope, key: string, fingerprint: string, refuse = false, operationId = 'createThing') =>
    store.transaction((tx) =>
      idempotency.run(
        tx,
        scope,
        operationId,
        key,
        fingerprint,
        async () => {
          if (refuse) return { ok: false as const };
          created++;
          const thing: JsonRecord = { id: ids.next() };
          await tx.insert('things', scope, thing);
          return { ok: true as const, id: thing.id };
        },
        (result) => (result.ok ? result.id : null),
      ),
    );
  return { store, clock, idempotency, create, count: () => created };
}

describe('idempotency keys', () => {
  it('run the first request, answer the same request as a replay naming what it created, and another as a mismatch', async () => {
    const { create, count } = await setup();
    const first = await create(merchant, 'key-1', 'body-a');
    if (first.kind !== 'first' || !first.result.ok) throw new Error('expected a first run');
    expect(await create(merchant, 'key-1', 'body-a')).toEqual({ kind: 'replay', originalId: first.result.id });
    expect(await create(merchant, 'key-1', 'body-b')).toEqual({ kind: 'mismatch' });
    expect(count()).toBe(1);
  });

  it('store a refused first request too: its replay names nothing', async () => {
    const { create } = await setup();
    expect((await create(merchant, 'key-1', 'body-a', true)).kind).toBe('first');
    expect(await create(merchant, 'key-1', 'body-a')).toEqual({ kind: 'replay', originalId: null });
  });

  it('let exactly one of ten concurrent requests with one key run', async () => {
    const { create, count } = await setup();
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => create(merchant, 'same', 'body')));
    expect(outcomes.filter((o) => o.kind === 'first')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'replay')).toHaveLength(9);
    expect(count()).toBe(1);
  });

  it('are scoped to merchant, mode and operation', async () => {
    const { create } = await setup();
    await create(merchant, 'k', 'body');
    expect((await create({ ...merchant, mode: 'live' }, 'k', 'body')).kind).toBe('first');
    expect((await create({ merchantId: 'm-b', mode: 'test' }, 'k', 'body')).kind).toBe('first');
    expect((await create(merchant, 'k', 'body', false, 'createOtherThing')).kind).toBe('first');
    expect((await create(merchant, 'k', 'body')).kind).toBe('replay');
  });

  it('are released when the request fails (a 5xx is not stored)', async () => {
    const { store, idempotency, create } = await setup();
    const failing = async () => {
      throw new Error('server error');
    };
    await expect(
      store.transaction((tx) => idempotency.run(tx, merchant, 'createThing', 'k', 'body', failing, () => null)),
    ).rejects.toThrow('server error');
    expect((await create(merchant, 'k', 'body')).kind).toBe('first');
  });

  it('expire 24 hours of sandbox time after first use', async () => {
    const { clock, create, count } = await setup();
    await create(merchant, 'k', 'body');
    await clock.advance(merchant, IDEMPOTENCY_KEY_LIFETIME_MS - 1);
    expect((await create(merchant, 'k', 'other')).kind).toBe('mismatch');
    await clock.advance(merchant, 1);
    expect((await create(merchant, 'k', 'other')).kind).toBe('first');
    expect((await create(merchant, 'k', 'other')).kind).toBe('replay');
    expect(count()).toBe(2);
  });

  it("expire by the clock of their own merchant and mode: another's advance leaves them in force", async () => {
    const { clock, create } = await setup();
    const live: Scope = { ...merchant, mode: 'live' };
    const otherMerchant: Scope = { merchantId: 'm-b', mode: 'test' };
    for (const scope of [merchant, live, otherMerchant]) await create(scope, 'k', 'body');
    await clock.advance(live, IDEMPOTENCY_KEY_LIFETIME_MS);
    await clock.advance(otherMerchant, IDEMPOTENCY_KEY_LIFETIME_MS);
    expect((await create(merchant, 'k', 'other')).kind).toBe('mismatch');
    expect((await create(live, 'k', 'other')).kind).toBe('first');
    expect((await create(otherMerchant, 'k', 'other')).kind).toBe('first');
  });
});
