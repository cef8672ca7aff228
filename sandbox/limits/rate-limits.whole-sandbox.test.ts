// The contract's rate limits through the whole in-process sandbox, with real time held still inside one
// window: every answer of a limited key says where it stands (RateLimit-*), the request past the limit gets
// the contract's 429, and the next window, another key or the setting turned off are served. The 429 is
// judged against the contract the way the conformance suite judges any answer.
import { afterEach, describe, expect, it } from 'vitest';
import { serviceRateLimits, controlRateLimits } from '../contract.js';
import { contractFindings } from '../testing/contract-findings.js';
import { createTestSandbox, type RawAnswer, type TestKeyName, type TestSandbox } from '../testing/index.js';

let sandbox: TestSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** A sandbox whose real time stands at the start of a second until `move` moves it. */
async function start(config: Parameters<typeof createTestSandbox>[0] = {}) {
  let now = Date.parse('2026-11-24T06:00:00.000Z');
  sandbox = await createTestSandbox({ ...config, realTime: () => now });
  return { sandbox, move: (ms: number) => (now += ms) };
}

const balance = (s: TestSandbox, key: TestKeyName = 'aTest'): Promise<RawAnswer> =>
  s.request('GET', '/balance', { key });
const headersOf = (answer: RawAnswer) => ({
  limit: answer.headers.get('ratelimit-limit'),
  remaining: answer.headers.get('ratelimit-remaining'),
  reset: answer.headers.get('ratelimit-reset'),
  retryAfter: answer.headers.get('retry-after'),
});

describe('rate limits (on by default, at the values the contract decides)', () => {
  const read = serviceRateLimits.get('getBalance')!;

  it('count a key’s reads down in RateLimit-Remaining, then answer the contract’s 429 with Retry-After until the window ends', async () => {
    const { sandbox, move } = await start();
    expect(read).toMatchObject({ group: 'read', limit: 100, windowSeconds: 1 });
    const answers: RawAnswer[] = [];
    for (let n = 0; n < read.limit; n++) answers.push(await balance(sandbox));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(answers.map((answer) => Number(headersOf(answer).remaining))).toEqual(
      Array.from({ length: read.limit }, (_, n) => read.limit - 1 - n),
    );
    expect(headersOf(answers[0]!)).toMatchObject({ limit: '100', reset: '1' });

    const refused = await balance(sandbox);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error_code: 'RATE_LIMIT_EXCEEDED' });
    expect(headersOf(refused)).toEqual({ limit: '100', remaining: '0', reset: '1', retryAfter: '1' });
    expect(contractFindings('getBalance', refused)).toEqual([]);
    // The judge is not blind: the same 429 without its Retry-After, or with a limit that is not a number, is off the contract.
    const withHeaders = (change: (headers: Headers) => void): RawAnswer => {
      const headers = new Headers(refused.headers);
      change(headers);
      return { ...refused, headers };
    };
    expect(
      contractFindings(
        'getBalance',
        withHeaders((h) => h.delete('retry-after')),
      ),
    ).toEqual(['the 429 answer lacks the retry-after header the contract requires']);
    expect(
      contractFindings(
        'getBalance',
        withHeaders((h) => h.set('ratelimit-limit', 'many')),
      ),
    ).toEqual([expect.stringMatching(/^header ratelimit-limit: "many" must be integer/)]);
    expect(contractFindings('getBalance', answers[0]!)).toEqual([]);

    move(1000);
    const served = await balance(sandbox);
    expect([served.status, headersOf(served).remaining]).toEqual([200, '99']);
  });

  it('count each key on its own: another merchant and the other mode are served while one key is refused', async () => {
    const { sandbox } = await start();
    for (let n = 0; n <= read.limit; n++) await balance(sandbox);
    expect((await balance(sandbox)).status).toBe(429);
    expect((await balance(sandbox, 'bTest')).status).toBe(200);
    expect((await balance(sandbox, 'aLive')).status).toBe(200);
  });

  it('count writes in their own group, apart from reads', async () => {
    const { sandbox } = await start();
    const write = serviceRateLimits.get('createCustomer')!;
    expect(write).toMatchObject({ group: 'write', limit: 50 });
    for (let n = 0; n <= read.limit; n++) await balance(sandbox);
    const created = await sandbox.request('POST', '/customers', {
      body: { reference_id: 'limits-1', type: 'INDIVIDUAL', individual_detail: { given_names: 'Siti' } },
      headers: { 'idempotency-key': 'limits-1' },
    });
    expect(created.status).not.toBe(429);
    expect(headersOf(created)).toMatchObject({ limit: '50', remaining: '49' });
  });

  it('hold the control API to its own group', async () => {
    const { sandbox } = await start();
    const control = controlRateLimits.get('getClock')!;
    expect(control).toMatchObject({ group: 'control', limit: 100 });
    for (let n = 0; n < control.limit; n++) expect((await sandbox.request('GET', '/sandbox/clock')).status).toBe(200);
    const refused = await sandbox.request('GET', '/sandbox/clock');
    expect([refused.status, (refused.body as { error_code?: string }).error_code]).toEqual([
      429,
      'RATE_LIMIT_EXCEEDED',
    ]);
  });

  it('count no request without a valid key: 401s do not spend the key’s window', async () => {
    const { sandbox } = await start();
    for (let n = 0; n < 150; n++)
      expect((await sandbox.request('GET', '/balance', { key: 'sk_test_nobody' })).status).toBe(401);
    expect(headersOf(await balance(sandbox)).remaining).toBe('99');
  });

  it('are off for a merchant and mode whose setting says so: no 429, no RateLimit fields', async () => {
    const { sandbox } = await start();
    const updated = await sandbox.request('PATCH', '/sandbox/settings', { body: { rate_limits_enabled: false } });
    expect(updated.status).toBe(200);
    expect((updated.body as { rate_limits_enabled: boolean }).rate_limits_enabled).toBe(false);
    const answers: RawAnswer[] = [];
    for (let n = 0; n <= read.limit + 5; n++) answers.push(await balance(sandbox));
    expect(answers.every((answer) => answer.status === 200 && answer.headers.get('ratelimit-limit') === null)).toBe(
      true,
    );
    // The other mode keeps its own setting.
    expect(headersOf(await balance(sandbox, 'aLive')).limit).toBe('100');
  });

  it('are off by default with SANDBOX_RATE_LIMITS=false, and a merchant may turn them on', async () => {
    const { sandbox } = await start({ config: { rateLimits: false } });
    expect((await balance(sandbox)).headers.get('ratelimit-limit')).toBeNull();
    expect((await sandbox.request('PATCH', '/sandbox/settings', { body: { rate_limits_enabled: true } })).status).toBe(
      200,
    );
    expect(headersOf(await balance(sandbox)).limit).toBe('100');
  });
});
