// Two sandboxes over one PostgreSQL database, each with its own connections, caches and dispatcher, driven
// through HTTP: what one is told, the other knows at once; one idempotency key sent to both at once makes one
// resource; a fault armed through one answers exactly as many requests as armed, whichever sandbox gets
// them; the database going away is a JSON 503 from both, and both serve again when it is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import { startInProcessCluster, type InProcessCluster } from './testing/in-process-cluster.js';

const { server } = useThrowawayPostgres();
let cluster: InProcessCluster;

beforeAll(async () => {
  // Rate limits off: the 100 concurrent creations below fill a key's write limit (50 per second per sandbox), and
  // a creation in the same second would be a 429 that says nothing of sharing a database.
  cluster = await startInProcessCluster({
    databaseUrl: server().url,
    config: { callbackUrl: 'http://127.0.0.1:9/callbacks', rateLimits: false },
    appOptions: () => ({ fetch: async () => new Response(null, { status: 200 }) }),
  });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

const authorization = `Basic ${Buffer.from(`${DEFAULT_TEST_SECRET_KEY}:`).toString('base64')}`;

/** A request to instance `index` (0 or 1), its status and JSON body. */
async function call(
  index: number,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> & unknown[] }> {
  const response = await fetch(`${cluster.instances[index]!.listening.url}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> & unknown[] };
}

const disbursement = (externalId: string) => ({
  external_id: externalId,
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '1234567890',
  description: 'Komisi',
  amount: 17500,
});

describe('two sandboxes on one PostgreSQL database', () => {
  it('see a clock moved through the other at once', async () => {
    const before = (await call(1, 'GET', '/sandbox/clock')).json.offset_ms as number;
    expect((await call(0, 'POST', '/sandbox/clock/advance', { milliseconds: 3_600_000 })).status).toBe(200);
    expect((await call(1, 'GET', '/sandbox/clock')).json.offset_ms).toBe(before + 3_600_000);
  });

  it('see a setting changed through the other at once, and a reset through the other', async () => {
    expect(
      (await call(1, 'PATCH', '/sandbox/settings', { default_disbursement_description: 'from the first sandbox' }))
        .status,
    ).toBe(200);
    expect((await call(0, 'GET', '/sandbox/settings')).json.default_disbursement_description).toBe(
      'from the first sandbox',
    );
    expect((await call(0, 'POST', '/sandbox/reset')).status).toBeLessThan(300);
    expect((await call(1, 'GET', '/sandbox/settings')).json.default_disbursement_description).toBeNull();
    expect((await call(1, 'GET', '/sandbox/clock')).json.offset_ms).toBe(0);
  });

  it('make one disbursement of 100 concurrent creations with one idempotency key, half sent to each: one created, 99 duplicates', async () => {
    const body = disbursement('cluster-idempotent-1');
    const cashBefore = (await call(0, 'GET', '/balance')).json.balance as number;
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        call(n % 2, 'POST', '/disbursements', body, { 'x-idempotency-key': 'cluster-key-1' }),
      ),
    );
    // The first creates it; every other is its duplicate, which a disbursement answers with DUPLICATE_TRANSACTION_ERROR.
    const created = answers.filter((answer) => answer.status === 200);
    expect(created).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200))
      expect(answer).toMatchObject({ status: 400, json: { error_code: 'DUPLICATE_TRANSACTION_ERROR' } });
    const listed = await call(1, 'GET', `/disbursements?external_id=${body.external_id}`);
    expect(listed.json).toHaveLength(1);
    expect((await call(1, 'GET', '/balance')).json.balance).toBe(cashBefore - body.amount);
  }, 60_000);

  it('answer with a fault armed through the other at once, and take each of its requests once between them: 5 of 40 concurrent requests, half sent to each', async () => {
    expect(
      (await call(0, 'POST', '/sandbox/faults', { kind: 'rate_limited', operation: 'getBalance', count: 5 })).status,
    ).toBe(200);
    const first = await call(1, 'GET', '/balance');
    expect(first).toMatchObject({ status: 429, json: { error_code: 'RATE_LIMIT_EXCEEDED' } });
    expect((await call(0, 'GET', '/sandbox/faults')).json).toMatchObject({ data: [{ remaining: 4 }] });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => call(n % 2, 'GET', '/balance')));
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(4);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(36);
    expect((await call(1, 'GET', '/sandbox/faults')).json).toEqual({ data: [] });
    // Used up through both: neither answers with it any more.
    expect(
      (await Promise.all([call(0, 'GET', '/balance'), call(1, 'GET', '/balance')])).map((answer) => answer.status),
    ).toEqual([200, 200]);
  }, 60_000);

  it('answer JSON 503 while the database is down, never a 500 or a hang, and serve again by themselves once it is back', async () => {
    await server().stopServer('immediate');
    try {
      const started = Date.now();
      // Requests that need the database; what each sandbox holds in memory (a clock read within the last
      // 25 ms) may still answer from there.
      const answers = await Promise.all([
        call(0, 'GET', '/balance'),
        call(1, 'POST', '/disbursements', disbursement('cluster-down-1')),
        call(0, 'GET', '/sandbox/callbacks'),
      ]);
      expect(Date.now() - started).toBeLessThan(10_000);
      for (const answer of answers)
        expect(answer).toMatchObject({ status: 503, json: { error_code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      await server().startServer();
    }
    const after = await Promise.all([
      call(0, 'POST', '/disbursements', disbursement('cluster-after-1')),
      call(1, 'GET', '/disbursements?external_id=cluster-after-1'),
    ]);
    expect(after[0].status).toBe(200);
    expect((await call(1, 'GET', '/disbursements?external_id=cluster-after-1')).json).toHaveLength(1);
  }, 60_000);
});
