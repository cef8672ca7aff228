// Proof that check 7 catches what it claims: a target that sends callbacks (./fakes/callback-target.ts)
// passes when it follows the contract, and each fault (wrong token, invalid body, too few retries, retries
// too fast, no callback at all) is reported against the webhook it concerns, while redeliveries pass and
// what cannot be triggered is skipped with a reason.
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import { freePort } from '../mock/prism.js';
import { runConformance } from '../run.js';
import type { CheckResult, RunOptions, RunSummary } from '../types.js';
import { startCallbackTarget, type CallbackTarget, type CallbackTargetOptions } from './fakes/callback-target.js';

const contract = loadContract();
const API_KEY = 'sk_test_conformance_callbacks';
const TOKEN = 'cbtok_test_conformance';
// Short enough for a test, long enough that scheduling jitter on a loaded machine stays within tolerance.
const INTERVAL_MS = 500;

let target: CallbackTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

/** Runs check 7 (and check 1 on the exchanges it makes) against the fake target broken as `faults` says. */
async function run(
  webhooks: string[],
  faults: Partial<CallbackTargetOptions> = {},
  callbacks: Partial<NonNullable<RunOptions['callbacks']>> = {},
): Promise<RunSummary> {
  // The free port is found before the receiver binds it; another process may take it in between.
  for (let attempt = 1; ; attempt++) {
    const summary = await runOnce(webhooks, faults, callbacks);
    if (attempt === 3 || !summary.results.some((r) => /could not listen/.test(r.skippedReason ?? ''))) return summary;
    await target?.close();
  }
}

async function runOnce(
  webhooks: string[],
  faults: Partial<CallbackTargetOptions>,
  callbacks: Partial<NonNullable<RunOptions['callbacks']>>,
): Promise<RunSummary> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  target = await startCallbackTarget(contract, {
    apiKey: API_KEY,
    callbackToken: TOKEN,
    dashboardUrl: `${publicUrl}/dashboard`,
    attempts: 3,
    intervalMs: INTERVAL_MS,
    ...faults,
  });
  return runConformance({
    baseUrl: target.url,
    apiKey: API_KEY,
    profile: 'full',
    only: [...webhooks.map((w) => `callbacks:${w}`), 'response_conformance'],
    timeoutMs: 3000,
    concurrency: 4,
    strict: false,
    callbacks: {
      listen: { host: '127.0.0.1', port },
      publicUrl,
      token: TOKEN,
      retryIntervalMs: INTERVAL_MS,
      // Three attempts 500 ms apart arrive within about a second; at a load of 10 the third once came after 3 s.
      waitMs: 6000,
      ...callbacks,
    },
  });
}

const result = (summary: RunSummary, webhook: string): CheckResult => {
  const found = summary.results.find((r) => r.check === 'callbacks' && r.subject === webhook);
  if (!found) throw new Error(`no callbacks result for ${webhook}`);
  return found;
};
const messages = (r: CheckResult): string => [...r.findings.map((f) => f.message), r.skippedReason ?? ''].join('\n');

describe('check 7 against a target that sends callbacks', () => {
  it('passes a target that follows the contract, with check 1 clean on every triggering exchange', async () => {
    const summary = await run(['ewalletPayment', 'directDebitPayment', 'fixedVirtualAccountChanged']);
    for (const webhook of ['ewalletPayment', 'directDebitPayment', 'fixedVirtualAccountChanged']) {
      expect(result(summary, webhook), messages(result(summary, webhook))).toMatchObject({ outcome: 'passed' });
    }
    expect(summary.results.filter((r) => r.outcome === 'failed')).toEqual([]);
    expect(result(summary, 'directDebitPayment').notes?.join('\n')).toContain(
      `retry spacing judged against ${INTERVAL_MS} ms`,
    );
    // Every triggering request went through check 1.
    expect(
      summary.results.find((r) => r.check === 'response_conformance' && r.subject === 'validateDirectDebitPaymentOtp')
        ?.outcome,
    ).toBe('passed');
  }, 20_000);

  it('reports a wrong callback token against that webhook only, without printing the token', async () => {
    const summary = await run(['ewalletPayment', 'directDebitPayment'], { wrongToken: ['directDebitPayment'] });
    const failed = result(summary, 'directDebitPayment');
    expect(failed.outcome).toBe('failed');
    expect(messages(failed)).toMatch(/x-callback-token header does not match the callback token/);
    expect(JSON.stringify(failed)).not.toContain(TOKEN);
    expect(result(summary, 'ewalletPayment').outcome).toBe('passed');
  }, 20_000);

  it('reports an invalid body with the schema path it broke', async () => {
    const corrupt = { ewalletPayment: (body: JsonObject): JsonObject => ({ ...body, amount: String(body.amount) }) };
    const summary = await run(['ewalletPayment', 'directDebitPayment'], { corrupt });
    const failed = result(summary, 'ewalletPayment');
    expect(failed.outcome).toBe('failed');
    const finding = failed.findings.find((f) => f.message.includes('/amount'));
    expect(finding?.schemaPath).toMatch(/amount/);
    expect(result(summary, 'directDebitPayment').outcome).toBe('passed');
  }, 20_000);

  it('reports a body that does not carry the outcome the test amount selects', async () => {
    const corrupt = {
      ewalletPayment: (body: JsonObject): JsonObject =>
        ({ ...body, status: 'COMPLETED', failure_code: undefined }) as unknown as JsonObject,
    };
    const summary = await run(['ewalletPayment'], { corrupt });
    expect(messages(result(summary, 'ewalletPayment'))).toMatch(
      /status is "COMPLETED"; x-test-mode of createEwalletPayment/,
    );
  }, 20_000);

  it('reports a target that gives up after two attempts', async () => {
    const summary = await run(['directDebitPayment'], { attempts: 2 });
    const failed = result(summary, 'directDebitPayment');
    expect(failed.outcome).toBe('failed');
    expect(messages(failed)).toMatch(/2 attempt\(s\) while every attempt failed; x-delivery.attempts is 3/);
  }, 20_000);

  it('reports retries that come too fast', async () => {
    const summary = await run(['directDebitPayment'], { intervalMs: 40 });
    expect(messages(result(summary, 'directDebitPayment'))).toMatch(
      /attempt 2 came \d+ ms after attempt 1; expected 500 ms/,
    );
  }, 20_000);

  it('reports a callback that never arrives', async () => {
    const summary = await run(['directDebitPayment'], { silent: ['directDebitPayment'] }, { waitMs: 500 });
    const failed = result(summary, 'directDebitPayment');
    expect(failed.outcome).toBe('failed');
    expect(messages(failed)).toMatch(/no directDebitPayment delivery for .* within 500 ms/);
    expect(failed.findings[0]?.curl).toMatch(/^curl .*validate_otp/);
  }, 20_000);

  it('accepts redeliveries of an acknowledged callback', async () => {
    const summary = await run(['ewalletPayment'], { duplicate: true });
    const passed = result(summary, 'ewalletPayment');
    expect(passed.outcome, messages(passed)).toBe('passed');
    expect(passed.notes?.join('\n')).toMatch(/redelivery\(ies\) of an acknowledged callback accepted/);
  }, 20_000);

  it('skips, with the reason, what it cannot trigger; never passes it', async () => {
    const summary = await run(['ewalletPayment', 'disbursementFinished'], {}, { publicUrl: undefined });
    expect(result(summary, 'ewalletPayment')).toMatchObject({
      outcome: 'skipped',
      skippedReason: expect.stringMatching(/dashboard setting ewallet_callback_url.*--callback-public-url/),
    });
    expect(result(summary, 'disbursementFinished')).toMatchObject({
      outcome: 'skipped',
      skippedReason: expect.stringMatching(/target offers no sandbox control API/),
    });
  }, 20_000);

  it('skips a callback whose triggering requests fail, naming the step', async () => {
    const summary = await run(['directDebitPayment'], { failing: ['createPaymentMethod'] });
    expect(result(summary, 'directDebitPayment')).toMatchObject({
      outcome: 'skipped',
      skippedReason: expect.stringMatching(
        /payment_method_id: createPaymentMethod \(createPaymentMethod\): expected status 200, got 500/,
      ),
    });
  }, 20_000);

  it('skips every webhook when no receiver is configured', async () => {
    const summary = await runConformance({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: API_KEY,
      profile: 'full',
      only: ['callbacks'],
      timeoutMs: 500,
      concurrency: 2,
      strict: false,
    });
    expect(summary.results.length).toBe(contract.model.webhooks.length);
    expect(
      summary.results.every((r) => r.outcome === 'skipped' && /--callback-listen/.test(r.skippedReason ?? '')),
    ).toBe(true);
  });
});
