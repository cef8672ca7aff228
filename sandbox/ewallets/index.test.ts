import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { webhookValidators } from '@payments-contract/client/validators/webhooks';
import { CALLBACK_URL, callerOf, useBench, type KeyName } from '../disbursements/testing.js';
import { openapiPath } from '@payments-contract/contract';

const payment = { external_id: 'order-2026-11-21-7781', amount: 125000, phone: '081234567890', ewallet_type: 'OVO' };

// The test-mode table as the contract states it, read here independently of the module under test.
const contract = JSON.parse(readFileSync(openapiPath, 'utf8')) as {
  paths: {
    '/ewallets': { post: { 'x-test-mode': { outcomes: { amount: number; status: string; failure_code: string }[] } } };
  };
};
const testAmounts = contract.paths['/ewallets'].post['x-test-mode'].outcomes;

const bench = useBench();

const create = (body: unknown, key: KeyName = 'aTest') => bench.call('POST', '/ewallets', { key, body });
const status = (externalId: string, key: KeyName = 'aTest') =>
  bench.call('GET', `/ewallets?external_id=${externalId}&ewallet_type=OVO`, { key });
const validCallback = (payload: unknown): boolean => webhookValidators.ewalletPayment(payload);

describe('createEwalletPayment', () => {
  it('answers PENDING, then completes any unlisted amount at once: CASH credited and ewallet.payment sent', async () => {
    const before = await bench.cash();
    const answer = await create(payment);
    expect(answer).toEqual({
      status: 200,
      json: {
        business_id: callerOf('aTest').ownerId,
        external_id: payment.external_id,
        amount: 125000,
        phone: payment.phone,
        ewallet_type: 'OVO',
        status: 'PENDING',
        created: '2026-11-21T09:30:00.000Z',
      },
    });
    expect(await status(payment.external_id)).toEqual({
      status: 200,
      json: {
        amount: 125000,
        external_id: payment.external_id,
        transaction_date: '2026-11-21T09:30:00.000Z',
        business_id: callerOf('aTest').ownerId,
        ewallet_type: 'OVO',
        status: 'COMPLETED',
      },
    });
    expect(await bench.cash()).toBe(before + 125000);
    const [delivery, ...others] = await bench.deliveries();
    expect(others).toEqual([]);
    expect(delivery).toMatchObject({ webhook: 'ewalletPayment', url: CALLBACK_URL });
    expect(delivery?.payload).toMatchObject({
      event: 'ewallet.payment',
      external_id: payment.external_id,
      status: 'COMPLETED',
      amount: 125000,
      phone: payment.phone,
      created: '2026-11-21T09:30:00.000Z',
    });
    expect(delivery?.payload).not.toHaveProperty('failure_code');
    expect(validCallback(delivery?.payload)).toBe(true);
  });

  it.each(testAmounts)(
    'ends amount $amount $status with $failure_code, as x-test-mode says, crediting nothing',
    async ({ amount, status: expected, failure_code }) => {
      const before = await bench.cash();
      const externalId = `test-${amount}`;
      expect((await create({ ...payment, external_id: externalId, amount })).json).toMatchObject({ status: 'PENDING' });
      expect((await status(externalId)).json).toMatchObject({ status: expected });
      expect(await bench.cash()).toBe(before);
      const [delivery] = await bench.deliveries();
      expect(delivery?.payload).toMatchObject({ status: expected, failure_code, amount });
      expect(validCallback(delivery?.payload)).toBe(true);
    },
  );

  it('lists ten failing test amounts, 80002 to 80011', () => {
    expect(testAmounts.map((outcome) => outcome.amount)).toEqual([
      80002, 80003, 80004, 80005, 80006, 80007, 80008, 80009, 80010, 80011,
    ]);
  });

  it('answers DUPLICATE_PAYMENT_REQUEST_ERROR to an external_id used before, whatever its outcome, within the merchant and mode', async () => {
    await create({ ...payment, amount: 80005 });
    expect(await create(payment)).toMatchObject({
      status: 400,
      json: { error_code: 'DUPLICATE_PAYMENT_REQUEST_ERROR' },
    });
    expect(await bench.deliveries()).toHaveLength(1);
    expect((await create(payment, 'bTest')).status).toBe(200);
    expect((await create(payment, 'aLive')).status).toBe(200);
  });

  it('accepts the same payment as a form', async () => {
    const form = new URLSearchParams({ ...payment, amount: '125000' }).toString();
    const answer = await bench.call('POST', '/ewallets', {
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(answer).toMatchObject({ status: 200, json: { amount: 125000, status: 'PENDING' } });
  });

  it.each([
    ['API_VALIDATION_ERROR', { ...payment, phone: '+6281234567890' }],
    ['EWALLET_TYPE_NOT_SUPPORTED', { ...payment, ewallet_type: 'DANA' }],
  ])('answers 422 %s to a body that breaks the schema', async (code, body) => {
    expect(await create(body)).toMatchObject({ status: 422, json: { error_code: code } });
    expect(await bench.deliveries()).toEqual([]);
  });

  it('answers 400 INVALID_JSON_FORMAT to a body that does not parse', async () => {
    expect(await create('{"amount": 1')).toMatchObject({ status: 400, json: { error_code: 'INVALID_JSON_FORMAT' } });
  });

  it('lets live mode ignore the test amounts: the end user approves', async () => {
    await create({ ...payment, amount: 80005 }, 'aLive');
    expect((await status(payment.external_id, 'aLive')).json).toMatchObject({ status: 'COMPLETED' });
  });

  it('leaves the payment PENDING, with nothing sent, when ewallet_auto_resolve is off', async () => {
    await bench.settings({ ewallet_auto_resolve: false });
    await create({ ...payment, amount: 80005 });
    expect((await status(payment.external_id)).json).toMatchObject({
      status: 'PENDING',
      transaction_date: '2026-11-21T09:30:00.000Z',
    });
    expect(await bench.deliveries()).toEqual([]);
  });
});

describe('getEwalletPaymentStatus', () => {
  it("answers PAYMENT_NOT_FOUND_ERROR for an unknown external_id and for another merchant's or mode's payment", async () => {
    await create(payment);
    expect(await status('order-none')).toMatchObject({ status: 404, json: { error_code: 'PAYMENT_NOT_FOUND_ERROR' } });
    expect(await status(payment.external_id, 'bTest')).toMatchObject({
      status: 404,
      json: { error_code: 'PAYMENT_NOT_FOUND_ERROR' },
    });
    expect(await status(payment.external_id, 'aLive')).toMatchObject({ status: 404 });
  });

  it('answers 400 API_VALIDATION_ERROR to a missing or unsupported ewallet_type', async () => {
    expect(await bench.call('GET', `/ewallets?external_id=${payment.external_id}`)).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(await bench.call('GET', `/ewallets?external_id=${payment.external_id}&ewallet_type=DANA`)).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR' },
    });
  });
});

describe('approve and decline (control API)', () => {
  const target = { external_id: payment.external_id, ewallet_type: 'OVO' };
  beforeEach(async () => {
    await bench.settings({ ewallet_auto_resolve: false });
  });

  it('approves a PENDING payment: COMPLETED whatever the amount, CASH credited, callback sent', async () => {
    await create({ ...payment, amount: 80005 });
    const before = await bench.cash();
    await bench.advance(14_000);
    const answer = await bench.call('POST', '/sandbox/ewallets/approve', { body: target });
    expect(answer).toMatchObject({
      status: 200,
      json: { status: 'COMPLETED', transaction_date: '2026-11-21T09:30:14.000Z', amount: 80005 },
    });
    expect(await status(payment.external_id)).toEqual(answer);
    expect(await bench.cash()).toBe(before + 80005);
    const [delivery] = await bench.deliveries();
    expect(delivery?.payload).toMatchObject({ status: 'COMPLETED', created: '2026-11-21T09:30:00.000Z' });
    expect(validCallback(delivery?.payload)).toBe(true);
  });

  it('declines a PENDING payment with the failure code given, crediting nothing', async () => {
    await create(payment);
    const before = await bench.cash();
    const answer = await bench.call('POST', '/sandbox/ewallets/decline', {
      body: { ...target, failure_code: 'USER_DID_NOT_AUTHORIZE_THE_PAYMENT' },
    });
    expect(answer).toMatchObject({
      status: 200,
      json: { status: 'FAILED', transaction_date: '2026-11-21T09:30:00.000Z' },
    });
    expect(await bench.cash()).toBe(before);
    const [delivery] = await bench.deliveries();
    expect(delivery?.payload).toMatchObject({ status: 'FAILED', failure_code: 'USER_DID_NOT_AUTHORIZE_THE_PAYMENT' });
    expect(validCallback(delivery?.payload)).toBe(true);
  });

  it('answers SANDBOX_STATE_CONFLICT to a payment that has ended, and changes nothing', async () => {
    await create(payment);
    await bench.call('POST', '/sandbox/ewallets/approve', { body: target });
    const cash = await bench.cash();
    expect(await bench.call('POST', '/sandbox/ewallets/approve', { body: target })).toMatchObject({
      status: 409,
      json: { error_code: 'SANDBOX_STATE_CONFLICT' },
    });
    expect(
      await bench.call('POST', '/sandbox/ewallets/decline', { body: { ...target, failure_code: 'EXTERNAL_ERROR' } }),
    ).toMatchObject({ status: 409, json: { error_code: 'SANDBOX_STATE_CONFLICT' } });
    expect(await bench.cash()).toBe(cash);
    expect(await bench.deliveries()).toHaveLength(1);
  });

  it('answers SANDBOX_STATE_CONFLICT to a payment the test amount already ended', async () => {
    await bench.settings({ ewallet_auto_resolve: true });
    await create(payment);
    expect(
      await bench.call('POST', '/sandbox/ewallets/decline', { body: { ...target, failure_code: 'EXTERNAL_ERROR' } }),
    ).toMatchObject({ status: 409 });
  });

  it("answers PAYMENT_NOT_FOUND_ERROR for an unknown payment and for another merchant's", async () => {
    await create(payment);
    expect(
      await bench.call('POST', '/sandbox/ewallets/approve', { body: { ...target, external_id: 'order-none' } }),
    ).toMatchObject({ status: 404, json: { error_code: 'PAYMENT_NOT_FOUND_ERROR' } });
    expect(
      await bench.call('POST', '/sandbox/ewallets/decline', {
        key: 'bTest',
        body: { ...target, failure_code: 'EXTERNAL_ERROR' },
      }),
    ).toMatchObject({ status: 404, json: { error_code: 'PAYMENT_NOT_FOUND_ERROR' } });
    expect((await status(payment.external_id)).json).toMatchObject({ status: 'PENDING' });
  });

  it('answers API_VALIDATION_ERROR to a failure code outside EwalletFailureCode or a missing field, INVALID_JSON_FORMAT to a broken body', async () => {
    await create(payment);
    expect(
      await bench.call('POST', '/sandbox/ewallets/decline', { body: { ...target, failure_code: 'USER_FELL_ASLEEP' } }),
    ).toMatchObject({ status: 400, json: { error_code: 'API_VALIDATION_ERROR' } });
    expect(
      await bench.call('POST', '/sandbox/ewallets/approve', { body: { external_id: payment.external_id } }),
    ).toMatchObject({ status: 400, json: { error_code: 'API_VALIDATION_ERROR' } });
    expect(await bench.call('POST', '/sandbox/ewallets/approve', { body: '{' })).toMatchObject({
      status: 400,
      json: { error_code: 'INVALID_JSON_FORMAT' },
    });
    expect(await bench.call('POST', '/sandbox/ewallets/decline', { body: '{' })).toMatchObject({
      status: 400,
      json: { error_code: 'INVALID_JSON_FORMAT' },
    });
  });
});
