import { describe, expect, it } from 'vitest';
import { operationTable } from '@payments-contract/server';
import { responseExamples } from '../contract.js';
import {
  balanceAndBankHandlers,
  disbursementBankCatalog,
  findDisbursementBank,
  product,
  virtualAccountBankCatalog,
} from './index.js';
import { createHarness, KEYS, type Harness } from './testing.js';

const harness = (): Harness => createHarness((ctx) => balanceAndBankHandlers(ctx), product.collections);

describe('getBalance', () => {
  it('reads CASH by default and HOLDING on request, as the ledger holds them', async () => {
    const h = harness();
    expect(await h.call('GET', '/balance')).toEqual({ status: 200, body: { balance: 0 } });
    await h.store.transaction(async (tx) => {
      await h.ctx.balances.credit(tx, { merchantId: 'merchant-a', mode: 'test' }, 'CASH', 15750000);
      await h.ctx.balances.credit(tx, { merchantId: 'merchant-a', mode: 'test' }, 'HOLDING', 2350000.5);
    });
    expect(await h.call('GET', '/balance')).toEqual({ status: 200, body: { balance: 15750000 } });
    expect(await h.call('GET', '/balance?account_type=CASH')).toEqual({ status: 200, body: { balance: 15750000 } });
    expect(await h.call('GET', '/balance?account_type=HOLDING')).toEqual({ status: 200, body: { balance: 2350000.5 } });
    expect(h.errors).toEqual([]);
  });

  it('keeps merchants and modes apart', async () => {
    const h = harness();
    await h.store.transaction((tx) =>
      h.ctx.balances.credit(tx, { merchantId: 'merchant-a', mode: 'test' }, 'CASH', 500000),
    );
    expect(await h.call('GET', '/balance', { key: KEYS.aLive })).toEqual({ status: 200, body: { balance: 0 } });
    expect(await h.call('GET', '/balance', { key: KEYS.b })).toEqual({ status: 200, body: { balance: 0 } });
  });

  it('answers every documented error code', async () => {
    const h = harness();
    expect(await h.call('GET', '/balance?account_type=ESCROW')).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(await h.call('GET', '/balance', { key: null })).toMatchObject({
      status: 401,
      body: { error_code: 'INVALID_API_KEY' },
    });
    expect(await h.call('GET', '/balance', { key: 'sk_test_nobody' })).toMatchObject({
      status: 401,
      body: { error_code: 'INVALID_API_KEY' },
    });
    // 403 and 500 are the router's (permissions are outside the API; 500 is a thrown handler); 429 and 503 are
    // the rate limits' and an unavailable service's, which every operation documents.
    expect(Object.keys(operationTable.getBalance.responses)).toEqual(['200', '400', '401', '403', '429', '500', '503']);
  });
});

describe('listVirtualAccountBanks', () => {
  it('lists the contract catalog, narrowed to the banks the merchant activated, in catalog order', async () => {
    const h = harness();
    const all = await h.call('GET', '/available_virtual_account_banks');
    expect(all).toEqual({ status: 200, body: virtualAccountBankCatalog });
    expect(virtualAccountBankCatalog.map((bank) => bank.code)).toEqual([
      'BCA',
      'BNI',
      'MANDIRI',
      'SAHABAT_SAMPOERNA',
      'BRI',
      'PERMATA',
    ]);
    await h.configure({ virtual_account_bank_activation: ['PERMATA', 'MANDIRI'] });
    expect(await h.call('GET', '/available_virtual_account_banks')).toEqual({
      status: 200,
      body: [
        { name: 'Bank Mandiri', code: 'MANDIRI' },
        { name: 'Bank Permata', code: 'PERMATA' },
      ],
    });
    // Decision `va-banks-is-array`: an array even with one bank, and empty with none.
    await h.configure({ virtual_account_bank_activation: [] });
    expect(await h.call('GET', '/available_virtual_account_banks')).toEqual({ status: 200, body: [] });
    expect(h.errors).toEqual([]);
  });
});

describe('listDisbursementBanks', () => {
  it('answers the catalog the contract decides (decision disbursement-bank-catalog)', async () => {
    const h = harness();
    const [example] = responseExamples('listDisbursementBanks', 200);
    expect(await h.call('GET', '/available_disbursements_banks')).toEqual({ status: 200, body: example });
    expect(await h.call('GET', '/available_disbursements_banks', { key: null })).toMatchObject({ status: 401 });
    expect(h.errors).toEqual([]);
  });

  it('tells the disbursement module which codes exist', () => {
    expect(findDisbursementBank('BCA')).toMatchObject({ code: 'BCA', can_disburse: true });
    expect(findDisbursementBank('OVO')).toMatchObject({ code: 'OVO' });
    expect(findDisbursementBank('GOPAY')).toMatchObject({ can_disburse: false });
    expect(findDisbursementBank('BANK_OF_NOWHERE')).toBeUndefined();
    expect(disbursementBankCatalog.length).toBeGreaterThan(10);
  });
});
