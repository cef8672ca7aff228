import { describe, expect, it } from 'vitest';
import { webhookMetadata } from '@payments-contract/client/webhooks';
import { bodyField, createHarness, errorCoverage, KEYS, START, type Answer, type Harness } from '../balance/testing.js';
import { collections, fixedPaymentCodeControlHandlers, fixedPaymentCodeHandlers } from './index.js';

const HOUR = 60 * 60 * 1000;
const harness = (): Harness =>
  createHarness((ctx) => ({ ...fixedPaymentCodeHandlers(ctx), ...fixedPaymentCodeControlHandlers(ctx) }), collections);
const coverage = errorCoverage();
const OPERATIONS = [
  'createFixedPaymentCode',
  'getFixedPaymentCode',
  'updateFixedPaymentCode',
  'simulateFixedPaymentCodePayment',
] as const;
const paidUrl = `https://merchant.example/callbacks/${webhookMetadata.fixedPaymentCodePaid.delivery.destination.dashboard_setting}`;

const create = (h: Harness, body: Record<string, unknown>, key?: string) =>
  h.call('POST', '/fixed_payment_code', {
    json: {
      external_id: 'fpc-pelanggan-dewi-0007',
      retail_outlet_name: 'ALFAMART',
      name: 'Dewi Lestari',
      expected_amount: 125000,
      ...body,
    },
    ...(key ? { key } : {}),
  });
const update = (h: Harness, id: string, body: unknown, key?: string | null) =>
  h.call('PATCH', `/fixed_payment_code/${id}`, { json: body, ...(key === undefined ? {} : { key }) });
const pay = (h: Harness, id: string, body?: unknown) =>
  h.call('POST', `/sandbox/fixed_payment_codes/${id}/payments`, body === undefined ? {} : { json: body });
const idOf = (answer: Answer): string => {
  const id = bodyField(answer, 'id');
  if (typeof id !== 'string') throw new Error(`no id in ${JSON.stringify(answer)}`);
  return id;
};

describe('createFixedPaymentCode', () => {
  it('creates a code from the merchant range with its prefix, type USER and a 31-year expiry, without a callback', async () => {
    const h = harness();
    const created = await create(h, {});
    expect(created).toMatchObject({
      status: 200,
      body: {
        owner_id: '5ed75086a883856178afc12e',
        external_id: 'fpc-pelanggan-dewi-0007',
        retail_outlet_name: 'ALFAMART',
        prefix: '12345',
        name: 'Dewi Lestari',
        type: 'USER',
        expected_amount: 125000,
        is_single_use: false,
        expiration_date: '2057-11-21T09:30:00.000Z',
      },
    });
    expect(String(bodyField(created, 'payment_code'))).toMatch(/^123450[0-9]{6}$/);
    expect(Object.keys(created.body ?? {}).sort()).toEqual([
      'expected_amount',
      'expiration_date',
      'external_id',
      'id',
      'is_single_use',
      'name',
      'owner_id',
      'payment_code',
      'prefix',
      'retail_outlet_name',
      'type',
    ]);
    expect(await h.call('GET', `/fixed_payment_code/${idOf(created)}`)).toEqual(created);
    expect(await h.outbox()).toEqual([]);
    expect(h.errors).toEqual([]);
  });

  it('keeps a requested code, expiry and single use; accepts form encoding', async () => {
    const h = harness();
    expect(
      await create(h, {
        retail_outlet_name: 'INDOMARET',
        payment_code: '7788800451',
        expiration_date: '2026-11-24T23:59:00.000Z',
        is_single_use: true,
      }),
    ).toMatchObject({
      status: 200,
      body: {
        prefix: '7788',
        payment_code: '7788800451',
        expiration_date: '2026-11-24T23:59:00.000Z',
        is_single_use: true,
      },
    });
    const form = await h.call('POST', '/fixed_payment_code', {
      raw: {
        contentType: 'application/x-www-form-urlencoded',
        text: 'external_id=fpc-1&retail_outlet_name=ALFAMART&name=Dewi+Lestari&expected_amount=125000&is_single_use=true',
      },
    });
    expect(form).toMatchObject({ status: 200, body: { expected_amount: 125000, is_single_use: true } });
  });

  it('refuses a code used at the same outlet by the merchant in this mode', async () => {
    const h = harness();
    expect((await create(h, { retail_outlet_name: 'INDOMARET', payment_code: '7788800451' })).status).toBe(200);
    coverage.expectError(
      'createFixedPaymentCode',
      await create(h, { retail_outlet_name: 'INDOMARET', payment_code: '7788800451', external_id: 'other' }),
      400,
      'DUPLICATE_PAYMENT_CODE_ERROR',
    );
    expect((await create(h, { retail_outlet_name: 'INDOMARET', payment_code: '7788800451' }, KEYS.b)).status).toBe(200);
    expect((await create(h, { retail_outlet_name: 'INDOMARET', payment_code: '7788800451' }, KEYS.aLive)).status).toBe(
      200,
    );
  });

  it('refuses codes outside the range, at an outlet without a range, and when the range is used up', async () => {
    const h = harness();
    for (const code of ['9988800451', '778880045', '77888004510', '7788700000']) {
      coverage.expectError(
        'createFixedPaymentCode',
        await create(h, { retail_outlet_name: 'INDOMARET', payment_code: code }),
        400,
        'PAYMENT_CODE_OUTSIDE_RANGE',
      );
    }
    await h.configure({
      payment_code_range: { ALFAMART: { prefix: '12345', from: '123450000001', to: '123450000002' } },
    });
    coverage.expectError(
      'createFixedPaymentCode',
      await create(h, { retail_outlet_name: 'INDOMARET' }),
      400,
      'PAYMENT_CODE_OUTSIDE_RANGE',
    );
    const codes = [
      String(bodyField(await create(h, {}), 'payment_code')),
      String(bodyField(await create(h, {}), 'payment_code')),
    ];
    expect(codes.sort()).toEqual(['123450000001', '123450000002']);
    coverage.expectError('createFixedPaymentCode', await create(h, {}), 400, 'PAYMENT_CODE_OUTSIDE_RANGE');
  });

  it('answers an expiry in the past and the schema rules with their codes', async () => {
    const h = harness();
    coverage.expectError(
      'createFixedPaymentCode',
      await create(h, { expiration_date: '2026-11-21T09:00:00.000Z' }),
      400,
      'EXPIRATION_DATE_INVALID_ERROR',
    );
    coverage.expectError('createFixedPaymentCode', await create(h, { name: undefined }), 400, 'API_VALIDATION_ERROR');
    coverage.expectError(
      'createFixedPaymentCode',
      await h.call('POST', '/fixed_payment_code', { raw: { contentType: 'application/json', text: '[' } }),
      400,
      'INVALID_JSON_FORMAT',
    );
    coverage.expectError(
      'createFixedPaymentCode',
      await create(h, { retail_outlet_name: 'LAWSON' }),
      400,
      'RETAIL_OUTLET_NOT_SUPPORTED_ERROR',
    );
    coverage.expectError(
      'createFixedPaymentCode',
      await create(h, { expected_amount: 9999 }),
      400,
      'MINIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError(
      'createFixedPaymentCode',
      await create(h, { expected_amount: 2500001 }),
      400,
      'MAXIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError('createFixedPaymentCode', await create(h, {}, 'sk_test_unknown'), 401, 'INVALID_API_KEY');
    h.ctx.store.transaction = async () => {
      throw new Error('disk gone');
    };
    coverage.expectError('createFixedPaymentCode', await create(h, {}), 500, 'SERVER_ERROR');
  });
});

describe('getFixedPaymentCode', () => {
  it('finds only the merchant own codes in the key mode', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    coverage.expectError(
      'getFixedPaymentCode',
      await h.call('GET', '/fixed_payment_code/5f7b1c2d3e4f5a6b7c8d9eff'),
      404,
      'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedPaymentCode',
      await h.call('GET', `/fixed_payment_code/${id}`, { key: KEYS.b }),
      404,
      'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedPaymentCode',
      await h.call('GET', `/fixed_payment_code/${id}`, { key: KEYS.aLive }),
      404,
      'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'getFixedPaymentCode',
      await h.call('GET', `/fixed_payment_code/${id}`, { key: null }),
      401,
      'INVALID_API_KEY',
    );
    coverage.expectError(
      'getFixedPaymentCode',
      await h.call('GET', '/fixed_payment_code/5f7b1c2d.3e4f'),
      400,
      'API_VALIDATION_ERROR',
    );
    h.ctx.store.get = async () => {
      throw new Error('disk gone');
    };
    coverage.expectError('getFixedPaymentCode', await h.call('GET', `/fixed_payment_code/${id}`), 500, 'SERVER_ERROR');
  });
});

describe('updateFixedPaymentCode', () => {
  it('changes the fields sent and keeps the others, without a callback', async () => {
    const h = harness();
    const created = await create(h, {});
    const updated = await update(h, idOf(created), { name: 'Dewi Lestari Putri', expected_amount: 150000 });
    expect(updated).toEqual({
      status: 200,
      body: { ...(created.body as object), name: 'Dewi Lestari Putri', expected_amount: 150000 },
    });
    expect(await h.outbox()).toEqual([]);
  });

  it('expires a code with a past expiry and then refuses updates', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    expect(await update(h, id, { expiration_date: '2026-11-21T00:00:00.000Z' })).toMatchObject({
      status: 200,
      body: { expiration_date: '2026-11-21T00:00:00.000Z' },
    });
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, id, { name: 'Dewi' }),
      400,
      'INACTIVE_FIXED_PAYMENT_CODE_ERROR',
    );
  });

  it('refuses updates once the clock passes the expiry, or a single-use code is paid', async () => {
    const h = harness();
    const expiring = idOf(await create(h, { expiration_date: new Date(START.getTime() + HOUR).toISOString() }));
    expect((await update(h, expiring, { name: 'Dewi' })).status).toBe(200);
    await h.advance(HOUR);
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, expiring, { name: 'Dewi' }),
      400,
      'INACTIVE_FIXED_PAYMENT_CODE_ERROR',
    );
    const single = idOf(await create(h, { is_single_use: true }));
    expect((await pay(h, single)).status).toBe(200);
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, single, { name: 'Dewi' }),
      400,
      'INACTIVE_FIXED_PAYMENT_CODE_ERROR',
    );
  });

  it('re-checks the stored code against the current range (decision fpc-update-range-error)', async () => {
    const h = harness();
    const id = idOf(await create(h, { payment_code: '123450000500' }));
    await h.configure({
      payment_code_range: { ALFAMART: { prefix: '12345', from: '123450000600', to: '123450000999' } },
    });
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, id, { name: 'Dewi' }),
      400,
      'PAYMENT_CODE_OUTSIDE_RANGE',
    );
    await h.configure({ payment_code_range: {} });
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, id, { name: 'Dewi' }),
      400,
      'PAYMENT_CODE_OUTSIDE_RANGE',
    );
  });

  it('answers the schema rules and unknown ids with their codes', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, id, { expiration_date: 'tomorrow' }),
      400,
      'API_VALIDATION_ERROR',
    );
    coverage.expectError(
      'updateFixedPaymentCode',
      await h.call('PATCH', `/fixed_payment_code/${id}`, {
        raw: { contentType: 'application/json', text: '{"name":' },
      }),
      400,
      'INVALID_JSON_FORMAT',
    );
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, id, { expected_amount: 100 }),
      400,
      'MINIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, id, { expected_amount: 3000000 }),
      400,
      'MAXIMUM_EXPECTED_AMOUNT_ERROR',
    );
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, '5f7b1c2d3e4f5a6b7c8d9eff', {}),
      404,
      'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'updateFixedPaymentCode',
      await update(h, id, {}, KEYS.aLive),
      404,
      'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR',
    );
    coverage.expectError('updateFixedPaymentCode', await update(h, id, {}, null), 401, 'INVALID_API_KEY');
    h.ctx.store.transaction = async () => {
      throw new Error('disk gone');
    };
    coverage.expectError('updateFixedPaymentCode', await update(h, id, {}), 500, 'SERVER_ERROR');
  });
});

describe('simulateFixedPaymentCodePayment', () => {
  it('sends the paid callback, credits CASH for a COMPLETED payment and keeps a reusable code payable', async () => {
    const h = harness();
    const code = await create(h, {});
    const paid = await pay(h, idOf(code));
    expect(paid).toMatchObject({
      status: 200,
      body: {
        external_id: 'fpc-pelanggan-dewi-0007',
        prefix: '12345',
        payment_code: bodyField(code, 'payment_code'),
        retail_outlet_name: 'ALFAMART',
        name: 'Dewi Lestari',
        amount: 125000,
        status: 'COMPLETED',
        transaction_timestamp: START.toISOString(),
        fixed_payment_code_id: idOf(code),
        owner_id: '5ed75086a883856178afc12e',
      },
    });
    expect(await h.outbox()).toMatchObject([{ webhook: 'fixedPaymentCodePaid', url: paidUrl, payload: paid.body }]);
    expect(await h.balance('CASH')).toBe(125000);
    expect((await pay(h, idOf(code), { amount: 125000, status: 'COMPLETED' })).status).toBe(200);
    expect(await h.balance('CASH')).toBe(250000);
    expect(h.errors).toEqual([]);
  });

  it('credits HOLDING for a SETTLING payment', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    expect(await pay(h, id, { status: 'SETTLING' })).toMatchObject({ status: 200, body: { status: 'SETTLING' } });
    expect(await h.balance('CASH')).toBe(0);
    expect(await h.balance('HOLDING')).toBe(125000);
    expect((await h.outbox())[0]?.payload).toMatchObject({ status: 'SETTLING' });
  });

  it('refuses another amount, a paid single-use code and an expired code, changing nothing', async () => {
    const h = harness();
    const single = idOf(await create(h, { is_single_use: true }));
    coverage.expectError(
      'simulateFixedPaymentCodePayment',
      await pay(h, single, { amount: 100000 }),
      409,
      'SANDBOX_STATE_CONFLICT',
    );
    expect((await pay(h, single)).status).toBe(200);
    coverage.expectError('simulateFixedPaymentCodePayment', await pay(h, single), 409, 'SANDBOX_STATE_CONFLICT');
    const expired = idOf(await create(h, {}));
    await update(h, expired, { expiration_date: '2026-11-21T00:00:00.000Z' });
    coverage.expectError('simulateFixedPaymentCodePayment', await pay(h, expired), 409, 'SANDBOX_STATE_CONFLICT');
    const timed = idOf(await create(h, { expiration_date: new Date(START.getTime() + HOUR).toISOString() }));
    await h.advance(HOUR);
    coverage.expectError('simulateFixedPaymentCodePayment', await pay(h, timed), 409, 'SANDBOX_STATE_CONFLICT');
    expect(await h.balance('CASH')).toBe(125000);
    expect(await h.outbox()).toHaveLength(1);
  });

  it('answers unknown ids, other merchants and broken bodies with their codes', async () => {
    const h = harness();
    const id = idOf(await create(h, {}));
    coverage.expectError(
      'simulateFixedPaymentCodePayment',
      await pay(h, '5f7b1c2d3e4f5a6b7c8d9eff'),
      404,
      'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'simulateFixedPaymentCodePayment',
      await h.call('POST', `/sandbox/fixed_payment_codes/${id}/payments`, { key: KEYS.b }),
      404,
      'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR',
    );
    coverage.expectError(
      'simulateFixedPaymentCodePayment',
      await pay(h, id, { status: 'PAID' }),
      400,
      'API_VALIDATION_ERROR',
    );
    coverage.expectError(
      'simulateFixedPaymentCodePayment',
      await h.call('POST', `/sandbox/fixed_payment_codes/${id}/payments`, {
        raw: { contentType: 'application/json', text: '{status}' },
      }),
      400,
      'INVALID_JSON_FORMAT',
    );
    coverage.expectError(
      'simulateFixedPaymentCodePayment',
      await h.call('POST', `/sandbox/fixed_payment_codes/${id}/payments`, { key: null }),
      401,
      'INVALID_API_KEY',
    );
    h.ctx.callbacks = {
      enqueue: async () => {
        throw new Error('outbox unavailable');
      },
    };
    coverage.expectError('simulateFixedPaymentCodePayment', await pay(h, id), 500, 'SERVER_ERROR');
    expect(await h.balance('CASH')).toBe(0);
    expect(await h.store.list('fixed_payment_code_payments', { merchantId: 'merchant-a', mode: 'test' })).toEqual([]);
  });
});

// Last in the file (tests of a file run in order): every code the contract documents for these
// operations was produced above by the condition the contract gives for it.
describe('error coverage', () => {
  it('reached every documented error code of the fixed payment code operations', () => {
    expect(coverage.missing(OPERATIONS)).toEqual([]);
  });
});
