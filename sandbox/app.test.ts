// The assembled sandbox: authentication through the merchants' keys, isolation of merchants and modes, the
// routes around the two routers, per-kind callback URLs, and data that outlives a restart.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { operationTable as controlTable } from '@payments-contract/server/sandbox/server';
import { operationTable } from '@payments-contract/server';
import { webhookMetadata } from '@payments-contract/client/webhooks';
import { combineHandlers } from './module.js';
import { createTestSandbox, TEST_CALLBACK_URL, TEST_MERCHANTS, type TestSandbox } from './testing/index.js';
import { openapiPath } from '@payments-contract/contract';

type Trigger = { when: string; parameter?: { in: string; name: string } };
type Operation = { operationId: string; 'x-error-triggers'?: Record<string, Trigger> };
const contract = JSON.parse(readFileSync(openapiPath, 'utf8')) as { paths: Record<string, Record<string, Operation>> };

/** The code an operation documents for a trigger kind (`not_found`, `other_merchant`), from the contract. */
function codeFor(operationId: string, when: string): string {
  for (const item of Object.values(contract.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId !== operationId) continue;
      const found = Object.entries(operation['x-error-triggers'] ?? {}).find(([, trigger]) => trigger.when === when);
      if (found) return found[0];
    }
  }
  throw new Error(`${operationId} documents no ${when} trigger`);
}

/** The dashboard setting a webhook is delivered to. */
function callbackSettingOf(kind: keyof typeof webhookMetadata): string {
  const { destination } = webhookMetadata[kind].delivery;
  if (!('dashboard_setting' in destination)) throw new Error(`${kind} goes to a dashboard setting`);
  return destination.dashboard_setting;
}
const fvaChangedSetting = callbackSettingOf('fixedVirtualAccountChanged');

const openAccount = (externalId: string) => ({ external_id: externalId, bank_code: 'BNI', name: 'Toko Sinar Jaya' });
const disbursement = (externalId: string) => ({
  external_id: externalId,
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '1234567890',
  description: 'Komisi',
  amount: 90000,
});

describe('the assembled sandbox', () => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    sandbox = await createTestSandbox();
  });
  afterAll(() => sandbox?.close());

  it('answers every operation of both contracts with a status the operation documents', async () => {
    // A request with placeholder path parameters and nothing else: a missing or throwing handler would be a
    // 500 (and a router error, which fails the harness); the router's own refusals are documented statuses.
    // A sandbox of its own: the sweep resets data and moves settings.
    const sweep = await createTestSandbox();
    onTestFinished(() => sweep.close());
    for (const table of [operationTable, controlTable] as const) {
      for (const [operationId, route] of Object.entries(table) as [
        string,
        { method: string; path: string; responses: Record<number, readonly string[]> },
      ][]) {
        const path = route.path.replace(/\{[^}]+\}/g, 'placeholder-id');
        const answer = await sweep.request(route.method, path, route.method === 'GET' ? {} : { body: {} });
        expect(
          Object.keys(route.responses).map(Number),
          `${operationId} answered ${answer.status} ${JSON.stringify(answer.body)}`,
        ).toContain(answer.status);
        expect(answer.status, operationId).not.toBe(500);
      }
    }
  });

  it('tells each key its merchant, mode, time, callback token and retry spacing', async () => {
    for (const [key, merchant, mode] of [
      ['aTest', TEST_MERCHANTS.a.id, 'test'],
      ['aLive', TEST_MERCHANTS.a.id, 'live'],
      ['bTest', TEST_MERCHANTS.b.id, 'test'],
      ['bLive', TEST_MERCHANTS.b.id, 'live'],
    ] as const) {
      const result = await sandbox.control(key).getSandbox();
      const token = (key.startsWith('a') ? TEST_MERCHANTS.a : TEST_MERCHANTS.b).callbackTokens[mode];
      expect(result.ok && result.data).toEqual({
        merchant_id: merchant,
        mode,
        now: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        callback_token: token,
        callback_retry_delay_ms: 100,
        auto_progress_delay_ms: 3000,
      });
    }
  });

  it('answers 401 INVALID_API_KEY on both routers for a missing, unknown or malformed key, or a password', async () => {
    for (const path of ['/balance', '/sandbox']) {
      for (const options of [
        { key: null },
        { key: 'sk_test_unknown' },
        { key: null, headers: { authorization: 'Bearer sk_test_merchant_a_0000000000000000' } },
        { key: null, headers: { authorization: `Basic ${btoa(`${TEST_MERCHANTS.a.keys.test}:secret`)}` } },
      ]) {
        const answer = await sandbox.request('GET', path, options);
        expect(answer.status, `${path} ${JSON.stringify(options)}`).toBe(401);
        expect(answer.body).toMatchObject({ error_code: 'INVALID_API_KEY' });
      }
    }
  });

  it('keeps a fixed virtual account to its merchant and mode', async () => {
    const created = await sandbox.request('POST', '/callback_virtual_accounts', { body: openAccount('isolation-fva') });
    expect(created.status).toBe(200);
    const { id } = created.body as { id: string };
    expect((await sandbox.request('GET', `/callback_virtual_accounts/${id}`)).status).toBe(200);
    const notFound = codeFor('getFixedVirtualAccount', 'not_found');
    for (const key of ['aLive', 'bTest', 'bLive'] as const) {
      const answer = await sandbox.request('GET', `/callback_virtual_accounts/${id}`, { key });
      expect(answer.status, key).toBe(404);
      expect(answer.body, key).toMatchObject({ error_code: notFound });
    }
    // The same external_id is free in every other merchant and mode.
    for (const key of ['aLive', 'bTest'] as const)
      expect(
        (await sandbox.request('POST', '/callback_virtual_accounts', { key, body: openAccount('isolation-fva') }))
          .status,
        key,
      ).toBe(200);
  });

  it("answers another merchant's disbursement with the contract's other-merchant code, another mode's with not found", async () => {
    const created = await sandbox.request('POST', '/disbursements', {
      body: disbursement('isolation-disbursement'),
      headers: { 'x-idempotency-key': 'isolation-1' },
    });
    expect(created.status).toBe(200);
    const { id } = created.body as { id: string };
    const otherMerchant = await sandbox.request('GET', `/disbursements/${id}`, { key: 'bTest' });
    expect(otherMerchant.status).toBe(403);
    expect(otherMerchant.body).toMatchObject({ error_code: codeFor('getDisbursement', 'other_merchant') });
    const otherMode = await sandbox.request('GET', `/disbursements/${id}`, { key: 'aLive' });
    expect(otherMode.status).toBe(404);
    expect(otherMode.body).toMatchObject({ error_code: codeFor('getDisbursement', 'not_found') });
    const listed = await sandbox.request('GET', '/disbursements?external_id=isolation-disbursement', { key: 'bTest' });
    expect(listed.status).toBe(404);
  });

  it('keeps balances per merchant and mode', async () => {
    const before = await sandbox.request('GET', '/balance', { key: 'bLive' });
    await sandbox.request('POST', '/disbursements', {
      key: 'aLive',
      body: disbursement('balance-isolation'),
      headers: { 'x-idempotency-key': 'balance-isolation' },
    });
    expect(await sandbox.request('GET', '/balance', { key: 'bLive' })).toMatchObject({ body: before.body });
  });

  it('serves both contracts and answers unknown paths and methods in JSON', async () => {
    const spec = await sandbox.fetch(new Request('http://sandbox.test/openapi.json'));
    expect(((await spec.json()) as { info: { title: string } }).info.title).toBeTruthy();
    const control = await sandbox.fetch(new Request('http://sandbox.test/sandbox/openapi.json'));
    expect(((await control.json()) as { paths: Record<string, unknown> }).paths).toHaveProperty('/sandbox');
    expect(await sandbox.request('GET', '/nothing/here')).toMatchObject({
      status: 404,
      body: { error_code: 'NOT_FOUND' },
    });
    expect(await sandbox.request('GET', '/sandbox/nothing')).toMatchObject({
      status: 404,
      body: { error_code: 'NOT_FOUND' },
    });
    expect(await sandbox.request('DELETE', '/balance')).toMatchObject({
      status: 405,
      body: { error_code: 'METHOD_NOT_ALLOWED' },
    });
  });

  it('takes a trailing slash and ignores unknown fields', async () => {
    expect((await sandbox.request('GET', '/balance/')).status).toBe(200);
    expect((await sandbox.request('GET', '/sandbox/')).status).toBe(200);
    const created = await sandbox.request('POST', '/callback_virtual_accounts', {
      body: { ...openAccount('unknown-fields'), favourite_colour: 'teal' },
    });
    expect(created.status).toBe(200);
    expect(created.body).not.toHaveProperty('favourite_colour');
  });

  it('refuses a body over the limit with 413 in JSON', async () => {
    const answer = await sandbox.request('POST', '/callback_virtual_accounts', {
      body: { ...openAccount('too-large'), padding: 'x'.repeat(1024 * 1024) },
    });
    expect(answer).toMatchObject({ status: 413, body: { error_code: 'REQUEST_ENTITY_TOO_LARGE' } });
  });

  it("sends each mode's callbacks with that mode's token", async () => {
    await sandbox.request('POST', '/callback_virtual_accounts', { key: 'bLive', body: openAccount('token-live') });
    const mine = await sandbox.waitForCallback(
      (callback) => (callback.body as { external_id?: string }).external_id === 'token-live',
    );
    expect(mine.headers['x-callback-token']).toBe(TEST_MERCHANTS.b.callbackTokens.live);
    expect(mine.url).toBe(TEST_CALLBACK_URL);
  });
});

describe('combineHandlers', () => {
  it('refuses an operation implemented twice', () => {
    const twice: object[] = [{ getBalance: () => null }, { getBalance: () => null }];
    expect(() => combineHandlers(...twice)).toThrow(/getBalance is implemented twice/);
  });
});

describe('configuration of the assembled sandbox', () => {
  it('sends a kind to its own callback URL when one is configured', async () => {
    const sandbox = await createTestSandbox({
      config: { callbackUrls: { [fvaChangedSetting]: 'https://merchant.test/fva-changes' } },
    });
    try {
      const settings = await sandbox.control().getSettings();
      expect(settings.ok && settings.data.callback_urls[fvaChangedSetting]).toBe('https://merchant.test/fva-changes');
      await sandbox.request('POST', '/callback_virtual_accounts', { body: openAccount('per-kind-url') });
      const [callback] = await sandbox.waitForCallbacks(1);
      expect(callback?.url).toBe('https://merchant.test/fva-changes');
      expect(callback?.headers['x-callback-token']).toBe(TEST_MERCHANTS.a.callbackTokens.test);
    } finally {
      await sandbox.close();
    }
  });

  it("sends a disbursement's callback to its own URL, and where the control API points the setting from the next one on", async () => {
    const setting = callbackSettingOf('disbursementFinished');
    const sandbox = await createTestSandbox({
      config: { callbackUrls: { [setting]: 'https://merchant.test/disbursements' } },
    });
    try {
      const finishedAt = async (externalId: string): Promise<string | undefined> => {
        const created = await sandbox.request('POST', '/disbursements', { body: disbursement(externalId) });
        const { id } = created.body as { id: string };
        expect((await sandbox.control().completeDisbursement({ path: { id }, body: {} })).status).toBe(200);
        return (await sandbox.waitForCallback((callback) => (callback.body as { id?: string }).id === id)).url;
      };
      expect(await finishedAt('per-kind-before')).toBe('https://merchant.test/disbursements');
      const changed = await sandbox.control().updateSettings({
        body: { callback_urls: { [setting]: 'https://merchant.test/elsewhere' } },
      });
      expect(changed.ok).toBe(true);
      expect(await finishedAt('per-kind-after')).toBe('https://merchant.test/elsewhere');
    } finally {
      await sandbox.close();
    }
  });

  it('keeps its data in DATA_DIR across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-app-'));
    try {
      const first = await createTestSandbox({ config: { dataDir } });
      const created = await first.request('POST', '/callback_virtual_accounts', { body: openAccount('restart') });
      await first.close();
      const second = await createTestSandbox({ config: { dataDir } });
      try {
        expect(
          await second.request('GET', `/callback_virtual_accounts/${(created.body as { id: string }).id}`),
        ).toMatchObject({ status: 200, body: { external_id: 'restart' } });
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
