import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scopeOf, TEST_MERCHANTS, type TestKeyName, type TestSandbox } from '../testing/index.js';
import { OTP_LIFETIME_MS } from './otp.js';
import { maskMobileNumber, requestFingerprint } from './payments.js';
import { COLLECTIONS } from './records.js';
import {
  CALLBACK_URL,
  cash,
  closeSandbox,
  codeOf,
  deliveries,
  linkCard,
  openSandbox,
  paymentRequest,
  START,
} from './testing.js';
import { openapiPath } from '@payments-contract/contract';

let sandbox: TestSandbox;
beforeEach(async () => void (sandbox = await openSandbox()));
afterEach(() => closeSandbox(sandbox));

let keys = 0;
const newKey = (): string => `idem-${++keys}`;

async function createPayment(
  paymentMethodId: string,
  overrides: Parameters<typeof paymentRequest>[1] = {},
  key: TestKeyName = 'aTest',
) {
  const result = await sandbox
    .service(key)
    .createDirectDebitPayment({ idempotencyKey: newKey(), body: paymentRequest(paymentMethodId, overrides) });
  if (!result.ok) throw new Error(`creation refused: ${result.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

const validate = (id: string, otp_code: string, key: TestKeyName = 'aTest') =>
  sandbox.service(key).validateDirectDebitPaymentOtp({ path: { id }, body: { otp_code } });
const payments = () => sandbox.ctx.store.list(COLLECTIONS.payments, scopeOf('aTest'));
/** Leaves the bank's outcome to the control API, as tests of what happens in between need (automatic-outcomes.test.ts tests the other way). */
const manualOutcomes = () => sandbox.ctx.settings.update(scopeOf('aTest'), { direct_debit_auto_resolve: false });

/** The contract's direct debit failure codes, read from the bundled document. */
function failureCodes(): string[] {
  const doc = JSON.parse(readFileSync(openapiPath, 'utf8')) as {
    components: { schemas: { DirectDebitFailureCode: { enum: string[] } } };
  };
  return doc.components.schemas.DirectDebitFailureCode.enum;
}

/** The payload field of the queued callbacks. */
const payloadField = (field: string) => async (): Promise<unknown[]> =>
  (await deliveries(sandbox)).map((d) =>
    d.payload !== null && typeof d.payload === 'object' && !Array.isArray(d.payload) ? d.payload[field] : undefined,
  );

describe('createDirectDebitPayment', () => {
  it('creates a PENDING payment without OTP: is_otp_required false and empty OTP fields', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId);
    expect(payment).toMatchObject({
      reference_id: 'INV-2026-11-000184',
      channel_code: 'DC_BRI',
      payment_method_id: paymentMethodId,
      currency: 'IDR',
      amount: 99000,
      description: 'Langganan bulanan November',
      status: 'PENDING',
      basket: null,
      failure_code: null,
      is_otp_required: false,
      otp_mobile_number: '',
      otp_expiration_timestamp: '',
      created: START,
      updated: null,
      metadata: { order_channel: 'mobile_app', branch_id: 17 },
    });
    expect(payment.id).toMatch(/^ddpy-/);
  });

  it('with enable_otp: the masked number of the card and an OTP valid for 5 minutes; amounts above the no-OTP limit allowed', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { enable_otp: true, amount: 1500000 });
    expect(payment).toMatchObject({
      is_otp_required: true,
      otp_mobile_number: '+62812*****890',
      otp_expiration_timestamp: new Date(Date.parse(START) + OTP_LIFETIME_MS).toISOString(),
    });
  });

  it('leaves the no-OTP amount limit and the body format to the schema: API_VALIDATION_ERROR, INVALID_JSON_FORMAT', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const headers = { 'idempotency-key': newKey() };
    expect(
      await sandbox.request('POST', '/direct_debits', {
        headers,
        body: JSON.stringify(paymentRequest(paymentMethodId, { amount: 1000000 })),
      }),
    ).toMatchObject({ status: 400, body: { error_code: 'API_VALIDATION_ERROR' } });
    expect(await sandbox.request('POST', '/direct_debits', { headers, body: '{"amount": 1' })).toMatchObject({
      status: 400,
      body: { error_code: 'INVALID_JSON_FORMAT' },
    });
  });

  it('answers PAYMENT_METHOD_NOT_FOUND_ERROR for an unknown method and for one of another merchant or mode', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    for (const [key, id] of [
      ['aTest', 'pm-000000000000000000000000'],
      ['bTest', paymentMethodId],
      ['aLive', paymentMethodId],
    ] as const) {
      const result = await sandbox
        .service(key)
        .createDirectDebitPayment({ idempotencyKey: newKey(), body: paymentRequest(id) });
      expect(codeOf(result)).toBe('PAYMENT_METHOD_NOT_FOUND_ERROR');
      expect(result.status).toBe(400);
    }
  });

  it('answers 503 INVALID_PAYMENT_METHOD_ERROR for an EXPIRED method, without storing the key (decision idempotency-key-reuse)', async () => {
    const { paymentMethodId } = await linkCard(sandbox, { expiry: '11/26' });
    await sandbox.advance(Date.parse('2026-12-01T00:00:00.000Z') - Date.parse(START));
    const request = { idempotencyKey: newKey(), body: paymentRequest(paymentMethodId) };
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await sandbox.service().createDirectDebitPayment(request);
      expect(result.status).toBe(503);
      expect(codeOf(result)).toBe('INVALID_PAYMENT_METHOD_ERROR');
    }
    expect(await payments()).toEqual([]);
  });

  it('replays the same key and body as 409 DUPLICATE_ERROR naming the payment, without a second payment', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const request = { idempotencyKey: newKey(), body: paymentRequest(paymentMethodId) };
    const first = await sandbox.service().createDirectDebitPayment(request);
    if (!first.ok) return expect.fail(`expected 200, got ${first.status}`);
    // The same body with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(request.body).reverse()) as typeof request.body;
    const replay = await sandbox.service().createDirectDebitPayment({ ...request, body: reordered });
    expect(replay.status).toBe(409);
    if (replay.status !== 409) return;
    expect(replay.error.error_code).toBe('DUPLICATE_ERROR');
    expect(replay.error.message).toContain(first.data.id);
    expect(await payments()).toHaveLength(1);
  });

  it('answers a key reused with another body with 409 IDEMPOTENCY_KEY_MISMATCH_ERROR', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const idempotencyKey = newKey();
    expect(
      (await sandbox.service().createDirectDebitPayment({ idempotencyKey, body: paymentRequest(paymentMethodId) }))
        .status,
    ).toBe(200);
    const other = await sandbox
      .service()
      .createDirectDebitPayment({ idempotencyKey, body: paymentRequest(paymentMethodId, { amount: 50000 }) });
    expect(other.status).toBe(409);
    expect(codeOf(other)).toBe('IDEMPOTENCY_KEY_MISMATCH_ERROR');
  });

  it('stores a 4xx answer too: the same refused request again is a DUPLICATE_ERROR', async () => {
    const request = { idempotencyKey: newKey(), body: paymentRequest('pm-000000000000000000000000') };
    expect(codeOf(await sandbox.service().createDirectDebitPayment(request))).toBe('PAYMENT_METHOD_NOT_FOUND_ERROR');
    expect(codeOf(await sandbox.service().createDirectDebitPayment(request))).toBe('DUPLICATE_ERROR');
  });

  it('creates one payment from 10 concurrent requests with one key', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const request = { idempotencyKey: newKey(), body: paymentRequest(paymentMethodId) };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => sandbox.service().createDirectDebitPayment(request)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(9).fill(409)]);
    expect(await payments()).toHaveLength(1);
  });

  it('keeps keys per merchant and mode: one key creates a payment in each', async () => {
    const a = await linkCard(sandbox, { key: 'aTest' });
    const live = await linkCard(sandbox, { key: 'aLive' });
    const idempotencyKey = newKey();
    expect(
      (
        await sandbox
          .service('aTest')
          .createDirectDebitPayment({ idempotencyKey, body: paymentRequest(a.paymentMethodId) })
      ).status,
    ).toBe(200);
    expect(
      (
        await sandbox
          .service('aLive')
          .createDirectDebitPayment({ idempotencyKey, body: paymentRequest(live.paymentMethodId) })
      ).status,
    ).toBe(200);
  });
});

describe('validateDirectDebitPaymentOtp', () => {
  it('accepts 222000: the payment stays PENDING, and validating again answers it as it is', async () => {
    await manualOutcomes();
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { enable_otp: true });
    await sandbox.advance(60_000);
    const accepted = await validate(payment.id, '222000');
    if (!accepted.ok) return expect.fail(`expected 200, got ${accepted.status}`);
    expect(accepted.data).toMatchObject({ status: 'PENDING', updated: '2026-11-21T09:31:00.000Z' });
    // After acceptance no code is judged any more, not even after the OTP's lifetime.
    await sandbox.advance(OTP_LIFETIME_MS);
    const again = await validate(payment.id, '999999');
    expect(again.ok && again.data).toEqual(accepted.data);
    expect(await deliveries(sandbox)).toEqual([]);
  });

  it('fails the payment on the third wrong code (MAX_OTP_ATTEMPTS_ERROR) with a callback whose failure_code is null', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { enable_otp: true });
    const codes = [];
    for (const otp of ['000001', '000002', '000003', '222000']) codes.push(codeOf(await validate(payment.id, otp)));
    expect(codes).toEqual([
      'INVALID_OTP_ERROR',
      'INVALID_OTP_ERROR',
      'MAX_OTP_ATTEMPTS_ERROR',
      'DIRECT_DEBIT_ALREADY_FAILED',
    ]);
    const [delivery] = await deliveries(sandbox);
    expect(delivery).toMatchObject({
      webhook: 'directDebitPayment',
      url: CALLBACK_URL,
      payload: { event: 'direct_debit.payment', id: payment.id, status: 'FAILED', failure_code: null },
    });
    const stored = await sandbox.service().getDirectDebitPayment({ path: { id: payment.id } });
    expect(stored.ok && [stored.data.status, stored.data.failure_code]).toEqual(['FAILED', null]);
  });

  it('fails the payment with the test codes 222001 (EXPIRED_OTP_ERROR) and 222002 (MAX_OTP_ATTEMPTS_ERROR), each with its callback', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    for (const [otp, code] of [
      ['222001', 'EXPIRED_OTP_ERROR'],
      ['222002', 'MAX_OTP_ATTEMPTS_ERROR'],
    ] as const) {
      const payment = await createPayment(paymentMethodId, { enable_otp: true });
      expect(codeOf(await validate(payment.id, otp))).toBe(code);
      expect((await payloadField('id')()).filter((id) => id === payment.id)).toHaveLength(1);
    }
  });

  it('expires the OTP 5 minutes after creation, by the sandbox clock, even for the success code', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { enable_otp: true });
    await sandbox.advance(OTP_LIFETIME_MS + 1);
    expect(codeOf(await validate(payment.id, '222000'))).toBe('EXPIRED_OTP_ERROR');
    expect(await deliveries(sandbox)).toHaveLength(1);
  });

  it('answers INVALID_OTP_ERROR for a payment created without OTP, counting no attempt', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId);
    for (let i = 0; i < 4; i++) expect(codeOf(await validate(payment.id, '222000'))).toBe('INVALID_OTP_ERROR');
    const stored = await sandbox.service().getDirectDebitPayment({ path: { id: payment.id } });
    expect(stored.ok && stored.data.status).toBe('PENDING');
  });

  it('answers 409 DIRECT_DEBIT_ALREADY_COMPLETED once the bank debited the payment', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { enable_otp: true });
    expect((await validate(payment.id, '222000')).status).toBe(200);
    expect((await sandbox.control().completeDirectDebitPayment({ path: { id: payment.id } })).status).toBe(200);
    const result = await validate(payment.id, '222000');
    expect(result.status).toBe(409);
    expect(codeOf(result)).toBe('DIRECT_DEBIT_ALREADY_COMPLETED');
  });

  it('answers 404 DATA_NOT_FOUND_ERROR for an unknown payment and for one of another merchant or mode', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { enable_otp: true });
    for (const [id, key] of [
      ['ddpy-000000000000000000000000', 'aTest'],
      [payment.id, 'bTest'],
      [payment.id, 'aLive'],
    ] as const) {
      const result = await validate(id, '222000', key);
      expect(result.status).toBe(404);
      expect(codeOf(result)).toBe('DATA_NOT_FOUND_ERROR');
    }
  });
});

describe('direct debit lookups', () => {
  it('finds a payment by id, and the newest payment with a reference_id', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const older = await createPayment(paymentMethodId, { reference_id: 'INV-7' });
    await sandbox.advance(1000);
    const newer = await createPayment(paymentMethodId, { reference_id: 'INV-7' });
    const byId = await sandbox.service().getDirectDebitPayment({ path: { id: older.id } });
    expect(byId.ok && byId.data).toEqual(older);
    const byReference = await sandbox
      .service()
      .getDirectDebitPaymentByReferenceId({ query: { reference_id: 'INV-7' } });
    expect(byReference.ok && byReference.data).toEqual(newer);
  });

  it('answers 404 DATA_NOT_FOUND_ERROR for unknown ids and reference ids, and across merchants and modes', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { reference_id: 'INV-8' });
    for (const key of ['bTest', 'aLive'] as const) {
      expect(codeOf(await sandbox.service(key).getDirectDebitPayment({ path: { id: payment.id } }))).toBe(
        'DATA_NOT_FOUND_ERROR',
      );
      expect(
        codeOf(await sandbox.service(key).getDirectDebitPaymentByReferenceId({ query: { reference_id: 'INV-8' } })),
      ).toBe('DATA_NOT_FOUND_ERROR');
    }
    expect(
      codeOf(await sandbox.service().getDirectDebitPaymentByReferenceId({ query: { reference_id: 'INV-404' } })),
    ).toBe('DATA_NOT_FOUND_ERROR');
  });

  it('answers 400 API_VALIDATION_ERROR for an id without ddpy- and a missing reference_id', async () => {
    expect(await sandbox.request('GET', '/direct_debits/123/')).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(await sandbox.request('GET', '/direct_debits')).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR' },
    });
  });
});

describe('control API: the bank completes or declines', () => {
  it("completes a payment without OTP: COMPLETED, CASH credited with the amount, callback to the payment's callback_url", async () => {
    await manualOutcomes();
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId, { amount: 125000 });
    const before = await cash(sandbox);
    await sandbox.advance(5000);
    const result = await sandbox.control().completeDirectDebitPayment({ path: { id: payment.id } });
    if (!result.ok) return expect.fail(`expected 200, got ${result.status}`);
    expect(result.data).toEqual({ ...payment, status: 'COMPLETED', updated: '2026-11-21T09:30:05.000Z' });
    expect((await cash(sandbox)) - before).toBe(125000);
    expect(await deliveries(sandbox)).toEqual([
      expect.objectContaining({
        webhook: 'directDebitPayment',
        url: CALLBACK_URL,
        payload: {
          event: 'direct_debit.payment',
          timestamp: '2026-11-21T09:30:05.000Z',
          id: payment.id,
          reference_id: payment.reference_id,
          channel_code: 'DC_BRI',
          payment_method_id: paymentMethodId,
          currency: 'IDR',
          amount: 125000,
          description: payment.description,
          status: 'COMPLETED',
          failure_code: null,
          metadata: payment.metadata,
        },
      }),
    ]);
  });

  it("declines with each of the contract's failure codes: FAILED with the code, callback carrying it, balance unchanged", async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const codes = failureCodes();
    expect(codes.length).toBeGreaterThan(0);
    const before = await cash(sandbox);
    for (const failure_code of codes) {
      const payment = await createPayment(paymentMethodId, { enable_otp: true });
      expect((await validate(payment.id, '222000')).status).toBe(200);
      const result = await sandbox.service().getDirectDebitPayment({ path: { id: payment.id } });
      expect(result.ok && result.data.status).toBe('PENDING');
      const failed = await sandbox.request('POST', `/sandbox/direct_debits/${payment.id}/fail`, {
        body: JSON.stringify({ failure_code }),
      });
      expect(failed).toMatchObject({ status: 200, body: { id: payment.id, status: 'FAILED', failure_code } });
    }
    expect(await payloadField('failure_code')()).toEqual(codes);
    expect(await cash(sandbox)).toBe(before);
  });

  it('answers 409 SANDBOX_STATE_CONFLICT while the OTP is outstanding and once the payment is final, changing nothing', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const before = await cash(sandbox);
    const waiting = await createPayment(paymentMethodId, { enable_otp: true });
    const completeWaiting = await sandbox.control().completeDirectDebitPayment({ path: { id: waiting.id } });
    expect(completeWaiting.status).toBe(409);
    expect(codeOf(completeWaiting)).toBe('SANDBOX_STATE_CONFLICT');
    const failWaiting = await sandbox
      .control()
      .failDirectDebitPayment({ path: { id: waiting.id }, body: { failure_code: 'INSUFFICIENT_BALANCE' } });
    expect(codeOf(failWaiting)).toBe('SANDBOX_STATE_CONFLICT');

    const done = await createPayment(paymentMethodId);
    expect(
      (
        await sandbox
          .control()
          .failDirectDebitPayment({ path: { id: done.id }, body: { failure_code: 'ACCOUNT_ACCESS_BLOCKED' } })
      ).status,
    ).toBe(200);
    expect(codeOf(await sandbox.control().completeDirectDebitPayment({ path: { id: done.id } }))).toBe(
      'SANDBOX_STATE_CONFLICT',
    );
    expect(await cash(sandbox)).toBe(before);
    expect(await deliveries(sandbox)).toHaveLength(1);
  });

  it("answers 404 DATA_NOT_FOUND_ERROR for an unknown payment or another merchant's, 400 for a bad id, code or body", async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId);
    expect(codeOf(await sandbox.control('bTest').completeDirectDebitPayment({ path: { id: payment.id } }))).toBe(
      'DATA_NOT_FOUND_ERROR',
    );
    expect(
      codeOf(
        await sandbox.control().failDirectDebitPayment({
          path: { id: 'ddpy-000000000000000000000000' },
          body: { failure_code: 'CHANNEL_UNAVAILABLE' },
        }),
      ),
    ).toBe('DATA_NOT_FOUND_ERROR');
    expect(await sandbox.request('POST', '/sandbox/direct_debits/123/complete')).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(
      await sandbox.request('POST', `/sandbox/direct_debits/${payment.id}/fail`, {
        body: '{"failure_code":"EXPIRED_OTP_ERROR"}',
      }),
    ).toMatchObject({ status: 400, body: { error_code: 'API_VALIDATION_ERROR' } });
    expect(await sandbox.request('POST', `/sandbox/direct_debits/${payment.id}/fail`, { body: '{' })).toMatchObject({
      status: 400,
      body: { error_code: 'INVALID_JSON_FORMAT' },
    });
  });
});

describe('the direct_debit.payment callback', () => {
  it("reaches the payment's callback_url with the merchant's callback token for the mode", async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const payment = await createPayment(paymentMethodId);
    await sandbox
      .control()
      .failDirectDebitPayment({ path: { id: payment.id }, body: { failure_code: 'MAX_AMOUNT_LIMIT_ERROR' } });
    const received = await sandbox.waitForCallback((callback) => callback.url === CALLBACK_URL);
    expect(received.headers['x-callback-token']).toBe(TEST_MERCHANTS.a.callbackTokens.test);
    expect(received.body).toMatchObject({
      event: 'direct_debit.payment',
      id: payment.id,
      status: 'FAILED',
      failure_code: 'MAX_AMOUNT_LIMIT_ERROR',
    });
  });
});

describe('helpers', () => {
  it.each([
    ['+6281234567890', '+62812*****890'],
    ['081234567', '081***567'],
    ['1234', '*234'],
    ['', ''],
  ])('masks %s as %s', (number, masked) => {
    expect(maskMobileNumber(number)).toBe(masked);
  });

  it('fingerprints a body independently of key order, and tells different bodies apart', () => {
    expect(requestFingerprint({ a: 1, b: { c: [1, 2], d: null } })).toBe(
      requestFingerprint({ b: { d: null, c: [1, 2] }, a: 1 }),
    );
    expect(requestFingerprint({ a: 1 })).not.toBe(requestFingerprint({ a: 2 }));
  });
});
