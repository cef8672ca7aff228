import { describe, expect, it } from 'vitest';
import { webhookMetadata } from '@payments-contract/client/webhooks';
import { createHarness, bodyField, errorCoverage, KEYS, START, type Answer, type Harness } from '../balance/testing.js';
import { collections, fixedVirtualAccountControlHandlers, fixedVirtualAccountHandlers } from './index.js';

const HOUR = 60 * 60 * 1000;
const harness = (): Harness =>
  createHarness(
    (ctx) => ({ ...fixedVirtualAccountHandlers(ctx), ...fixedVirtualAccountControlHandlers(ctx) }),
    collections,
  );
const coverage = errorCoverage();
const OPERATIONS = [
  'createFixedVirtualAccount',
  'getFixedVirtualAccount',
  'updateFixedVirtualAccount',
  'getFixedVirtualAccountPayment',
  'simulateFixedVirtualAccountPayment',
] as const;

const changedUrl = `https://merchant.example/callbacks/${webhookMetadata.fixedVirtualAccountChanged.delivery.destination.dashboard_setting}`;
const paidUrl = `https://merchant.example/callbacks/${webhookMetadata.fixedVirtualAccountPaid.delivery.destination.dashboard_setting}`;

const create = (h: Harness, body: Record<string, unknown>, key?: string) =>
  h.call('POST', '/callback_virtual_accounts', {
    json: { external_id: 'va-toko-sinar-jaya-0001', bank_code: 'BNI', name: 'Toko Sinar Jaya', ...body },
    ...(key ? { key } : {}),
  });
const update = (h: Harness, id: string, body: unknown, key?: string) =>
  h.call('PATCH', `/callback_virtual_accounts/${id}`, { json: body, ...(key ? { key } : {}) });
const pay = (h: Harness, id: string, body?: unknown) =>
  h.call('POST', `/sandbox/fixed_virtual_accounts/${id}/payments`, body === undefined ? {} : { json: body });
const idOf = (answer: Answer): string => {
  const id = bodyField(answer, 'id');
  if (typeof id !== 'string') throw new Error(`no id in ${JSON.stringify(answer)}`);
  return id;
};
const text = (answer: Answer, name: string): string => String(bodyField(answer, name));

describe('createFixedVirtualAccount', () => {
  it('opens an ACTIVE account with a random free number of the merchant range, 31-year expiry, and reports it', async () => {
    const h = harness();
    const created = await create(h, {});
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      owner_id: '5ed75086a883856178afc12e',
      external_id: 'va-toko-sinar-jaya-0001',
      bank_code: 'BNI',
      merchant_code: '88608',
      name: 'Toko Sinar Jaya',
      is_closed: false,
      is_single_use: false,
      status: 'ACTIVE',
    });
    expect(text(created, 'account_number')).toMatch(/^8860810[0-9]{6}$/);
    expect(bodyField(created, 'expiration_date')).toBe('2057-11-21T09:30:00.000Z');
    expect(bodyField(created, 'created')).toBe(START.toISOString());
    expect(bodyField(created, 'updated')).toBe(START.toISOString());
    expect(bodyField(created, 'expected_amount')).toBeUndefined();
    // The changed callback reports the creation (created equals updated), to the dashboard's URL for it.
    expect(await h.outbox()).toMatchObject([
      { webhook: 'fixedVirtualAccountChanged', url: changedUrl, payload: created.body },
    ]);
    expect(await h.call('GET', `/callback_virtual_accounts/${idOf(created)}`)).toEqual(created);
    expect(h.errors).toEqual([]);
  });

  it('keeps a requested number, closed amount, suggested amount, single use and expiry as sent', async () => {
    const h = harness();
    const closed = await create(h, {
      bank_code: 'BRI',
      name: 'Budi Santoso',
      virtual_account_number: '262159999000781',
      is_closed: true,
      expected_amount: 250000,
      is_single_use: true,
      expiration_date: '2026-11-28T16:30:00+07:00',
    });
    expect(closed).toMatchObject({
      status: 200,
      body: {
        account_number: '262159999000781',
        merchant_code: '26215',
        is_closed: true,
        expected_amount: 250000,
        is_single_use: true,
        expiration_date: '2026-11-28T09:30:00.000Z',
      },
    });
    const suggested = await create(h, { bank_code: 'MANDIRI', name: 'Siti Rahmawati', suggested_amount: 150000 });
    expect(suggested).toMatchObject({ status: 200, body: { suggested_amount: 150000, merchant_code: '88908' } });
  });

  it('accepts a form-encoded body, its values coerced', async () => {
    const h = harness();
    const created = await h.call('POST', '/callback_virtual_accounts', {
      raw: {
        contentType: 'application/x-www-form-urlencoded',
        text: 'external_id=invoice-1&bank_code=BRI&name=Budi+Santoso&is_closed=true&expected_amount=250000',
      },
    });
    expect(created).toMatchObject({ status: 200, body: { is_closed: true, expected_amount: 250000 } });
  });

  it('lets external_id repeat, but not a number in the same bank, merchant and mode', async () => {
    const h = harness();
    expect((await create(h, { virtual_account_number: '8860810000123' })).status).toBe(200);
    expect((await create(h, {})).status).toBe(200);
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { virtual_account_number: '8860810000123', external_id: 'another' }),
      400,
      'DUPLICATE_CALLBACK_VIRTUAL_ACCOUNT_ERROR',
    );
    // Another merchant, and the same merchant's live mode, have numbers of their own.
    expect((await create(h, { virtual_account_number: '8860810000123' }, KEYS.b)).status).toBe(200);
    expect((await create(h, { virtual_account_number: '8860810000123' }, KEYS.aLive)).status).toBe(200);
    // An inactive account keeps its number (decision fva-duplicate-means-number: whatever its status).
    const expiring = await create(h, { virtual_account_number: '8860810000124' });
    expect((await update(h, idOf(expiring), { expiration_date: '2026-11-20T00:00:00.000Z' })).body).toMatchObject({
      status: 'INACTIVE',
    });
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { virtual_account_number: '8860810000124' }),
      400,
      'DUPLICATE_CALLBACK_VIRTUAL_ACCOUNT_ERROR',
    );
  });

  it('opens one account when the same number is requested concurrently', async () => {
    const h = harness();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => create(h, { virtual_account_number: '8860810000777' })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200))
      coverage.expectError('createFixedVirtualAccount', answer, 400, 'DUPLICATE_CALLBACK_VIRTUAL_ACCOUNT_ERROR');
    expect(await h.outbox()).toHaveLength(1);
  });

  it('refuses a number outside the merchant range at that bank', async () => {
    const h = harness();
    for (const number of ['8860820000123', '886081000012', '88608100001234', '2621599990007', '8860800000000']) {
      coverage.expectError(
        'createFixedVirtualAccount',
        await create(h, { virtual_account_number: number }),
        400,
        'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE',
      );
    }
    expect(await h.outbox()).toEqual([]);
  });

  it('picks only free numbers and says so when the range is used up', async () => {
    const h = harness();
    await h.configure({
      virtual_account_number_range: { BNI: { merchant_code: '88608', from: '8860810000001', to: '8860810000003' } },
    });
    expect((await create(h, { virtual_account_number: '8860810000002' })).status).toBe(200);
    const numbers = [text(await create(h, {}), 'account_number'), text(await create(h, {}), 'account_number')];
    expect(numbers.sort()).toEqual(['8860810000001', '8860810000003']);
    coverage.expectError('createFixedVirtualAccount', await create(h, {}), 400, 'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE');
  });

  it('refuses a bank outside the list, one not activated and one without a range', async () => {
    const h = harness();
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { bank_code: 'BTN' }),
      400,
      'BANK_NOT_SUPPORTED_ERROR',
    );
    await h.configure({ virtual_account_bank_activation: ['BRI'] });
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { bank_code: 'BNI' }),
      400,
      'BANK_NOT_SUPPORTED_ERROR',
    );
    await h.configure({ virtual_account_bank_activation: ['BRI', 'BNI'], virtual_account_number_range: {} });
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { bank_code: 'BNI' }),
      400,
      'BANK_NOT_SUPPORTED_ERROR',
    );
  });

  it('follows the merchant settings for closed accounts and custom expiry', async () => {
    const h = harness();
    await h.configure({ closed_virtual_accounts_enabled: false, expiration_date_enabled: false });
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { is_closed: true, expected_amount: 50000 }),
      400,
      'CLOSED_VA_NOT_SUPPORTED_ERROR',
    );
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { expiration_date: '2026-12-01T00:00:00.000Z' }),
      400,
      'EXPIRATION_DATE_NOT_SUPPORTED_ERROR',
    );
    // Decision fva-expiration-not-supported: only a request that sends an expiry is affected.
    expect((await create(h, { is_closed: false })).status).toBe(200);
  });

  it('refuses an expiry earlier than the sandbox time', async () => {
    const h = harness();
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { expiration_date: '2026-11-21T09:29:59.999Z' }),
      400,
      'EXPIRATION_DATE_INVALID_ERROR',
    );
    await h.advance(48 * HOUR);
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { expiration_date: '2026-11-22T09:30:00.000Z' }),
      400,
      'EXPIRATION_DATE_INVALID_ERROR',
    );
  });

  it('refuses names with a bank or institution word, whole words in any case only', async () => {
    const h = harness();
    for (const name of ['Toko Mandiri Jaya', 'bca', 'Pak  Budi BANK', 'Sahabat   Sampoerna Mart', 'ovo Store']) {
      coverage.expectError(
        'createFixedVirtualAccount',
        await create(h, { name }),
        400,
        'CALLBACK_VIRTUAL_ACCOUNT_NAME_NOT_ALLOWED_ERROR',
      );
    }
    for (const name of ['Dana Putri', 'Bankir Sejahtera', 'Abcar', 'Brian', 'Movo'])
      expect((await create(h, { name })).status, name).toBe(200);
  });

  it('answers the schema rules with their own codes', async () => {
    const h = harness();
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { external_id: undefined, name: 'Toko 1' }),
      400,
      'API_VALIDATION_ERROR',
    );
    coverage.expectError(
      'createFixedVirtualAccount',
      await h.call('POST', '/callback_virtual_accounts', {
        raw: { contentType: 'application/json', text: '{"external_id":' },
      }),
      400,
      'INVALID_JSON_FORMAT',
    );
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { suggested_amount: 100000 }),
      400,
      'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR',
    );
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { is_closed: true }),
      400,
      'EXPECTED_AMOUNT_REQUIRED_ERROR',
    );
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { expected_amount: 0 }),
      400,
      'MINIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { expected_amount: 1000000000 }),
      400,
      'MAXIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError('createFixedVirtualAccount', await create(h, {}, 'sk_test_unknown'), 401, 'INVALID_API_KEY');
    expect(await h.outbox()).toEqual([]);
  });

  it('changes nothing when the change cannot be recorded with its callback, and answers 500', async () => {
    const h = harness();
    h.ctx.callbacks = {
      enqueue: async () => {
        throw new Error('outbox unavailable');
      },
    };
    coverage.expectError(
      'createFixedVirtualAccount',
      await create(h, { virtual_account_number: '8860810000123' }),
      500,
      'SERVER_ERROR',
    );
    expect(h.errors).toHaveLength(1);
    expect(await h.store.list('fixed_virtual_accounts', { merchantId: 'merchant-a', mode: 'test' })).toEqual([]);
  });
});

describe('getFixedVirtualAccount', () => {
  it('finds only the merchant own accounts in the key mode', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    expect((await h.call('GET', `/callback_virtual_accounts/${id}`)).status).toBe(200);
    coverage.expectError(
      'getFixedVirtualAccount',
      await h.call('GET', '/callback_virtual_accounts/5f6ee8de3a733c1d2e1a1bff'),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedVirtualAccount',
      await h.call('GET', `/callback_virtual_accounts/${id}`, { key: KEYS.b }),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedVirtualAccount',
      await h.call('GET', `/callback_virtual_accounts/${id}`, { key: KEYS.aLive }),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedVirtualAccount',
      await h.call('GET', `/callback_virtual_accounts/${id}`, { key: null }),
      401,
      'INVALID_API_KEY',
    );
    // An id no id can be (a character outside the identifier rule, or over 64 characters) is malformed, not unknown.
    coverage.expectError(
      'getFixedVirtualAccount',
      await h.call('GET', '/callback_virtual_accounts/5f6ee8de3a733c1d!'),
      400,
      'API_VALIDATION_ERROR',
    );
    coverage.expectError(
      'getFixedVirtualAccount',
      await h.call('GET', `/callback_virtual_accounts/${'a'.repeat(65)}`),
      400,
      'API_VALIDATION_ERROR',
    );
  });

  it('shows an account INACTIVE once the sandbox clock passes its expiry, changed at that time', async () => {
    const h = harness();
    const id = idOf(await create(h, { expiration_date: new Date(START.getTime() + HOUR).toISOString() }));
    await h.advance(HOUR - 1);
    expect((await h.call('GET', `/callback_virtual_accounts/${id}`)).body).toMatchObject({ status: 'ACTIVE' });
    await h.advance(2 * HOUR);
    expect((await h.call('GET', `/callback_virtual_accounts/${id}`)).body).toMatchObject({
      status: 'INACTIVE',
      updated: new Date(START.getTime() + HOUR).toISOString(),
    });
  });

  it("expires by the clock of the account's own merchant and mode: another merchant's or mode's advance leaves it ACTIVE", async () => {
    const h = harness();
    const keys = [KEYS.a, KEYS.aLive, KEYS.b];
    const ids = await Promise.all(
      keys.map(async (key) =>
        idOf(await create(h, { expiration_date: new Date(START.getTime() + HOUR).toISOString() }, key)),
      ),
    );
    await h.advance(2 * HOUR, KEYS.aLive);
    await h.advance(2 * HOUR, KEYS.b);
    const statuses = await Promise.all(
      keys.map(async (key, index) =>
        bodyField(await h.call('GET', `/callback_virtual_accounts/${ids[index]}`, { key }), 'status'),
      ),
    );
    expect(statuses).toEqual(['ACTIVE', 'INACTIVE', 'INACTIVE']);
  });
});

describe('updateFixedVirtualAccount', () => {
  it('changes the fields sent, keeps the others, and reports the change with a later updated', async () => {
    const h = harness();
    const created = await create(h, {
      bank_code: 'BRI',
      name: 'Budi Santoso',
      is_closed: true,
      expected_amount: 250000,
    });
    const id = idOf(created);
    // Same millisecond as the creation: updated must still move on (decision fva-changed-creation-vs-update).
    const updated = await update(h, id, {
      expected_amount: 275000,
      expiration_date: '2026-12-05T17:00:00.000Z',
      suggested_amount: 200000,
      is_single_use: true,
      unknown_field: 'ignored',
    });
    expect(updated).toMatchObject({
      status: 200,
      body: {
        ...(created.body as object),
        expected_amount: 275000,
        suggested_amount: 200000,
        is_single_use: true,
        is_closed: true,
        status: 'ACTIVE',
        expiration_date: '2026-12-05T17:00:00.000Z',
        updated: '2026-11-21T09:30:00.001Z',
      },
    });
    expect(bodyField(updated, 'unknown_field')).toBeUndefined();
    await h.advance(HOUR);
    const opened = await update(h, id, { is_closed: false });
    expect(opened).toMatchObject({
      status: 200,
      body: { is_closed: false, expected_amount: 275000, updated: '2026-11-21T10:30:00.000Z' },
    });
    const outbox = await h.outbox();
    expect(outbox.map((entry) => entry.webhook)).toEqual([
      'fixedVirtualAccountChanged',
      'fixedVirtualAccountChanged',
      'fixedVirtualAccountChanged',
    ]);
    expect(outbox.map((entry) => entry.payload)).toEqual([created.body, updated.body, opened.body]);
  });

  it('expires the account with a past expiry, reports it INACTIVE, and refuses any later update', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    const expired = await update(h, id, { expiration_date: '2026-11-21T00:00:00.000Z' });
    expect(expired).toMatchObject({
      status: 200,
      body: { status: 'INACTIVE', expiration_date: '2026-11-21T00:00:00.000Z' },
    });
    expect((await h.outbox()).at(-1)).toMatchObject({
      webhook: 'fixedVirtualAccountChanged',
      payload: { status: 'INACTIVE' },
    });
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, { expected_amount: 10000 }),
      400,
      'INACTIVE_VIRTUAL_ACCOUNT_ERROR',
    );
    expect(await h.outbox()).toHaveLength(2);
  });

  it('refuses to update an account the clock expired, and stores its INACTIVE status', async () => {
    const h = harness();
    const id = idOf(await create(h, { expiration_date: new Date(START.getTime() + HOUR).toISOString() }));
    await h.advance(HOUR);
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, { is_single_use: true }),
      400,
      'INACTIVE_VIRTUAL_ACCOUNT_ERROR',
    );
    expect(await h.store.get('fixed_virtual_accounts', { merchantId: 'merchant-a', mode: 'test' }, id)).toMatchObject({
      status: 'INACTIVE',
    });
  });

  it('re-checks the stored account against the current settings (decision fva-update-setting-errors)', async () => {
    const h = harness();
    const bni = idOf(await create(h, { virtual_account_number: '8860810000500' }));
    const bri = idOf(await create(h, { bank_code: 'BRI', name: 'Budi Santoso' }));
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, bni, { suggested_amount: 100000 }),
      400,
      'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR',
    );
    expect((await update(h, bri, { suggested_amount: 100000 })).status).toBe(200);
    await h.configure({ closed_virtual_accounts_enabled: false });
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, bni, { is_closed: true, expected_amount: 50000 }),
      400,
      'CLOSED_VA_NOT_SUPPORTED_ERROR',
    );
    await h.configure({
      virtual_account_number_range: {
        BNI: { merchant_code: '88608', from: '8860810000600', to: '8860810000999' },
        BRI: { merchant_code: '26215', from: '262159999000000', to: '262159999999999' },
      },
    });
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, bni, { is_single_use: true }),
      400,
      'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE',
    );
    await h.configure({ virtual_account_bank_activation: ['BNI'] });
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, bri, { is_single_use: true }),
      400,
      'BANK_NOT_SUPPORTED_ERROR',
    );
  });

  it('answers the schema rules and unknown ids with their codes', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, { is_single_use: 'yes' }),
      400,
      'API_VALIDATION_ERROR',
    );
    coverage.expectError(
      'updateFixedVirtualAccount',
      await h.call('PATCH', `/callback_virtual_accounts/${id}`, {
        raw: { contentType: 'application/json', text: '{' },
      }),
      400,
      'INVALID_JSON_FORMAT',
    );
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, { is_closed: true }),
      400,
      'EXPECTED_AMOUNT_REQUIRED_ERROR',
    );
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, { expected_amount: -1 }),
      400,
      'MINIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, { expected_amount: 2000000000 }),
      400,
      'MAXIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, '5f6ee8de3a733c1d2e1a1bff', {}),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, {}, KEYS.b),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, {}, 'sk_live_unknown'),
      401,
      'INVALID_API_KEY',
    );
    h.ctx.callbacks = {
      enqueue: async () => {
        throw new Error('outbox unavailable');
      },
    };
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, id, { expected_amount: 70000 }),
      500,
      'SERVER_ERROR',
    );
    expect((await h.call('GET', `/callback_virtual_accounts/${id}`)).body).not.toHaveProperty('expected_amount');
  });
});

describe('simulateFixedVirtualAccountPayment and getFixedVirtualAccountPayment', () => {
  it('records the payment, credits CASH and sends the paid callback without the number prefix', async () => {
    const h = harness();
    const account = await create(h, { virtual_account_number: '8860810000123' });
    await h.advance(HOUR);
    const paid = await pay(h, idOf(account), { amount: 250000 });
    expect(paid).toMatchObject({
      status: 200,
      body: {
        callback_virtual_account_id: idOf(account),
        external_id: 'va-toko-sinar-jaya-0001',
        merchant_code: '88608',
        account_number: '8860810000123',
        bank_code: 'BNI',
        amount: 250000,
        transaction_timestamp: '2026-11-21T10:30:00.000Z',
      },
    });
    const paymentId = text(paid, 'payment_id');
    expect(await h.call('GET', `/callback_virtual_account_payments/payment_id=${paymentId}`)).toEqual(paid);
    expect(await h.balance('CASH')).toBe(250000);
    const callback = (await h.outbox()).at(-1);
    expect(callback).toMatchObject({ webhook: 'fixedVirtualAccountPaid', url: paidUrl });
    expect(callback?.payload).toEqual({
      id: bodyField(paid, 'id'),
      payment_id: paymentId,
      callback_virtual_account_id: idOf(account),
      owner_id: '5ed75086a883856178afc12e',
      external_id: 'va-toko-sinar-jaya-0001',
      account_number: '10000123',
      bank_code: 'BNI',
      amount: 250000,
      transaction_timestamp: '2026-11-21T10:30:00.000Z',
      merchant_code: '88608',
      updated: '2026-11-21T10:30:00.000Z',
      created: '2026-11-21T10:30:00.000Z',
    });
    // An open, reusable account stays payable.
    expect((await pay(h, idOf(account), { amount: 1000 })).status).toBe(200);
    expect(await h.balance('CASH')).toBe(251000);
    expect((await h.call('GET', `/callback_virtual_accounts/${idOf(account)}`)).body).toMatchObject({
      status: 'ACTIVE',
    });
    expect(h.errors).toEqual([]);
  });

  it('reports the payer name for Sahabat Sampoerna accounts only', async () => {
    const h = harness();
    const sampoerna = idOf(await create(h, { bank_code: 'SAHABAT_SAMPOERNA', name: 'Siti Rahmawati' }));
    await pay(h, sampoerna, { amount: 1500000, sender_name: 'Rudi Hartono' });
    await pay(h, sampoerna, { amount: 1500000 });
    const bri = idOf(await create(h, { bank_code: 'BRI', name: 'Budi Santoso' }));
    await pay(h, bri, { amount: 5000, sender_name: 'Rudi Hartono' });
    const payloads = (await h.outbox())
      .filter((entry) => entry.webhook === 'fixedVirtualAccountPaid')
      .map((entry) => entry.payload);
    expect(payloads).toMatchObject([
      { sender_name: 'Rudi Hartono' },
      { sender_name: 'Siti Rahmawati' },
      { bank_code: 'BRI' },
    ]);
    expect(payloads[2]).not.toHaveProperty('sender_name');
  });

  it('pays the account own amount without a body, and a closed account only its expected amount', async () => {
    const h = harness();
    const closed = idOf(
      await create(h, { bank_code: 'BRI', name: 'Budi Santoso', is_closed: true, expected_amount: 250000 }),
    );
    coverage.expectError(
      'simulateFixedVirtualAccountPayment',
      await pay(h, closed, { amount: 249999 }),
      409,
      'SANDBOX_STATE_CONFLICT',
    );
    expect(await pay(h, closed)).toMatchObject({ status: 200, body: { amount: 250000 } });
    const suggested = idOf(await create(h, { bank_code: 'MANDIRI', name: 'Siti Rahmawati', suggested_amount: 150000 }));
    expect(await pay(h, suggested, {})).toMatchObject({ status: 200, body: { amount: 150000 } });
    const open = idOf(await create(h, {}));
    coverage.expectError('simulateFixedVirtualAccountPayment', await pay(h, open), 400, 'API_VALIDATION_ERROR');
    expect(await h.balance('CASH')).toBe(400000);
  });

  it('makes a single-use account INACTIVE and refuses payments to inactive accounts', async () => {
    const h = harness();
    const single = idOf(await create(h, { is_single_use: true, expected_amount: 90000 }));
    expect((await pay(h, single)).status).toBe(200);
    expect((await h.call('GET', `/callback_virtual_accounts/${single}`)).body).toMatchObject({ status: 'INACTIVE' });
    coverage.expectError('simulateFixedVirtualAccountPayment', await pay(h, single), 409, 'SANDBOX_STATE_CONFLICT');
    coverage.expectError(
      'updateFixedVirtualAccount',
      await update(h, single, { expected_amount: 10000 }),
      400,
      'INACTIVE_VIRTUAL_ACCOUNT_ERROR',
    );
    const expiring = idOf(await create(h, { expiration_date: new Date(START.getTime() + HOUR).toISOString() }));
    await h.advance(HOUR);
    coverage.expectError(
      'simulateFixedVirtualAccountPayment',
      await pay(h, expiring, { amount: 1000 }),
      409,
      'SANDBOX_STATE_CONFLICT',
    );
    // Refused payments change nothing: one payment credited, one paid callback.
    expect(await h.balance('CASH')).toBe(90000);
    expect((await h.outbox()).filter((entry) => entry.webhook === 'fixedVirtualAccountPaid')).toHaveLength(1);
  });

  it('answers unknown ids, other merchants and broken bodies with their codes', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    coverage.expectError(
      'simulateFixedVirtualAccountPayment',
      await pay(h, '5f6ee8de3a733c1d2e1a1bff', { amount: 1000 }),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'simulateFixedVirtualAccountPayment',
      await h.call('POST', `/sandbox/fixed_virtual_accounts/${id}/payments`, { key: KEYS.b, json: { amount: 1000 } }),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'simulateFixedVirtualAccountPayment',
      await pay(h, id, { amount: 0 }),
      400,
      'API_VALIDATION_ERROR',
    );
    coverage.expectError(
      'simulateFixedVirtualAccountPayment',
      await h.call('POST', `/sandbox/fixed_virtual_accounts/${id}/payments`, {
        raw: { contentType: 'application/json', text: 'amount=1' },
      }),
      400,
      'INVALID_JSON_FORMAT',
    );
    coverage.expectError(
      'simulateFixedVirtualAccountPayment',
      await h.call('POST', `/sandbox/fixed_virtual_accounts/${id}/payments`, { key: null, json: {} }),
      401,
      'INVALID_API_KEY',
    );
    const paid = await pay(h, id, { amount: 1000 });
    coverage.expectError(
      'getFixedVirtualAccountPayment',
      await h.call('GET', '/callback_virtual_account_payments/payment_id=5f8a1b2c3d4e5f6a7b8c9dff'),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_PAYMENT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedVirtualAccountPayment',
      await h.call('GET', `/callback_virtual_account_payments/payment_id=${text(paid, 'payment_id')}`, {
        key: KEYS.aLive,
      }),
      404,
      'CALLBACK_VIRTUAL_ACCOUNT_PAYMENT_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedVirtualAccountPayment',
      await h.call('GET', `/callback_virtual_account_payments/payment_id=${text(paid, 'payment_id')}`, { key: null }),
      401,
      'INVALID_API_KEY',
    );
    coverage.expectError(
      'getFixedVirtualAccountPayment',
      await h.call('GET', `/callback_virtual_account_payments/payment_id=${'9'.repeat(65)}`),
      400,
      'API_VALIDATION_ERROR',
    );
    expect(await h.balance('CASH')).toBe(1000);
  });

  it('stores nothing of a payment whose callback cannot be recorded', async () => {
    const h = harness();
    const id = idOf(await create(h, { is_single_use: true }));
    h.ctx.callbacks = {
      enqueue: async () => {
        throw new Error('outbox unavailable');
      },
    };
    coverage.expectError('simulateFixedVirtualAccountPayment', await pay(h, id, { amount: 1000 }), 500, 'SERVER_ERROR');
    expect(await h.balance('CASH')).toBe(0);
    expect((await h.call('GET', `/callback_virtual_accounts/${id}`)).body).toMatchObject({ status: 'ACTIVE' });
    expect(await h.store.list('fixed_virtual_account_payments', { merchantId: 'merchant-a', mode: 'test' })).toEqual(
      [],
    );
  });
});

describe('reads that cannot fail', () => {
  it('answers 500 SERVER_ERROR on the reads when the store fails', async () => {
    const h = harness();
    h.ctx.store.get = async () => {
      throw new Error('disk gone');
    };
    h.ctx.store.findBy = async () => {
      throw new Error('disk gone');
    };
    coverage.expectError(
      'getFixedVirtualAccount',
      await h.call('GET', '/callback_virtual_accounts/x'),
      500,
      'SERVER_ERROR',
    );
    coverage.expectError(
      'getFixedVirtualAccountPayment',
      await h.call('GET', '/callback_virtual_account_payments/payment_id=x'),
      500,
      'SERVER_ERROR',
    );
  });
});

// Last in the file (tests of a file run in order): every code the contract documents for these
// operations was produced above by the condition the contract gives for it.
describe('error coverage', () => {
  it('reached every documented error code of the fixed virtual account operations', () => {
    expect(coverage.missing(OPERATIONS)).toEqual([]);
  });
});
