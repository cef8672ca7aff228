// Proof that the callback_deliveries check catches what it claims against a target that sends callbacks
// (./fakes/callback-target.ts): the callbacks a conforming target sends while the run lasts pass; one sent
// again after the receiver acknowledged it, or one whose body reports another object, fails the check.
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import { freePort } from '../mock/prism.js';
import { runConformance } from '../run.js';
import type { CheckResult, RunSummary } from '../types.js';
import { startCallbackTarget, type CallbackTarget, type CallbackTargetOptions } from './fakes/callback-target.js';

const contract = loadContract();
const API_KEY = 'sk_test_conformance_callback_deliveries';
const TOKEN = 'cbtok_test_conformance_deliveries';
const WEBHOOK = 'ewalletPayment';

let target: CallbackTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

/** The callbacks check causes the e-wallet callbacks; callback_deliveries judges every delivery of the run. */
async function run(faults: Partial<CallbackTargetOptions> = {}): Promise<RunSummary> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  target = await startCallbackTarget(contract, {
    apiKey: API_KEY,
    callbackToken: TOKEN,
    dashboardUrl: `${publicUrl}/dashboard`,
    attempts: 3,
    intervalMs: 500,
    ...faults,
  });
  return runConformance({
    baseUrl: target.url,
    apiKey: API_KEY,
    profile: 'full',
    only: [`callbacks:${WEBHOOK}`, `callback_deliveries:${WEBHOOK}`],
    timeoutMs: 3000,
    concurrency: 4,
    strict: false,
    callbacks: { listen: { host: '127.0.0.1', port }, publicUrl, token: TOKEN, retryIntervalMs: 500, waitMs: 3000 },
  });
}

const result = (summary: RunSummary): CheckResult => {
  const found = summary.results.find((r) => r.check === 'callback_deliveries' && r.subject === WEBHOOK);
  if (!found) throw new Error(`no callback_deliveries result for ${WEBHOOK}`);
  return found;
};
const messages = (r: CheckResult): string => r.findings.map((f) => f.message).join('\n');

describe('callback_deliveries against a target that sends callbacks', () => {
  it('passes the callbacks of a conforming target, each matched to the payment the run created', async () => {
    const judged = result(await run());
    expect(judged.outcome, messages(judged)).toBe('passed');
    expect(judged.cases).toBeGreaterThan(0);
  }, 30_000);

  it('fails a callback sent again after the receiver acknowledged it', async () => {
    const judged = result(await run({ duplicate: true }));
    expect(judged.outcome).toBe('failed');
    expect(messages(judged)).toMatch(/sent again 1 time\(s\) after the receiver acknowledged it with 20\d/);
  }, 30_000);

  it('fails a callback that reports a payment the run never made', async () => {
    const corrupt = {
      [WEBHOOK]: (body: JsonObject): JsonObject => ({ ...body, external_id: `${String(body.external_id)}-other` }),
    };
    const judged = result(await run({ corrupt }));
    expect(messages(judged)).toMatch(/matches nothing the run did: no object the run created or read has external_id/);
  }, 30_000);
});
