// A disbursement finishes by itself (auto-resolve) the delay after creation: COMPLETED with its callback, or, for
// each destination account number the control contract's test mode lists, FAILED with that failure code
// and the amount back in CASH; with `disbursement_auto_resolve` off the control API decides, as it can
// while the disbursement is PENDING either way.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxTestMode } from '../contract.js';
import { createTestSandbox, TEST_CALLBACK_URL, type TestKeyName, type TestSandbox } from '../testing/index.js';
import { logTransactions } from './testing.js';

const testMode = sandboxTestMode('createDisbursement');
const START = Date.parse('2026-11-21T09:30:00.000Z');
const request = {
  external_id: 'payout-auto-0001',
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '1234567890',
  description: 'Komisi penjualan November 2026',
  amount: 17500000,
};

let sandbox: TestSandbox;
let delay: number;
beforeEach(async () => {
  // Real time stands still: only advancing the clock brings the outcome.
  sandbox = await createTestSandbox({ realTime: () => START });
  delay = sandbox.app.platform.autoResolve.delayMs;
});
afterEach(() => sandbox.close());

async function create(overrides: Partial<typeof request> = {}, key: TestKeyName = 'aTest') {
  const result = await sandbox.service(key).createDisbursement({ body: { ...request, ...overrides } });
  if (!result.ok) throw new Error(`creation refused: ${result.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

async function read(id: string, key: TestKeyName = 'aTest') {
  const result = await sandbox.service(key).getDisbursement({ path: { id } });
  if (!result.ok) throw new Error(`lookup refused: ${result.status}`);
  return result.data;
}

async function cash(key: TestKeyName = 'aTest'): Promise<number> {
  const result = await sandbox.service(key).getBalance({ query: { account_type: 'CASH' } });
  if (!result.ok) throw new Error('no balance');
  return result.data.balance;
}

const callbacksOf = (id: string) =>
  sandbox.callbacks
    .filter((c) => c.url === TEST_CALLBACK_URL && (c.body as { id?: string }).id === id)
    .map((c) => c.body);
const conflict = async (answer: Promise<{ status: number }>) => (await answer).status;

describe('auto-resolve (disbursement_auto_resolve on, the default)', () => {
  it('completes a disbursement created with no further call: COMPLETED once the delay has passed, its callback delivered, CASH debited once', async () => {
    const before = await cash();
    const disbursement = await create();
    await sandbox.advance(delay - 1);
    expect((await read(disbursement.id)).status).toBe('PENDING');
    expect(callbacksOf(disbursement.id)).toEqual([]);
    await sandbox.advance(1);
    expect(await read(disbursement.id)).toMatchObject({
      status: 'COMPLETED',
      updated: new Date(START + delay).toISOString(),
    });
    expect(callbacksOf(disbursement.id)).toEqual([
      expect.objectContaining({ id: disbursement.id, status: 'COMPLETED', is_instant: true }),
    ]);
    expect(await cash()).toBe(before - request.amount);
  });

  it("ends its countdown beside the disbursement's read in the deciding transaction, not before it", async () => {
    const disbursement = await create();
    const logging = logTransactions(sandbox.ctx.store);
    try {
      await sandbox.advance(delay);
    } finally {
      logging.restore();
    }
    expect((await read(disbursement.id)).status).toBe('COMPLETED');
    const deciding = logging.transactions.find((log) => log.includes('asked discard sandbox_jobs'));
    expect(deciding?.slice(0, 2).sort()).toEqual(['asked discard sandbox_jobs', 'asked get disbursements']);
  });

  it('completes in real time too: the delay passes without anyone moving the clock', async () => {
    const live = await createTestSandbox({ config: { autoProgressDelayMs: 50 } });
    try {
      const created = await live.service().createDisbursement({ body: request });
      if (!created.ok) return expect.fail('creation refused');
      const callback = await live.waitForCallback((c) => (c.body as { id?: string }).id === created.data.id, 5000);
      expect(callback.body).toMatchObject({ status: 'COMPLETED' });
    } finally {
      await live.close();
    }
  });

  it.each(testMode.outcomes.map((o) => [o.value, o.failureCode] as const))(
    'fails a disbursement to account %s with %s, the amount back in CASH, its callback carrying the code',
    async (accountNumber, failureCode) => {
      const before = await cash();
      const disbursement = await create({ account_number: String(accountNumber) });
      expect(await cash()).toBe(before - request.amount);
      await sandbox.advance(delay);
      expect(await read(disbursement.id)).toMatchObject({ status: 'FAILED', failure_code: failureCode });
      expect(await cash()).toBe(before);
      expect(callbacksOf(disbursement.id)).toEqual([
        expect.objectContaining({ status: 'FAILED', failure_code: failureCode, is_instant: false }),
      ]);
    },
  );

  it('completes with a live key whatever the account number (the test values are test mode)', async () => {
    const disbursement = await create({ account_number: String(testMode.outcomes[0]?.value) }, 'aLive');
    await sandbox.advance(delay, 'aLive');
    expect((await read(disbursement.id, 'aLive')).status).toBe('COMPLETED');
  });

  it("waits for its own merchant and mode's clock", async () => {
    const disbursement = await create();
    await sandbox.advance(delay, 'bTest');
    await sandbox.advance(delay, 'aLive');
    expect((await read(disbursement.id)).status).toBe('PENDING');
  });

  it('lets the control API decide while it is PENDING; its time then changes nothing', async () => {
    const before = await cash();
    const disbursement = await create();
    expect(
      (
        await sandbox
          .control()
          .failDisbursement({ path: { id: disbursement.id }, body: { failure_code: 'REJECTED_BY_BANK' } })
      ).status,
    ).toBe(200);
    await sandbox.advance(delay);
    expect(await read(disbursement.id)).toMatchObject({ status: 'FAILED', failure_code: 'REJECTED_BY_BANK' });
    expect(await cash()).toBe(before);
    expect(callbacksOf(disbursement.id)).toHaveLength(1);
  });

  it('answers the control API 409 SANDBOX_STATE_CONFLICT once it finished by itself', async () => {
    const disbursement = await create();
    await sandbox.advance(delay);
    expect(await conflict(sandbox.control().completeDisbursement({ path: { id: disbursement.id }, body: {} }))).toBe(
      409,
    );
    expect(
      await conflict(
        sandbox.control().failDisbursement({ path: { id: disbursement.id }, body: { failure_code: 'TRANSFER_ERROR' } }),
      ),
    ).toBe(409);
  });

  it('keeps its countdown across a restart', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-auto-'));
    try {
      const first = await createTestSandbox({ realTime: () => START, config: { dataDir } });
      const created = await first
        .service()
        .createDisbursement({ body: { ...request, account_number: String(testMode.outcomes[0]?.value) } });
      await first.close();
      if (!created.ok) return expect.fail('creation refused');
      const second = await createTestSandbox({ realTime: () => START, config: { dataDir } });
      try {
        await second.advance(delay);
        const after = await second.service().getDisbursement({ path: { id: created.data.id } });
        expect(after.ok && after.data).toMatchObject({
          status: 'FAILED',
          failure_code: testMode.outcomes[0]?.failureCode,
        });
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('manual control (disbursement_auto_resolve off)', () => {
  it('keeps a disbursement PENDING, whatever its account number, until the control API completes it', async () => {
    expect((await sandbox.control().updateSettings({ body: { disbursement_auto_resolve: false } })).ok).toBe(true);
    const disbursement = await create({ account_number: String(testMode.outcomes[0]?.value) });
    await sandbox.advance(10 * delay);
    expect((await read(disbursement.id)).status).toBe('PENDING');
    expect(callbacksOf(disbursement.id)).toEqual([]);
    expect((await sandbox.control().completeDisbursement({ path: { id: disbursement.id }, body: {} })).status).toBe(
      200,
    );
    expect((await read(disbursement.id)).status).toBe('COMPLETED');
  });

  it('keeps one whose countdown had started PENDING when the setting is turned off before its time', async () => {
    const disbursement = await create();
    await sandbox.advance(delay - 1);
    expect((await sandbox.control().updateSettings({ body: { disbursement_auto_resolve: false } })).ok).toBe(true);
    await sandbox.advance(delay);
    expect((await read(disbursement.id)).status).toBe('PENDING');
  });
});
