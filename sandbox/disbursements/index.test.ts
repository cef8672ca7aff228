import { describe, expect, it } from 'vitest';
import { webhookValidators } from '@payments-contract/client/validators/webhooks';
import { createTestSandbox, TEST_MERCHANTS } from '../testing/index.js';
import { asObject, CALLBACK_URL, callerOf, logTransactions, useBench, type KeyName } from './testing.js';

const bca = {
  external_id: 'payout-2026-11-21-0001',
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '1234567890',
  description: 'Komisi penjualan November 2026',
  amount: 17500000,
};
const danamon = {
  external_id: 'payout-2026-11-21-0002',
  bank_code: 'DANAMON',
  account_holder_name: 'Budi Santoso',
  account_number: '003-601-123456',
  description: 'Refund pesanan INV-2026-0417',
  amount: 2450000,
  email_to: ['budi.santoso@example.co.id'],
  email_cc: ['finance@tokoberkah.co.id'],
};

const idOf = (value: unknown): string => String(asObject(value).id);

const bench = useBench();

const create = (body: unknown, options: { key?: KeyName; idempotencyKey?: string } = {}) =>
  bench.call('POST', '/disbursements', {
    key: options.key ?? 'aTest',
    body,
    headers: options.idempotencyKey ? { 'x-idempotency-key': options.idempotencyKey } : {},
  });

describe('createDisbursement', () => {
  it('answers the PENDING disbursement and takes its amount from CASH in the same step', async () => {
    const before = await bench.cash();
    const answer = await create(danamon);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      external_id: danamon.external_id,
      amount: danamon.amount,
      bank_code: 'DANAMON',
      disbursement_description: danamon.description,
      status: 'PENDING',
      user_id: callerOf('aTest').ownerId,
      email_to: danamon.email_to,
      email_cc: danamon.email_cc,
      created: '2026-11-21T09:30:00.000Z',
    });
    expect(asObject(answer.json)).not.toHaveProperty('failure_code');
    expect(asObject(answer.json)).not.toHaveProperty('account_number');
    expect(await bench.cash()).toBe(before - danamon.amount);
    expect(await bench.deliveries()).toEqual([]);
  });

  it('refuses a bank code the catalog does not list with BANK_CODE_NOT_SUPPORTED_ERROR', async () => {
    const answer = await create({ ...danamon, bank_code: 'BANK_XYZ' });
    expect(answer).toMatchObject({ status: 400, json: { error_code: 'BANK_CODE_NOT_SUPPORTED_ERROR' } });
  });

  it('uses the dashboard default description, and without one answers DISBURSEMENT_DESCRIPTION_NOT_FOUND_ERROR', async () => {
    const { description: _left, ...withoutDescription } = danamon;
    const before = await bench.cash();
    expect(await create(withoutDescription)).toMatchObject({
      status: 400,
      json: { error_code: 'DISBURSEMENT_DESCRIPTION_NOT_FOUND_ERROR' },
    });
    expect(await bench.cash()).toBe(before);
    await bench.settings({ default_disbursement_description: 'Pembayaran dari Toko Berkah' });
    expect(await create(withoutDescription)).toMatchObject({
      status: 200,
      json: { disbursement_description: 'Pembayaran dari Toko Berkah' },
    });
  });

  it('answers DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR and changes nothing when CASH is short', async () => {
    const cash = await bench.cash();
    // BCA takes any amount, so only the balance stands in the way.
    expect(await create({ ...bca, amount: cash + 1 })).toMatchObject({
      status: 400,
      json: { error_code: 'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR' },
    });
    expect(await bench.cash()).toBe(cash);
    expect(await bench.call('GET', `/disbursements?external_id=${bca.external_id}`)).toMatchObject({ status: 404 });
    // Exactly the balance is enough.
    expect(await create({ ...bca, amount: cash })).toMatchObject({ status: 200 });
    expect(await bench.cash()).toBe(0);
  });

  it.each([
    ['API_VALIDATION_ERROR', { ...danamon, account_holder_name: undefined, email_to: undefined }],
    ['RECIPIENT_ACCOUNT_NUMBER_ERROR', { ...bca, account_number: '123456789' }],
    ['RECIPIENT_AMOUNT_ERROR', { ...danamon, amount: 9999 }],
    ['MAXIMUM_TRANSFER_LIMIT_ERROR', { ...danamon, amount: 100_000_001 }],
  ])('answers the contract rule %s before anything is created', async (code, body) => {
    const before = await bench.cash();
    expect(await create(body)).toMatchObject({ status: 400, json: { error_code: code } });
    expect(await bench.cash()).toBe(before);
  });

  it('answers INVALID_JSON_FORMAT to a body that does not parse', async () => {
    expect(await create('{"external_id": ')).toMatchObject({
      status: 400,
      json: { error_code: 'INVALID_JSON_FORMAT' },
    });
  });

  it('takes any amount for the banks without limits', async () => {
    expect(await create({ ...bca, amount: 500_000_000 })).toMatchObject({ status: 200, json: { amount: 500_000_000 } });
  });
});

describe('X-IDEMPOTENCY-KEY', () => {
  it('replays the same key and body as DUPLICATE_TRANSACTION_ERROR naming the disbursement, without sending again', async () => {
    const first = await create(danamon, { idempotencyKey: 'disb-key-1' });
    expect(first.status).toBe(200);
    const cash = await bench.cash();
    const again = await create(danamon, { idempotencyKey: 'disb-key-1' });
    expect(again).toMatchObject({ status: 400, json: { error_code: 'DUPLICATE_TRANSACTION_ERROR' } });
    expect(String(asObject(again.json).message)).toContain(idOf(first.json));
    expect(await bench.cash()).toBe(cash);
    const found = await bench.call('GET', `/disbursements?external_id=${danamon.external_id}`);
    expect(found.json).toHaveLength(1);
  });

  it('answers IDEMPOTENCY_KEY_MISMATCH_ERROR to the same key with another body (key order does not count as a difference)', async () => {
    await create(danamon, { idempotencyKey: 'disb-key-2' });
    const reordered = Object.fromEntries(Object.entries(danamon).reverse());
    expect(await create(reordered, { idempotencyKey: 'disb-key-2' })).toMatchObject({
      status: 400,
      json: { error_code: 'DUPLICATE_TRANSACTION_ERROR' },
    });
    expect(await create({ ...danamon, external_id: 'payout-other' }, { idempotencyKey: 'disb-key-2' })).toMatchObject({
      status: 400,
      json: { error_code: 'IDEMPOTENCY_KEY_MISMATCH_ERROR' },
    });
    expect(await bench.call('GET', '/disbursements?external_id=payout-other')).toMatchObject({ status: 404 });
  });

  it('creates exactly one disbursement from concurrent requests with one key', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(bca, { idempotencyKey: 'disb-key-3' })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => asObject(answer.json).error_code === 'DUPLICATE_TRANSACTION_ERROR')).toHaveLength(
      9,
    );
    expect((await bench.call('GET', `/disbursements?external_id=${bca.external_id}`)).json).toHaveLength(1);
  });

  it("asks for CASH and the key's record together, not one after the other (one round trip under the lock)", async () => {
    const logging = logTransactions(bench.ctx.store);
    try {
      expect((await create(bca, { idempotencyKey: 'disb-key-together' })).status).toBe(200);
    } finally {
      logging.restore();
    }
    const [creation] = logging.transactions;
    expect(creation?.slice(0, 2).sort()).toEqual([
      'asked findBy sandbox_idempotency_keys',
      'asked get sandbox_balances',
    ]);
  });

  it('takes a key of up to 1000 characters and refuses a longer one with API_VALIDATION_ERROR, creating nothing', async () => {
    const longest = 'k'.repeat(1000);
    expect((await create({ ...bca, external_id: 'payout-key-1000' }, { idempotencyKey: longest })).status).toBe(200);
    const refused = await create({ ...bca, external_id: 'payout-key-1001' }, { idempotencyKey: `${longest}k` });
    expect(refused).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR', errors: [{ location: 'header', keyword: 'maxLength' }] },
    });
    expect((await bench.call('GET', '/disbursements?external_id=payout-key-1001')).status).toBe(404);
  });

  it('keeps keys per merchant and mode', async () => {
    expect((await create(danamon, { idempotencyKey: 'shared-key' })).status).toBe(200);
    expect((await create(danamon, { key: 'aLive', idempotencyKey: 'shared-key' })).status).toBe(200);
    expect((await create(danamon, { key: 'bTest', idempotencyKey: 'shared-key' })).status).toBe(200);
  });

  it('does not use up a key on a request refused for its own content; a refusal for the balance is remembered', async () => {
    expect(await create({ ...danamon, bank_code: 'BANK_XYZ' }, { idempotencyKey: 'disb-key-4' })).toMatchObject({
      status: 400,
      json: { error_code: 'BANK_CODE_NOT_SUPPORTED_ERROR' },
    });
    expect((await create(danamon, { idempotencyKey: 'disb-key-4' })).status).toBe(200);

    const short = { ...bca, amount: (await bench.cash()) + 1 };
    expect(await create(short, { idempotencyKey: 'disb-key-5' })).toMatchObject({
      status: 400,
      json: { error_code: 'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR' },
    });
    const replay = await create(short, { idempotencyKey: 'disb-key-5' });
    expect(replay).toMatchObject({ status: 400, json: { error_code: 'DUPLICATE_TRANSACTION_ERROR' } });
    expect(String(asObject(replay.json).message)).toContain('refused');
  });
});

describe('getDisbursement and listDisbursementsByExternalId', () => {
  it('finds a disbursement by id and by external id, newest first (decision list-order)', async () => {
    const first = await create(danamon);
    const second = await create(danamon);
    const third = await create(danamon);
    expect(await bench.call('GET', `/disbursements/${idOf(first.json)}`)).toEqual({ status: 200, json: first.json });
    const found = await bench.call('GET', `/disbursements?external_id=${danamon.external_id}`);
    expect(found).toEqual({ status: 200, json: [third.json, second.json, first.json] });
  });

  it('answers DIRECT_DISBURSEMENT_NOT_FOUND_ERROR for an unknown id and an unknown external id', async () => {
    expect(await bench.call('GET', '/disbursements/5f6ee8de3a733c1d2e1a1b00')).toMatchObject({
      status: 404,
      json: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR' },
    });
    expect(await bench.call('GET', '/disbursements?external_id=payout-none')).toMatchObject({
      status: 404,
      json: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR' },
    });
  });

  it("answers INVALID_PERMISSION_ERROR for another merchant's disbursement, and 404 in the other mode", async () => {
    const id = idOf((await create(danamon)).json);
    expect(await bench.call('GET', `/disbursements/${id}`, { key: 'bTest' })).toMatchObject({
      status: 403,
      json: { error_code: 'INVALID_PERMISSION_ERROR' },
    });
    expect(await bench.call('GET', `/disbursements/${id}`, { key: 'aLive' })).toMatchObject({
      status: 404,
      json: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR' },
    });
    expect(
      await bench.call('GET', `/disbursements?external_id=${danamon.external_id}`, { key: 'bTest' }),
    ).toMatchObject({ status: 404 });
  });

  it('answers INVALID_JSON_FORMAT to a GET that carries a body which is not JSON (decision get-disbursement-invalid-json)', async () => {
    const id = idOf((await create(danamon)).json);
    // Request objects refuse a GET body, so a plain object with what the router reads stands in for one, as a
    // runtime that passes such a body on would hand it over.
    const body = new Request('http://sandbox.test', { method: 'POST', body: '{"broken": ' }).body;
    const getWithBody = {
      method: 'GET',
      url: `http://sandbox.test/disbursements/${id}`,
      headers: new Headers({ authorization: bench.authorization(), 'content-type': 'application/json' }),
      body,
    } as unknown as Request;
    const response = await bench.service(getWithBody);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error_code: 'INVALID_JSON_FORMAT' });
    // Without a body the same GET is answered as usual.
    expect(await bench.call('GET', `/disbursements/${id}`)).toMatchObject({ status: 200 });
  });

  it('answers API_VALIDATION_ERROR to a lookup without external_id', async () => {
    expect(await bench.call('GET', '/disbursements')).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR' },
    });
  });
});

describe('the bank answers (control API)', () => {
  const validCallback = (payload: unknown): boolean => webhookValidators.disbursementFinished(payload);

  it('completes a PENDING disbursement and sends disbursement.finished to the dashboard URL', async () => {
    const created = await create(danamon);
    const id = idOf(created.json);
    const cash = await bench.cash();
    await bench.advance(60_000);
    const answer = await bench.call('POST', `/sandbox/disbursements/${id}/complete`);
    expect(answer).toMatchObject({
      status: 200,
      json: { id, status: 'COMPLETED', updated: '2026-11-21T09:31:00.000Z', created: '2026-11-21T09:30:00.000Z' },
    });
    expect(await bench.call('GET', `/disbursements/${id}`)).toEqual(answer);
    expect(await bench.cash()).toBe(cash);
    const [delivery, ...others] = await bench.deliveries();
    expect(others).toEqual([]);
    expect(delivery).toMatchObject({ webhook: 'disbursementFinished', url: CALLBACK_URL, state: 'pending' });
    expect(delivery?.payload).toMatchObject({
      id,
      disbursement_id: id,
      status: 'COMPLETED',
      is_instant: true,
      email_to: danamon.email_to,
      amount: danamon.amount,
    });
    expect(delivery?.payload).not.toHaveProperty('failure_code');
    expect(validCallback(delivery?.payload)).toBe(true);
  });

  it('completes with is_instant false when asked', async () => {
    const id = idOf((await create(bca)).json);
    expect(
      (await bench.call('POST', `/sandbox/disbursements/${id}/complete`, { body: { is_instant: false } })).status,
    ).toBe(200);
    expect((await bench.deliveries())[0]?.payload).toMatchObject({ is_instant: false });
  });

  it('fails a PENDING disbursement with the failure code, returns the amount to CASH and sends the callback', async () => {
    const before = await bench.cash();
    const id = idOf((await create(danamon)).json);
    const answer = await bench.call('POST', `/sandbox/disbursements/${id}/fail`, {
      body: { failure_code: 'INVALID_DESTINATION' },
    });
    expect(answer).toMatchObject({ status: 200, json: { id, status: 'FAILED', failure_code: 'INVALID_DESTINATION' } });
    expect(await bench.cash()).toBe(before);
    expect((await bench.call('GET', `/disbursements?external_id=${danamon.external_id}`)).json).toEqual([answer.json]);
    const [delivery] = await bench.deliveries();
    expect(delivery?.payload).toMatchObject({
      id,
      status: 'FAILED',
      failure_code: 'INVALID_DESTINATION',
      is_instant: false,
    });
    expect(validCallback(delivery?.payload)).toBe(true);
  });

  it('answers SANDBOX_STATE_CONFLICT to a disbursement that is already final, and changes nothing', async () => {
    const id = idOf((await create(danamon)).json);
    await bench.call('POST', `/sandbox/disbursements/${id}/complete`);
    const cash = await bench.cash();
    expect(
      await bench.call('POST', `/sandbox/disbursements/${id}/fail`, { body: { failure_code: 'REJECTED_BY_BANK' } }),
    ).toMatchObject({ status: 409, json: { error_code: 'SANDBOX_STATE_CONFLICT' } });
    expect(await bench.call('POST', `/sandbox/disbursements/${id}/complete`)).toMatchObject({
      status: 409,
      json: { error_code: 'SANDBOX_STATE_CONFLICT' },
    });
    expect(await bench.cash()).toBe(cash);
    expect(await bench.deliveries()).toHaveLength(1);
  });

  it("answers DIRECT_DISBURSEMENT_NOT_FOUND_ERROR for an unknown id and for another merchant's or mode's disbursement", async () => {
    const id = idOf((await create(danamon)).json);
    for (const key of ['bTest', 'aLive'] as const) {
      expect(await bench.call('POST', `/sandbox/disbursements/${id}/complete`, { key })).toMatchObject({
        status: 404,
        json: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR' },
      });
      expect(
        await bench.call('POST', `/sandbox/disbursements/${id}/fail`, {
          key,
          body: { failure_code: 'TRANSFER_ERROR' },
        }),
      ).toMatchObject({ status: 404 });
    }
    expect((await bench.call('GET', `/disbursements/${id}`)).json).toMatchObject({ status: 'PENDING' });
  });

  it('answers API_VALIDATION_ERROR to a failure code outside DisbursementFailureCode, and INVALID_JSON_FORMAT to a broken body', async () => {
    const id = idOf((await create(danamon)).json);
    expect(
      await bench.call('POST', `/sandbox/disbursements/${id}/fail`, { body: { failure_code: 'BANK_ON_FIRE' } }),
    ).toMatchObject({ status: 400, json: { error_code: 'API_VALIDATION_ERROR' } });
    expect(await bench.call('POST', `/sandbox/disbursements/${id}/fail`, { body: {} })).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(
      await bench.call('POST', `/sandbox/disbursements/${id}/complete`, { body: { is_instant: 'yes' } }),
    ).toMatchObject({ status: 400, json: { error_code: 'API_VALIDATION_ERROR' } });
    expect(await bench.call('POST', `/sandbox/disbursements/${id}/complete`, { body: '{' })).toMatchObject({
      status: 400,
      json: { error_code: 'INVALID_JSON_FORMAT' },
    });
    expect(await bench.call('POST', `/sandbox/disbursements/${id}/fail`, { body: '{' })).toMatchObject({
      status: 400,
      json: { error_code: 'INVALID_JSON_FORMAT' },
    });
  });

  it('records the callback as undeliverable, not lost, when no URL is configured', async () => {
    await bench.settings({ callback_urls: { disbursement_callback_url: null } });
    const id = idOf((await create(danamon)).json);
    expect((await bench.call('POST', `/sandbox/disbursements/${id}/complete`)).status).toBe(200);
    expect(await bench.deliveries()).toMatchObject([{ webhook: 'disbursementFinished', url: null }]);
  });
});

describe('delivery to the merchant', () => {
  it("sends disbursement.finished and ewallet.payment to the dashboard URL with the mode's callback token", async () => {
    const sandbox = await createTestSandbox();
    try {
      const created = await sandbox.request('POST', '/disbursements', { body: danamon });
      await sandbox.request('POST', `/sandbox/disbursements/${idOf(created.body)}/fail`, {
        body: { failure_code: 'SWITCHING_NETWORK_ERROR' },
      });
      await sandbox.request('POST', '/ewallets', {
        body: { external_id: 'order-2026-11-21-7790', amount: 48000, phone: '081234567890', ewallet_type: 'OVO' },
      });
      const received = await sandbox.waitForCallbacks(2);
      const token = TEST_MERCHANTS.a.callbackTokens.test;
      const disbursement = received.find((callback) => asObject(callback.body).id === idOf(created.body));
      const ewallet = received.find((callback) => asObject(callback.body).event === 'ewallet.payment');
      expect(disbursement).toMatchObject({
        url: CALLBACK_URL,
        headers: { 'x-callback-token': token },
        body: { status: 'FAILED', failure_code: 'SWITCHING_NETWORK_ERROR' },
      });
      expect(ewallet).toMatchObject({
        url: CALLBACK_URL,
        headers: { 'x-callback-token': token },
        body: { status: 'COMPLETED', amount: 48000 },
      });
      expect(webhookValidators.disbursementFinished(disbursement?.body)).toBe(true);
      expect(webhookValidators.ewalletPayment(ewallet?.body)).toBe(true);
      expect(sandbox.routerErrors).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
