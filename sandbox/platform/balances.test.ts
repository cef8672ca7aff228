import { describe, expect, it } from 'vitest';
import { openJournalStore } from '../store/journal/store.js';
import type { Scope } from '../store/store.js';
import { balancesCollections, createBalances, DEFAULT_INITIAL_BALANCE } from './balances.js';

const merchant: Scope = { merchantId: 'm-a', mode: 'test' };
const live: Scope = { merchantId: 'm-a', mode: 'live' };
const other: Scope = { merchantId: 'm-b', mode: 'test' };

describe('balances', () => {
  const setup = (initial?: Parameters<typeof createBalances>[0]) => ({
    store: openJournalStore({ dataDir: ':memory:', collections: balancesCollections }),
    balances: createBalances(initial),
  });

  it('start at the initial amounts: a large CASH balance, an empty HOLDING one', async () => {
    const { store, balances } = setup();
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'CASH'))).toBe(DEFAULT_INITIAL_BALANCE.CASH);
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'HOLDING'))).toBe(0);
    const configured = setup({ CASH: 50_000 });
    expect(await configured.store.transaction((tx) => configured.balances.get(tx, merchant, 'CASH'))).toBe(50_000);
  });

  it('credit and debit, refusing a debit the balance cannot cover without changing it', async () => {
    const { store, balances } = setup({ CASH: 100_000 });
    expect(await store.transaction((tx) => balances.credit(tx, merchant, 'CASH', 2350000.5))).toBe(2450000.5);
    expect(await store.transaction((tx) => balances.debit(tx, merchant, 'CASH', 450000.25))).toBe(true);
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'CASH'))).toBe(2000000.25);
    expect(await store.transaction((tx) => balances.debit(tx, merchant, 'CASH', 2000000.26))).toBe(false);
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'CASH'))).toBe(2000000.25);
    expect(await store.transaction((tx) => balances.debit(tx, merchant, 'CASH', 2000000.25))).toBe(true);
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'CASH'))).toBe(0);
    await expect(store.transaction((tx) => balances.credit(tx, merchant, 'CASH', -5))).rejects.toThrow(RangeError);
  });

  it('keep merchants, modes and account types apart', async () => {
    const { store, balances } = setup({ CASH: 1000, HOLDING: 10 });
    await store.transaction((tx) => balances.debit(tx, merchant, 'CASH', 400));
    expect(await store.transaction((tx) => balances.get(tx, live, 'CASH'))).toBe(1000);
    expect(await store.transaction((tx) => balances.get(tx, other, 'CASH'))).toBe(1000);
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'HOLDING'))).toBe(10);
  });

  it('change with the caller’s transaction: a rolled-back debit leaves the balance, concurrent debits never overspend', async () => {
    const { store, balances } = setup({ CASH: 1000 });
    await expect(
      store.transaction(async (tx) => {
        await balances.debit(tx, merchant, 'CASH', 600);
        throw new Error('the disbursement failed');
      }),
    ).rejects.toThrow();
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'CASH'))).toBe(1000);
    const results = await Promise.all(
      Array.from({ length: 5 }, () => store.transaction((tx) => balances.debit(tx, merchant, 'CASH', 300))),
    );
    expect(results.filter(Boolean)).toHaveLength(3);
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'CASH'))).toBe(100);
  });

  it('return to the initial amount when the scope is cleared (reset)', async () => {
    const { store, balances } = setup({ CASH: 1000 });
    await store.transaction((tx) => balances.credit(tx, merchant, 'CASH', 5));
    await store.clearScope(merchant);
    expect(await store.transaction((tx) => balances.get(tx, merchant, 'CASH'))).toBe(1000);
  });
});
