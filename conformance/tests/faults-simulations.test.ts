// Proof that check 7 drives a sandbox control API as its contract says (./fakes/control-api.ts): it points
// the dashboard callback settings at its receiver and puts them back, holds e-wallet payments for their
// simulations, and judges the callbacks the simulations cause; a simulation whose callback reports the
// wrong state is a failure against that webhook, and one the target refuses is reported as not triggered,
// never as passed.
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { runConformance } from '../run.js';
import type { CheckResult, RunSummary } from '../types.js';
import {
  controlDocument,
  startControlApiTarget,
  type ControlApiOptions,
  type ControlApiTarget,
} from './fakes/control-api.js';

const contract = loadContract();
const API_KEY = 'sk_test_conformance_control';
const TOKEN = 'cbtok_test_control';
// Short enough for a test, long enough that scheduling jitter on a loaded machine stays within tolerance.
const INTERVAL_MS = 400;

let target: ControlApiTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function run(webhooks: string[], faults: Partial<ControlApiOptions> = {}, waitMs = 3000): Promise<RunSummary> {
  target = await startControlApiTarget(contract, {
    apiKey: API_KEY,
    callbackToken: TOKEN,
    attempts: 3,
    intervalMs: INTERVAL_MS,
    ...faults,
  });
  return runConformance({
    baseUrl: target.url,
    apiKey: API_KEY,
    profile: 'full',
    only: webhooks.map((w) => `callbacks:${w}`),
    timeoutMs: 3000,
    concurrency: 4,
    strict: false,
    // No public URL: the target learns the receiver's address from the suite, through the control API.
    callbacks: { listen: { host: '127.0.0.1', port: 0 }, token: TOKEN, retryIntervalMs: INTERVAL_MS, waitMs },
  });
}

const result = (summary: RunSummary, webhook: string): CheckResult => {
  const found = summary.results.find((r) => r.check === 'callbacks' && r.subject === webhook);
  if (!found) throw new Error(`no callbacks result for ${webhook}`);
  return found;
};
const text = (r: CheckResult): string =>
  [...r.findings.map((f) => f.message), r.skippedReason ?? '', ...(r.notes ?? [])].join('\n');

describe('check 7 against a target with a sandbox control API', () => {
  it('passes a target whose simulations send the callbacks they should, and restores its settings', async () => {
    const summary = await run(['disbursementFinished', 'ewalletPayment']);
    for (const webhook of ['disbursementFinished', 'ewalletPayment'])
      expect(result(summary, webhook).outcome, text(result(summary, webhook))).toBe('passed');
    // complete + fail + the retry measurement; the e-wallet test amounts + approve + decline + the retry measurement.
    expect(result(summary, 'disbursementFinished').cases).toBe(3);
    expect(text(result(summary, 'ewalletPayment'))).not.toMatch(/not triggered: /);
    expect(text(result(summary, 'disbursementFinished'))).toMatch(
      /pointed at the receiver through the sandbox control API \(updateSettings\) and restored/,
    );
    expect(target?.calls.get('approveEwalletPayment')).toBe(1);
    const settings = target?.settings();
    expect(Object.values((settings?.callback_urls ?? {}) as Record<string, unknown>).every((url) => url === null)).toBe(
      true,
    );
    expect(settings?.ewallet_auto_resolve).toBe(true);
  }, 20_000);

  it('reports a simulation whose callback carries another state than x-simulates leads to', async () => {
    const summary = await run(['disbursementFinished'], { wrongState: ['completeDisbursement'] });
    const failed = result(summary, 'disbursementFinished');
    expect(failed.outcome).toBe('failed');
    expect(text(failed)).toMatch(
      /status is "FAILED"; x-simulates of completeDisbursement \(disbursement bank_confirmed_transfer\) says "COMPLETED"/,
    );
    expect(failed.findings.find((f) => f.message.includes('x-simulates'))?.curl).toMatch(
      /^curl .*\/sandbox\/disbursements\/.*\/complete/,
    );
  }, 20_000);

  it('reports a refused simulation as not triggered, and the webhook as skipped when nothing else triggers it', async () => {
    const summary = await run(['disbursementFinished'], { refuse: ['completeDisbursement', 'failDisbursement'] });
    expect(result(summary, 'disbursementFinished')).toMatchObject({
      outcome: 'skipped',
      skippedReason: expect.stringMatching(
        /completeDisbursement \(sandbox control API\): expected status 200, got 409/,
      ),
    });
  }, 20_000);

  it('notices when the hold setting does not hold: the approval cannot be simulated', async () => {
    const summary = await run(['ewalletPayment'], { ignoreHold: true });
    expect(text(result(summary, 'ewalletPayment'))).toMatch(
      /not triggered: createEwalletPayment, then approveEwalletPayment: approveEwalletPayment \(sandbox control API\): expected status 200, got 409/,
    );
  }, 20_000);

  it('cannot reach dashboard callbacks when the control contract names no callback settings', async () => {
    const summary = await run(['disbursementFinished'], { document: controlDocument({ callbackSettings: false }) });
    expect(result(summary, 'disbursementFinished')).toMatchObject({
      outcome: 'skipped',
      skippedReason: expect.stringMatching(/dashboard setting disbursement_callback_url, which the suite cannot set/),
    });
    expect(target?.calls.get('completeDisbursement')).toBeUndefined();
  }, 20_000);

  it('skips, with the reason, what a control contract without x-simulates cannot trigger', async () => {
    const summary = await run(['disbursementFinished'], { document: controlDocument({ simulates: false }) });
    expect(result(summary, 'disbursementFinished')).toMatchObject({
      outcome: 'skipped',
      skippedReason: expect.stringMatching(/declares no simulation \(x-simulates\)/),
    });
  }, 20_000);
});
