// Faults on demand through the whole in-process sandbox, driven as a client team would: arm a fault with the
// control API, send service requests, see the answers the fault promises (exactly as many times as armed,
// only for the operation named, only for the key's merchant and mode), and see what a retry finds afterwards.
// Every control answer here is checked against the control contract by the router (response validation on).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contractFindings } from '../testing/contract-findings.js';
import { createTestSandbox, type RawAnswer, type TestKeyName, type TestSandbox } from '../testing/index.js';

let sandbox: TestSandbox;
beforeEach(async () => {
  sandbox = await createTestSandbox();
});
afterEach(async () => {
  await sandbox.close();
});

type ArmBody = Record<string, unknown>;

async function arm(body: ArmBody, key: TestKeyName = 'aTest'): Promise<{ id: string }> {
  const armed = await sandbox.request('POST', '/sandbox/faults', { key, body });
  if (armed.status !== 200) throw new Error(`armFault answered ${armed.status}: ${JSON.stringify(armed.body)}`);
  return armed.body as { id: string };
}

async function armedFaults(
  key: TestKeyName = 'aTest',
): Promise<{ id: string; remaining: number; operation: string | null }[]> {
  const listed = await sandbox.control(key).listFaults();
  if (!listed.ok) throw new Error(`listFaults answered ${listed.status}`);
  return listed.data.data;
}

const balance = (key: TestKeyName = 'aTest'): Promise<RawAnswer> => sandbox.request('GET', '/balance', { key });
const cash = async (key: TestKeyName = 'aTest'): Promise<number> =>
  ((await balance(key)).body as { balance: number }).balance;

const disbursement = (externalId: string) => ({
  external_id: externalId,
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '1234567890',
  description: 'Refund',
  amount: 90_000,
});
const createDisbursement = (externalId: string, idempotencyKey: string): Promise<RawAnswer> =>
  sandbox.request('POST', '/disbursements', {
    body: disbursement(externalId),
    headers: { 'x-idempotency-key': idempotencyKey },
  });
const byExternalId = (externalId: string): Promise<RawAnswer> =>
  sandbox.request('GET', `/disbursements?external_id=${externalId}`);

describe('arming, listing and removing faults', () => {
  it('lists the armed faults in the order they apply, with what is left of each, and removes one or all', async () => {
    const first = await arm({ kind: 'rate_limited', count: 3 });
    const second = await arm({ kind: 'delay', operation: 'getBalance', delay_ms: 10 });
    expect(first).toMatchObject({
      kind: 'rate_limited',
      operation: null,
      count: 3,
      remaining: 3,
      retry_after_seconds: 1,
      limit: 100,
      outcome: null,
      delay_ms: null,
    });
    expect(second).toMatchObject({
      kind: 'delay',
      operation: 'getBalance',
      count: 1,
      remaining: 1,
      retry_after_seconds: null,
      limit: null,
      outcome: null,
      delay_ms: 10,
    });

    expect((await balance()).status).toBe(429);
    expect(await armedFaults()).toMatchObject([
      { id: first.id, remaining: 2 },
      { id: second.id, remaining: 1 },
    ]);

    const removed = await sandbox.control().removeFault({ path: { id: first.id } });
    expect(removed.ok && removed.data).toMatchObject({ id: first.id, remaining: 2 });
    const again = await sandbox.control().removeFault({ path: { id: first.id } });
    expect(again.ok ? again.data : { status: again.status, error: again.error }).toMatchObject({
      status: 404,
      error: { error_code: 'FAULT_NOT_FOUND_ERROR' },
    });

    const cleared = await sandbox.control().clearFaults();
    expect(cleared.ok && cleared.data.data.map((fault) => fault.id)).toEqual([second.id]);
    expect(await armedFaults()).toEqual([]);
    expect((await balance()).status).toBe(200);
  });

  it.each([
    [
      'an operation the service contract does not have',
      { kind: 'unavailable', operation: 'chargeEverything' },
      '/operation',
    ],
    ['no requests', { kind: 'unavailable', count: 0 }, '/count'],
    ['more than 1000 requests', { kind: 'unavailable', count: 1001 }, '/count'],
    ['a delay without its length', { kind: 'delay' }, '/delay_ms'],
    ['a delay over 30 seconds', { kind: 'delay', delay_ms: 30_001 }, '/delay_ms'],
    ['an outcome for a rate limit', { kind: 'rate_limited', outcome: 'applied' }, '/outcome'],
    ['a Retry-After for a server error', { kind: 'server_error', retry_after_seconds: 5 }, '/retry_after_seconds'],
    ['a limit for unavailability', { kind: 'unavailable', limit: 10 }, '/limit'],
    ['an unknown kind', { kind: 'meteor' }, '/kind'],
  ])('refuses %s with API_VALIDATION_ERROR and arms nothing', async (_what, body, path) => {
    const answer = await sandbox.request('POST', '/sandbox/faults', { body });
    expect(answer).toMatchObject({ status: 400, body: { error_code: 'API_VALIDATION_ERROR' } });
    expect((answer.body as { errors: { path: string }[] }).errors.map((issue) => issue.path)).toContain(path);
    expect(await armedFaults()).toEqual([]);
  });

  it('keeps at most 20 armed faults per merchant and mode', async () => {
    for (let n = 0; n < 20; n++) await arm({ kind: 'unavailable', operation: 'getBalance' });
    expect(await sandbox.request('POST', '/sandbox/faults', { body: { kind: 'unavailable' } })).toMatchObject({
      status: 409,
      body: { error_code: 'SANDBOX_STATE_CONFLICT' },
    });
    // Another merchant has its own.
    await arm({ kind: 'unavailable' }, 'bTest');
  });

  it('are removed by a reset of the merchant and mode', async () => {
    await arm({ kind: 'unavailable' });
    expect((await sandbox.control().resetSandbox()).ok).toBe(true);
    expect(await armedFaults()).toEqual([]);
    expect((await balance()).status).toBe(200);
  });
});

describe('the answers of each kind', () => {
  it('rate_limited: 429 RATE_LIMIT_EXCEEDED with Retry-After and the RateLimit headers, for exactly the next N requests, nothing carried out', async () => {
    const before = await cash();
    const fault = await arm({ kind: 'rate_limited', count: 2, retry_after_seconds: 7, limit: 50 });
    const answers = [
      await createDisbursement('limited-1', 'limited-key-1'),
      await createDisbursement('limited-1', 'limited-key-1'),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(429);
      expect(contractFindings('createDisbursement', answer)).toEqual([]);
      expect(answer.body).toEqual({ error_code: 'RATE_LIMIT_EXCEEDED', message: expect.stringContaining('7 seconds') });
      expect(
        Object.fromEntries(
          ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-sandbox-fault'].map(
            (name) => [name, answer.headers.get(name)],
          ),
        ),
      ).toEqual({
        'retry-after': '7',
        'ratelimit-limit': '50',
        'ratelimit-remaining': '0',
        'ratelimit-reset': '7',
        'x-sandbox-fault': fault.id,
      });
    }
    expect((await byExternalId('limited-1')).body).toMatchObject({ error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR' });
    expect(await cash()).toBe(before);
    // The third request is the first one after the fault: the key was never used, so it creates.
    expect((await createDisbursement('limited-1', 'limited-key-1')).status).toBe(200);
    expect(await armedFaults()).toEqual([]);
  });

  it('unavailable: 503 SERVICE_UNAVAILABLE with Retry-After (1 by default), nothing carried out', async () => {
    const fault = await arm({ kind: 'unavailable', operation: 'createFixedVirtualAccount' });
    const answer = await sandbox.request('POST', '/callback_virtual_accounts', {
      body: { external_id: 'va-unavailable-1', bank_code: 'BNI', name: 'Toko Sinar Jaya' },
    });
    expect(answer).toMatchObject({
      status: 503,
      body: { error_code: 'SERVICE_UNAVAILABLE', message: expect.any(String) },
    });
    expect(contractFindings('createFixedVirtualAccount', answer)).toEqual([]);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('x-sandbox-fault')).toBe(fault.id);
    expect(Object.keys(answer.body as object).sort()).toEqual(['error_code', 'message']);
    const accounts = await sandbox.control().listResources({ path: { kind: 'fixed_virtual_accounts' } });
    expect(accounts.ok && accounts.data.data).toEqual([]);
  });

  it('delay: the request is carried out as usual and its answer arrives delay_ms after it was sent', async () => {
    const fault = await arm({ kind: 'delay', operation: 'createDisbursement', delay_ms: 600 });
    const started = performance.now();
    const answer = await createDisbursement('slow-1', 'slow-key-1');
    const took = performance.now() - started;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-sandbox-fault')).toBe(fault.id);
    expect(took).toBeGreaterThanOrEqual(590);
    expect(took).toBeLessThan(5_000);
    expect((await byExternalId('slow-1')).body).toEqual([expect.objectContaining({ external_id: 'slow-1' })]);
    // Used up: the next one is not held back (no fault answered it).
    const next = await createDisbursement('slow-2', 'slow-key-2');
    expect(next.status).toBe(200);
    expect(next.headers.get('x-sandbox-fault')).toBeNull();
  });

  it('server_error not_applied (the default): 500 SERVER_ERROR, nothing stored; the lookup answers DIRECT_DISBURSEMENT_NOT_FOUND_ERROR and the retry with the same key creates it', async () => {
    await sandbox.control().updateSettings({ body: { disbursement_auto_resolve: false } });
    const fault = await arm({ kind: 'server_error', operation: 'createDisbursement' });
    expect(fault).toMatchObject({ outcome: 'not_applied' });
    const before = await cash();
    const failed = await createDisbursement('rolled-back-1', 'rolled-back-key');
    expect(failed).toMatchObject({ status: 500, body: { error_code: 'SERVER_ERROR' } });
    expect(contractFindings('createDisbursement', failed)).toEqual([]);
    expect(failed.headers.get('x-sandbox-fault')).toBe(fault.id);

    expect(await byExternalId('rolled-back-1')).toMatchObject({
      status: 404,
      body: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR' },
    });
    expect(await cash()).toBe(before);
    const retried = await createDisbursement('rolled-back-1', 'rolled-back-key');
    expect(retried).toMatchObject({ status: 200, body: { external_id: 'rolled-back-1', status: 'PENDING' } });
    expect((await byExternalId('rolled-back-1')).body).toHaveLength(1);
    expect(await cash()).toBe(before - 90_000);
  });

  it('server_error applied: the disbursement is created, then 500; the retry with the same key is a repeat, one disbursement exists, the balance is debited once, and its callback follows', async () => {
    const fault = await arm({ kind: 'server_error', operation: 'createDisbursement', outcome: 'applied' });
    const before = await cash();
    const failed = await createDisbursement('rolled-forward-1', 'rolled-forward-key');
    expect(failed).toMatchObject({ status: 500, body: { error_code: 'SERVER_ERROR' } });
    expect(failed.headers.get('x-sandbox-fault')).toBe(fault.id);

    const found = await byExternalId('rolled-forward-1');
    expect(found.status).toBe(200);
    const [stored] = found.body as { id: string }[];
    expect(found.body).toHaveLength(1);
    const retried = await createDisbursement('rolled-forward-1', 'rolled-forward-key');
    expect(retried).toMatchObject({
      status: 400,
      body: { error_code: 'DUPLICATE_TRANSACTION_ERROR', message: expect.stringContaining(stored!.id) },
    });
    expect((await byExternalId('rolled-forward-1')).body).toHaveLength(1);
    expect(await cash()).toBe(before - 90_000);

    // It finishes by itself after the automatic delay, and its callback is sent.
    await sandbox.advance(sandbox.config.autoProgressDelayMs);
    const callback = await sandbox.waitForCallback(
      (received) => (received.body as { external_id?: string }).external_id === 'rolled-forward-1',
    );
    expect(callback.body).toMatchObject({ id: stored!.id, status: 'COMPLETED' });
  });
});

describe('which requests a fault takes', () => {
  it('only requests to the operation it names', async () => {
    await arm({ kind: 'unavailable', operation: 'getBalance' });
    expect((await sandbox.request('GET', '/available_virtual_account_banks')).status).toBe(200);
    expect(await armedFaults()).toMatchObject([{ remaining: 1 }]);
    expect((await balance()).status).toBe(503);
    expect(await armedFaults()).toEqual([]);
  });

  it('the first armed among those that match a request, one fault per request', async () => {
    const forBalance = await arm({ kind: 'unavailable', operation: 'getBalance' });
    const forAny = await arm({ kind: 'rate_limited' });
    const banks = await sandbox.request('GET', '/available_virtual_account_banks');
    expect([banks.status, banks.headers.get('x-sandbox-fault')]).toEqual([429, forAny.id]);
    const read = await balance();
    expect([read.status, read.headers.get('x-sandbox-fault')]).toEqual([503, forBalance.id]);
    expect(await armedFaults()).toEqual([]);
  });

  it("only the key's merchant and mode: another merchant and the other mode are answered as usual", async () => {
    await arm({ kind: 'unavailable', count: 2 });
    for (const key of ['bTest', 'aLive', 'bLive'] as const) expect((await balance(key)).status).toBe(200);
    expect(await armedFaults()).toMatchObject([{ remaining: 2 }]);
    expect((await balance('aTest')).status).toBe(503);
  });

  it('no request without a valid key (401 as always), no request to the control API, and no request to no operation', async () => {
    await arm({ kind: 'unavailable' });
    expect((await sandbox.request('GET', '/balance', { key: null })).status).toBe(401);
    expect((await sandbox.request('GET', '/balance', { key: 'sk_test_nobody' })).status).toBe(401);
    expect((await sandbox.request('GET', '/sandbox/clock')).status).toBe(200);
    expect((await sandbox.request('GET', '/no_such_operation')).status).toBe(404);
    expect(await armedFaults()).toMatchObject([{ remaining: 1 }]);
    expect((await balance()).status).toBe(503);
  });

  it('a request the contract would refuse, all the same (the fault applies before the request is checked)', async () => {
    await arm({ kind: 'rate_limited', operation: 'createDisbursement' });
    const answer = await sandbox.request('POST', '/disbursements', { body: { amount: -1 } });
    expect(answer).toMatchObject({ status: 429, body: { error_code: 'RATE_LIMIT_EXCEEDED' } });
  });

  it('exactly N of many concurrent requests: the count goes down one request at a time', async () => {
    await arm({ kind: 'rate_limited', count: 5 });
    const answers = await Promise.all(Array.from({ length: 40 }, () => balance()));
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(5);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(35);
    expect(await armedFaults()).toEqual([]);
  });

  it('is shown in the record of recent requests like any other request, with what was sent', async () => {
    await arm({ kind: 'unavailable', operation: 'createDisbursement' });
    await createDisbursement('logged-1', 'logged-key-1');
    const listed = await sandbox.control().listRequests({ query: { limit: 1 } });
    expect(listed.ok && listed.data.data).toEqual([
      expect.objectContaining({
        method: 'POST',
        path: '/disbursements',
        status: 503,
        error_code: 'SERVICE_UNAVAILABLE',
        idempotency_key: 'logged-key-1',
        request_body: expect.stringContaining('logged-1'),
      }),
    ]);
  });
});
