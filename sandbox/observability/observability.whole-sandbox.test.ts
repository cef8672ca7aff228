// The log, the request id and the record of recent requests through the whole in-process sandbox: what a
// developer sees on stdout and in the control API's listRequests, and what they must never see (a key, a
// callback token).
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSandbox, TEST_KEYS, TEST_MERCHANTS, type TestKeyName, type TestSandbox } from '../testing/index.js';
import { createLogger, type LogFormat, type LogLevel } from './logger.js';

let sandbox: TestSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** The sandbox with its log captured line by line. */
async function logged(
  format: LogFormat = 'pretty',
  level: LogLevel = 'info',
): Promise<{ sandbox: TestSandbox; lines: string[] }> {
  const lines: string[] = [];
  const logger = createLogger({
    format,
    level,
    color: false,
    destination: { write: (chunk: string) => void lines.push(...chunk.split('\n').filter((line) => line !== '')) },
  });
  sandbox = await createTestSandbox({ logger });
  return { sandbox, lines };
}

const disbursement = (externalId: string, description: string) => ({
  external_id: externalId,
  amount: 15000,
  bank_code: 'BCA',
  account_holder_name: 'Rina Wijaya',
  account_number: '1234567890',
  description,
});

const TOKEN = TEST_MERCHANTS.a.callbackTokens.test;
/** Every form a merchant A secret could take in a log line: as given, and inside Basic credentials. */
const secretsOfA = [TEST_KEYS.aTest, TEST_KEYS.aLive, TOKEN, TEST_MERCHANTS.a.callbackTokens.live].flatMap((secret) => [
  secret,
  Buffer.from(`${secret}:`).toString('base64'),
]);

async function listRequests(key: TestKeyName = 'aTest', query = ''): Promise<{ status: number; body: unknown }> {
  const answer = await sandbox!.request('GET', `/sandbox/requests${query}`, { key });
  return { status: answer.status, body: answer.body };
}

describe('the line per request', () => {
  it('names method, path, status, error_code, duration and the request id sent back in x-request-id', async () => {
    const { sandbox, lines } = await logged();
    const ok = await sandbox.request('GET', '/balance');
    const refused = await sandbox.request('POST', '/disbursements', { body: { amount: -1 } });
    const okId = ok.headers.get('x-request-id');
    const refusedId = refused.headers.get('x-request-id');
    expect(okId).toMatch(/^req_[0-9a-f]{24}$/);
    expect(refusedId).not.toBe(okId);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3}  GET /balance  200  [\\d.]+ ms  ${okId}$`));
    expect(lines[1]).toMatch(new RegExp(`  POST /disbursements  400 API_VALIDATION_ERROR  [\\d.]+ ms  ${refusedId}$`));
  });

  it('is JSON lines with LOG_FORMAT=json', async () => {
    const { sandbox, lines } = await logged('json');
    const answer = await sandbox.request('GET', '/disbursements/no-such-disbursement');
    await sandbox.request('GET', '/sandbox/clock');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed).toHaveLength(2);
    expect(parsed[0]).toMatchObject({
      level: 'info',
      kind: 'request',
      method: 'GET',
      path: '/disbursements/no-such-disbursement',
      status: 404,
      error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR',
      request_id: answer.headers.get('x-request-id'),
    });
    expect(typeof parsed[0]!.duration_ms).toBe('number');
    expect(parsed[1]).toMatchObject({ path: '/sandbox/clock', status: 200, error_code: null });
  });

  it('is left out at LOG_LEVEL=warn', async () => {
    const { sandbox, lines } = await logged('json', 'warn');
    await sandbox.request('GET', '/balance');
    await sandbox.request('POST', '/disbursements', { body: { amount: -1 } });
    await sandbox.request('GET', '/balance', { key: null });
    expect(lines).toEqual([]);
  });
});

describe('the line per callback attempt', () => {
  it('names the webhook, the URL, the answer and "attempt n of N"', async () => {
    const { sandbox, lines } = await logged();
    const created = await sandbox
      .service()
      .createFixedVirtualAccount({ body: { external_id: 'order-log-1', bank_code: 'BCA', name: 'Toko Sinar Jaya' } });
    expect(created.ok).toBe(true);
    await sandbox.waitForCallbacks(1);
    await expect
      .poll(() => lines.find((line) => line.includes('callback ')))
      .toMatch(/callback \w+ → https:\/\/merchant\.test\/callbacks {2}200 {2}attempt 1 of 3 {2}[\d.]+ ms$/);
  });
});

describe('secrets', () => {
  it('never shows a key or a callback token: not in the log, not in the recorded request', async () => {
    const { sandbox, lines } = await logged('json');
    // The key in the Authorization header and in the query, the callback token in a body the service echoes.
    await sandbox.request('POST', `/disbursements?api_key=${TEST_KEYS.aTest}`, {
      body: disbursement('payout-secret-1', `token ${TOKEN}`),
      headers: { 'x-idempotency-key': `idem-${TOKEN}` },
    });
    await sandbox.request('GET', '/balance', { key: 'aLive' });
    await sandbox.request('GET', '/balance', { key: TEST_KEYS.aTest.replace('merchant', 'wrong') });
    // A callback: sent with the token in its x-callback-token header.
    await sandbox.service().createFixedVirtualAccount({
      body: { external_id: 'order-secret-1', bank_code: 'BCA', name: 'Toko Sinar Jaya' },
    });
    await sandbox.waitForCallbacks(1);
    await expect.poll(() => lines.some((line) => line.includes('"kind":"callback"'))).toBe(true);
    const recorded = JSON.stringify((await listRequests()).body);
    for (const secret of secretsOfA) {
      expect(lines.join('\n')).not.toContain(secret);
      expect(recorded).not.toContain(secret);
    }
    expect(recorded).toContain('token ***');
    expect(recorded).toContain('api_key=sk_test_***');
    expect(lines.join('\n')).toContain('api_key=sk_test_***');
  });
});

describe('listRequests: the record of recent requests', () => {
  it('lists the service requests of the key’s merchant and mode, newest first, with the fields the dashboard shows', async () => {
    sandbox = await createTestSandbox();
    const first = await sandbox.request('POST', '/disbursements', {
      body: disbursement('payout-rec-1', 'Payout'),
      headers: { 'x-idempotency-key': 'idem-rec-1' },
    });
    const second = await sandbox.request('GET', '/balance');
    await sandbox.request('GET', '/sandbox/clock');
    const { status, body } = await listRequests();
    expect(status).toBe(200);
    const { data } = body as { data: Record<string, unknown>[] };
    // Control API requests (the clock read, this list) are not recorded.
    expect(data.map((entry) => entry.id)).toEqual([
      second.headers.get('x-request-id'),
      first.headers.get('x-request-id'),
    ]);
    expect(data[1]).toMatchObject({
      method: 'POST',
      path: '/disbursements',
      status: 200,
      error_code: null,
      idempotency_key: 'idem-rec-1',
    });
    expect(JSON.parse(data[1]!.request_body as string)).toMatchObject({ external_id: 'payout-rec-1' });
    expect(JSON.parse(data[1]!.response_body as string)).toMatchObject({
      external_id: 'payout-rec-1',
      status: 'PENDING',
    });
    expect(typeof data[1]!.duration_ms).toBe('number');
    expect(Date.parse(data[1]!.at as string)).not.toBeNaN();
    expect(data[0]).toMatchObject({ method: 'GET', path: '/balance', request_body: null, idempotency_key: null });
  });

  it('gives the time the request arrived, not the time its answer was made', async () => {
    sandbox = await createTestSandbox();
    const armed = await sandbox.request('POST', '/sandbox/faults', {
      body: { kind: 'delay', operation: 'getBalance', delay_ms: 1_000 },
    });
    expect(armed.status).toBe(200);
    const sent = Date.now();
    const answer = await sandbox.request('GET', '/balance');
    const answered = Date.now();
    const { data } = (await listRequests()).body as { data: { id: string; at: string }[] };
    const entry = data.find((recorded) => recorded.id === answer.headers.get('x-request-id'));
    const at = Date.parse(entry?.at ?? '');
    // Held back a second before its answer: nearer the sending than the answer, whatever the machine's load.
    expect(at - sent).toBeLessThan(answered - at);
    expect(at).toBeGreaterThanOrEqual(sent - 5);
  });

  it("never shows another merchant's requests, nor the other mode's", async () => {
    sandbox = await createTestSandbox();
    await sandbox.request('GET', '/balance', { key: 'bTest' });
    await sandbox.request('GET', '/balance', { key: 'aLive' });
    const a = await sandbox.request('GET', '/balance?account_type=CASH', { key: 'aTest' });
    const listed = (key: TestKeyName) =>
      listRequests(key).then(({ body }) => (body as { data: { id: string; path: string }[] }).data);
    expect((await listed('aTest')).map((entry) => entry.id)).toEqual([a.headers.get('x-request-id')]);
    expect(await listed('bTest')).toHaveLength(1);
    expect(await listed('aLive')).toHaveLength(1);
    expect(await listed('bLive')).toEqual([]);
  });

  it('keeps the newest 200 and answers `limit` of them', async () => {
    sandbox = await createTestSandbox();
    const ids: string[] = [];
    for (let i = 0; i < 205; i++) ids.push((await sandbox.request('GET', '/balance')).headers.get('x-request-id')!);
    const all = (await listRequests('aTest', '?limit=200')).body as { data: { id: string }[] };
    expect(all.data.map((entry) => entry.id)).toEqual(ids.slice(5).reverse());
    const some = (await listRequests('aTest', '?limit=3')).body as { data: { id: string }[] };
    expect(some.data.map((entry) => entry.id)).toEqual(ids.slice(-3).reverse());
    expect(((await listRequests()).body as { data: unknown[] }).data).toHaveLength(50);
  });

  it.each(['0', '201', 'abc', '1.5', ''])('answers limit=%j with a JSON 400', async (limit) => {
    sandbox = await createTestSandbox();
    const { status, body } = await listRequests('aTest', `?limit=${limit}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error_code: 'API_VALIDATION_ERROR', errors: [{ location: 'query', path: '/limit' }] });
  });

  it('needs a key', async () => {
    sandbox = await createTestSandbox();
    expect(await sandbox.request('GET', '/sandbox/requests', { key: null })).toMatchObject({
      status: 401,
      body: { error_code: 'INVALID_API_KEY' },
    });
  });
});

describe('GET /health', () => {
  it('answers 200 {"status":"ok"} without a key, and is not recorded', async () => {
    sandbox = await createTestSandbox();
    const answer = await sandbox.request('GET', '/health', { key: null });
    expect(answer).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(answer.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await sandbox.request('GET', '/health', { key: 'aTest' })).toMatchObject({ status: 200 });
    expect(((await listRequests()).body as { data: unknown[] }).data).toEqual([]);
  });

  it('answers 405 to another method, and 503 once the sandbox is stopping', async () => {
    sandbox = await createTestSandbox();
    expect(await sandbox.request('POST', '/health', { key: null })).toMatchObject({
      status: 405,
      body: { error_code: 'METHOD_NOT_ALLOWED' },
    });
    await sandbox.close();
    expect(await sandbox.request('GET', '/health', { key: null })).toMatchObject({
      status: 503,
      body: { status: 'unavailable', error_code: 'SANDBOX_UNAVAILABLE' },
    });
  });
});
