import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRouter, operationTable, type Handlers } from '@payments-contract/server/sandbox/server';
import { webhookMetadata } from '@payments-contract/client/webhooks';
import type { Caller } from '../context.js';
import {
  MERCHANT,
  openTestPlatform,
  removeTempDirs,
  startReceiver,
  tempDataDir,
  webhookExample,
  type Receiver,
  type TestPlatform,
} from '../callbacks/testing.js';
import { platformControlHandlers } from './index.js';

const callers: Record<string, Caller> = {
  sk_test_a: { ...MERCHANT, ownerId: MERCHANT.merchantId },
  sk_live_a: { ...MERCHANT, mode: 'live', ownerId: MERCHANT.merchantId },
  sk_test_b: { merchantId: '5f6ee8de3a733c1d2e1a1b2c', mode: 'test', ownerId: '5f6ee8de3a733c1d2e1a1b2c' },
};
const INITIAL_CASH = 1_000_000;

let t: TestPlatform;
let receiver: Receiver;
let call: (
  method: string,
  path: string,
  options?: { key?: string | null; body?: unknown; raw?: string },
) => Promise<{ status: number; body: Record<string, unknown> & { error_code?: string } }>;
const contractErrors: unknown[] = [];

beforeEach(async () => {
  receiver = await startReceiver(() => 500);
  t = await openTestPlatform(tempDataDir(), { initialBalance: { CASH: INITIAL_CASH }, callbackRetryDelayMs: 60_000 });
  await t.platform.dispatcher.start();
  // The other control operations belong to other modules; here they only have to exist for the router.
  const elsewhere = Object.fromEntries(
    Object.keys(operationTable).map((operationId) => [
      operationId,
      () => ({ status: 500, body: { error_code: 'SERVER_ERROR', message: `${operationId} is not part of this test` } }),
    ]),
  ) as unknown as Handlers<Caller>;
  const router = createRouter<Caller>(
    { ...elsewhere, ...platformControlHandlers(t.platform, t.platform) },
    {
      authenticate: (credentials) =>
        credentials && credentials.password === '' ? (callers[credentials.username] ?? null) : null,
      validateResponses: true,
      onError: (error) => void contractErrors.push(error),
    },
  );
  call = async (method, path, options = {}) => {
    const headers = new Headers();
    const key = options.key === undefined ? 'sk_test_a' : options.key;
    if (key !== null) headers.set('authorization', `Basic ${Buffer.from(`${key}:`).toString('base64')}`);
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    if (body !== undefined) headers.set('content-type', 'application/json');
    const response = await router(
      new Request(`http://sandbox.test${path}`, { method, headers, ...(body === undefined ? {} : { body }) }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
});
afterEach(async () => {
  await t.close();
  await receiver.close();
  removeTempDirs();
  // Every answer above was checked against the control API's schemas by the router.
  expect(contractErrors.splice(0)).toEqual([]);
});

describe('control API: clock', () => {
  it("reads and advances the clock of the key's merchant and mode, and no other", async () => {
    const before = await call('GET', '/sandbox/clock');
    expect(before).toMatchObject({ status: 200, body: { offset_ms: 0 } });
    const advanced = await call('POST', '/sandbox/clock/advance', { body: { milliseconds: 86_400_000 } });
    expect(advanced).toMatchObject({ status: 200, body: { offset_ms: 86_400_000 } });
    expect(Date.parse(String(advanced.body.now)) - Date.parse(String(before.body.now))).toBeGreaterThanOrEqual(
      86_400_000,
    );
    expect((await call('GET', '/sandbox/clock')).body.offset_ms).toBe(86_400_000);
    // Another merchant, and the same merchant's other mode, keep their own time.
    for (const key of ['sk_test_b', 'sk_live_a']) {
      const other = await call('GET', '/sandbox/clock', { key });
      expect(other.body.offset_ms).toBe(0);
      expect(Date.parse(String(other.body.now))).toBeLessThan(Date.parse(String(advanced.body.now)) - 86_000_000);
    }
  });

  it("tells each key its own merchant's and mode's time in GET /sandbox", async () => {
    await call('POST', '/sandbox/clock/advance', { key: 'sk_test_b', body: { milliseconds: 86_400_000 } });
    const [a, b] = await Promise.all([call('GET', '/sandbox'), call('GET', '/sandbox', { key: 'sk_test_b' })]);
    expect(Date.parse(String(b.body.now)) - Date.parse(String(a.body.now))).toBeGreaterThanOrEqual(86_400_000);
    expect(Date.parse(String(b.body.now)) - Date.parse(String(a.body.now))).toBeLessThan(86_400_000 + 60_000);
  });

  it('answers API_VALIDATION_ERROR for a negative or fractional amount of time and INVALID_JSON_FORMAT for a broken body', async () => {
    for (const milliseconds of [-1, 1.5, 'soon']) {
      expect(await call('POST', '/sandbox/clock/advance', { body: { milliseconds } })).toMatchObject({
        status: 400,
        body: { error_code: 'API_VALIDATION_ERROR' },
      });
    }
    expect(await call('POST', '/sandbox/clock/advance', { raw: '{"milliseconds":' })).toMatchObject({
      status: 400,
      body: { error_code: 'INVALID_JSON_FORMAT' },
    });
    expect((await call('GET', '/sandbox/clock')).body.offset_ms).toBe(0);
  });

  it('answers API_VALIDATION_ERROR, moving nothing, for an advance past the latest time of x-clock-advance', async () => {
    const hundredYears = 3_155_760_000_000;
    let answer = await call('POST', '/sandbox/clock/advance', { body: { milliseconds: hundredYears } });
    for (let advances = 1; answer.status === 200 && advances < 200; advances++)
      answer = await call('POST', '/sandbox/clock/advance', { body: { milliseconds: hundredYears } });
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error_code: 'API_VALIDATION_ERROR',
        errors: [{ location: 'body', path: '/milliseconds', keyword: 'maximum' }],
      },
    });
    const clock = await call('GET', '/sandbox/clock');
    expect(String(clock.body.now) < '9899-12-31T23:59:59.999Z').toBe(true);
    expect((await call('POST', '/sandbox/clock/advance', { body: { milliseconds: 0 } })).body).toEqual(
      expect.objectContaining({ offset_ms: clock.body.offset_ms }),
    );
  });

  it('answers 401 INVALID_API_KEY without a known key', async () => {
    expect(await call('GET', '/sandbox/clock', { key: null })).toMatchObject({
      status: 401,
      body: { error_code: 'INVALID_API_KEY' },
    });
    expect(
      await call('POST', '/sandbox/clock/advance', { key: 'sk_test_unknown', body: { milliseconds: 1 } }),
    ).toMatchObject({ status: 401, body: { error_code: 'INVALID_API_KEY' } });
  });
});

describe('control API: settings', () => {
  it('reads the defaults and merges a change', async () => {
    const defaults = await call('GET', '/sandbox/settings');
    expect(defaults.status).toBe(200);
    const changed = await call('PATCH', '/sandbox/settings', {
      body: {
        virtual_account_number_range: {
          BRI: { merchant_code: '26215', from: '262159999000000', to: '262159999000999' },
        },
        closed_virtual_accounts_enabled: false,
        unknown_field: 'ignored',
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      closed_virtual_accounts_enabled: false,
      virtual_account_number_range: { BRI: { to: '262159999000999' } },
    });
    expect((changed.body.virtual_account_number_range as Record<string, unknown>).BCA).toEqual(
      (defaults.body.virtual_account_number_range as Record<string, unknown>).BCA,
    );
    expect((await call('GET', '/sandbox/settings', { key: 'sk_live_a' })).body.closed_virtual_accounts_enabled).toBe(
      true,
    );
  });

  it('ignores unknown fields, as every request does: not stored, not echoed, whatever their name or size', async () => {
    const defaults = await call('GET', '/sandbox/settings');
    const raw = `{"__proto__":{"admin":true},"constructor":{"prototype":{}},"toString":1,"pad":"${'p'.repeat(900_000)}","ewallet_auto_resolve":false,"callback_urls":{"ewallet_callback_url":"https://merchant.example/cb"}}`;
    const changed = await call('PATCH', '/sandbox/settings', { raw });
    expect(changed.status).toBe(200);
    expect(Object.keys(changed.body).sort()).toEqual(Object.keys(defaults.body).sort());
    expect(changed.body).toMatchObject({
      ewallet_auto_resolve: false,
      callback_urls: { ewallet_callback_url: 'https://merchant.example/cb' },
    });
    const read = await call('GET', '/sandbox/settings');
    expect(read.body).toEqual(changed.body);
    expect(JSON.stringify(read.body).length).toBeLessThan(JSON.stringify(defaults.body).length + 100);
  });

  it('answers API_VALIDATION_ERROR for a map with more entries than the schema allows', async () => {
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`setting_${index}_url`, null]));
    expect(await call('PATCH', '/sandbox/settings', { body: { callback_urls: many } })).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR', errors: [{ path: '/callback_urls', keyword: 'maxProperties' }] },
    });
  });

  it('answers API_VALIDATION_ERROR for a schema violation and for a bank the contract does not have, changing nothing', async () => {
    const schema = await call('PATCH', '/sandbox/settings', {
      body: { virtual_account_number_range: { BRI: { merchant_code: '1', from: '1', to: '2' } } },
    });
    expect(schema).toMatchObject({ status: 400, body: { error_code: 'API_VALIDATION_ERROR' } });
    const meaning = await call('PATCH', '/sandbox/settings', {
      body: { virtual_account_bank_activation: ['BCA', 'GOLD_BANK'], callback_urls: { no_such_callback_url: null } },
    });
    expect(meaning).toMatchObject({
      status: 400,
      body: {
        error_code: 'API_VALIDATION_ERROR',
        errors: [
          { location: 'body', path: '/virtual_account_bank_activation/1', keyword: 'enum' },
          { location: 'body', path: '/callback_urls/no_such_callback_url', keyword: 'propertyNames' },
        ],
      },
    });
    expect(await call('PATCH', '/sandbox/settings', { raw: 'closed=false' })).toMatchObject({
      status: 400,
      body: { error_code: 'INVALID_JSON_FORMAT' },
    });
    expect((await call('GET', '/sandbox/settings')).body.virtual_account_bank_activation).toContain('BRI');
  });
});

describe('control API: balance and reset', () => {
  it('tops up CASH by default or HOLDING, and refuses amounts not above 0', async () => {
    expect(await call('POST', '/sandbox/balance/top_up', { body: { amount: 5000 } })).toEqual({
      status: 200,
      body: { balance: INITIAL_CASH + 5000 },
    });
    expect(await call('POST', '/sandbox/balance/top_up', { body: { amount: 250, account_type: 'HOLDING' } })).toEqual({
      status: 200,
      body: { balance: 250 },
    });
    for (const body of [{ amount: 0 }, { amount: 10, account_type: 'ESCROW' }, {}]) {
      expect(await call('POST', '/sandbox/balance/top_up', { body })).toMatchObject({
        status: 400,
        body: { error_code: 'API_VALIDATION_ERROR' },
      });
    }
    expect(await call('POST', '/sandbox/balance/top_up', { raw: '{' })).toMatchObject({
      status: 400,
      body: { error_code: 'INVALID_JSON_FORMAT' },
    });
  });

  it('resets one merchant and mode: settings, balances, deliveries and clock back to the start, the others untouched', async () => {
    await call('POST', '/sandbox/balance/top_up', { body: { amount: 5000 } });
    await call('POST', '/sandbox/balance/top_up', { key: 'sk_live_a', body: { amount: 7000 } });
    await call('POST', '/sandbox/clock/advance', { body: { milliseconds: 3_600_000 } });
    await call('POST', '/sandbox/clock/advance', { key: 'sk_live_a', body: { milliseconds: 60_000 } });
    await call('PATCH', '/sandbox/settings', { body: { ewallet_auto_resolve: false } });
    await t.store.transaction((tx) =>
      t.platform.callbacks.enqueue(tx, MERCHANT, 'ewalletPayment', webhookExample('ewalletPayment'), null),
    );

    const reset = await call('POST', '/sandbox/reset');
    expect(reset).toMatchObject({ status: 200, body: { merchant_id: MERCHANT.merchantId, mode: 'test' } });
    expect((await call('GET', '/sandbox/settings')).body.ewallet_auto_resolve).toBe(true);
    expect(await call('GET', '/sandbox/callbacks')).toEqual({ status: 200, body: [] });
    expect(await t.store.transaction((tx) => t.platform.balances.get(tx, MERCHANT, 'CASH'))).toBe(INITIAL_CASH);
    expect(await t.store.transaction((tx) => t.platform.balances.get(tx, { ...MERCHANT, mode: 'live' }, 'CASH'))).toBe(
      INITIAL_CASH + 7000,
    );
    expect((await call('GET', '/sandbox/clock')).body.offset_ms).toBe(0);
    expect((await call('GET', '/sandbox/clock', { key: 'sk_live_a' })).body.offset_ms).toBe(60_000);
  });
});

describe('control API: callback deliveries', () => {
  const enqueue = async (url: string | null) => {
    await t.store.transaction((tx) =>
      t.platform.callbacks.enqueue(tx, MERCHANT, 'disbursementFinished', webhookExample('disbursementFinished'), url),
    );
    const [newest] = await t.platform.callbacks.list(MERCHANT);
    return newest!.id;
  };

  it('lists deliveries newest first, filtered by state or webhook', async () => {
    const failed = await enqueue(null);
    const pending = await enqueue(receiver.url);
    await receiver.waitFor(1);
    const all = await call('GET', '/sandbox/callbacks');
    expect((all.body as unknown as { id: string }[]).map((d) => d.id)).toEqual([pending, failed]);
    const onlyFailed = await call('GET', '/sandbox/callbacks?state=failed');
    expect(onlyFailed.body).toMatchObject([
      { id: failed, state: 'failed', failure_reason: 'no callback URL configured' },
    ]);
    expect(await call('GET', '/sandbox/callbacks?webhook=ewalletPayment')).toEqual({ status: 200, body: [] });
    expect(
      (await call('GET', `/sandbox/callbacks?webhook=${webhookMetadata.disbursementFinished.operationId}&state=failed`))
        .body,
    ).toHaveLength(1);
    expect(await call('GET', '/sandbox/callbacks', { key: 'sk_test_b' })).toEqual({ status: 200, body: [] });
    expect(await call('GET', '/sandbox/callbacks?state=lost')).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR' },
    });
  });

  it('resends a settled delivery; 404 CALLBACK_DELIVERY_NOT_FOUND_ERROR for an unknown or another merchant’s id; 409 SANDBOX_STATE_CONFLICT while pending', async () => {
    const failed = await enqueue(null);
    const resent = await call('POST', `/sandbox/callbacks/${failed}/resend`);
    // Still no URL configured: the new delivery fails the same way, and says what it repeats.
    expect(resent).toMatchObject({
      status: 200,
      body: { resent_from: failed, state: 'failed', webhook: 'disbursementFinished' },
    });
    expect(await call('POST', '/sandbox/callbacks/6a1f0c2b9d8e7f6a5b4c3dff/resend')).toMatchObject({
      status: 404,
      body: { error_code: 'CALLBACK_DELIVERY_NOT_FOUND_ERROR' },
    });
    expect(await call('POST', `/sandbox/callbacks/${failed}/resend`, { key: 'sk_test_b' })).toMatchObject({
      status: 404,
      body: { error_code: 'CALLBACK_DELIVERY_NOT_FOUND_ERROR' },
    });
    expect(await call('POST', `/sandbox/callbacks/${failed}/resend`, { key: 'sk_live_a' })).toMatchObject({
      status: 404,
      body: { error_code: 'CALLBACK_DELIVERY_NOT_FOUND_ERROR' },
    });
    const pending = await enqueue(receiver.url);
    expect(await call('POST', `/sandbox/callbacks/${pending}/resend`)).toMatchObject({
      status: 409,
      body: { error_code: 'SANDBOX_STATE_CONFLICT' },
    });
  });

  it("makes the next attempt of a retrying delivery due when its merchant's clock in its mode is advanced past the retry delay", async () => {
    const id = await enqueue(receiver.url);
    await receiver.waitFor(1);
    // Other merchants' and modes' clocks are not this delivery's.
    for (const key of ['sk_test_b', 'sk_live_a'])
      expect(await call('POST', '/sandbox/clock/advance', { key, body: { milliseconds: 60_000 } })).toMatchObject({
        status: 200,
      });
    await t.platform.dispatcher.runDue();
    expect(receiver.received).toHaveLength(1);
    expect(await call('POST', '/sandbox/clock/advance', { body: { milliseconds: 60_000 } })).toMatchObject({
      status: 200,
    });
    expect(receiver.received).toHaveLength(2);
    const delivery = (await call('GET', '/sandbox/callbacks')).body as unknown as { id: string; attempts: unknown[] }[];
    expect(delivery.find((d) => d.id === id)?.attempts).toHaveLength(2);
  });
});
