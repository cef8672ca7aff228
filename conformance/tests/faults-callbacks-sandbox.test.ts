// Check 7 (callbacks) against the sandbox itself and against mutants of it (conformance/mutants/catalogue/
// callbacks.ts), at the sandbox's default 30 s between callback attempts: the suite brings the retries on by
// moving the sandbox's clock and times them from its delivery records, so each run takes seconds. The
// unmutated sandbox passes; an update whose callback reports the account as it was before, a dispatcher that
// retries at once and one that makes an attempt too many are each reported on the webhook they break.
import { describe, expect, it } from 'vitest';
import { mutants } from '../mutants/catalogue/callbacks.js';
import { runMutant } from '../mutants/runner.js';
import type { CheckResult, RunSummary } from '../types.js';

async function callbacksOf(name?: string): Promise<RunSummary> {
  const mutant = name === undefined ? undefined : mutants.find((m) => m.name === name);
  if (name !== undefined && !mutant) throw new Error(`no callbacks mutant ${name}`);
  // The unmutated sandbox too without the rate limits, as the mutants run: callbacks are what is judged here.
  return runMutant(mutant, { only: ['callbacks'], rateLimits: false, checkRateLimit: false });
}

const messages = (result: CheckResult | undefined): string[] =>
  (result?.findings ?? []).filter((f) => f.severity === 'failure').map((f) => f.message);
const byWebhook = (summary: RunSummary, webhook: string): CheckResult | undefined =>
  summary.results.find((r) => r.check === 'callbacks' && r.subject === webhook);
const CLOCK_NOTE =
  "retries brought on by moving the target's clock (advanceClock) and timed in its own time from its delivery records (listCallbackDeliveries)";

describe('check 7 against the sandbox and its callback mutants, at the default retry spacing', () => {
  it('passes the unmutated sandbox, its retries timed in its own time', async () => {
    const summary = await callbacksOf();
    const results = summary.results.filter((r) => r.check === 'callbacks');
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) {
      expect(result.outcome, `${result.subject}: ${messages(result).join('\n')}`).toBe('passed');
      expect(result.notes ?? [], result.subject).toContain(CLOCK_NOTE);
    }
    // Three attempts 30 s apart and a fourth interval, without waiting for them.
    expect(summary.wallMs).toBeLessThan(30_000);
  }, 60_000);

  it('catches an update callback that reports the account as it was before the update', async () => {
    const summary = await callbacksOf('fva-update-callback-stale-account');
    const changed = byWebhook(summary, 'fixedVirtualAccountChanged');
    expect(changed?.outcome).toBe('failed');
    expect(
      messages(changed).some((m) =>
        /carried the change updateFixedVirtualAccount made \(expected_amount 275000/.test(m),
      ),
      messages(changed).join('\n'),
    ).toBe(true);
    // Only the webhook the mistake is in.
    expect(summary.results.filter((r) => r.outcome === 'failed').map((r) => r.subject)).toEqual([
      'fixedVirtualAccountChanged',
    ]);
  }, 60_000);

  it('catches retries made at once instead of a retry interval apart, in the target time', async () => {
    const summary = await callbacksOf('callback-retries-without-spacing');
    const paid = byWebhook(summary, 'fixedVirtualAccountPaid');
    expect(paid?.outcome).toBe('failed');
    expect(
      messages(paid).some((m) =>
        /attempt 2 came \d+ ms after attempt 1; expected 30000 ms .*in the target's time \(listCallbackDeliveries\)/.test(
          m,
        ),
      ),
      messages(paid).join('\n'),
    ).toBe(true);
  }, 60_000);

  it('catches one attempt more than x-delivery allows', async () => {
    const summary = await callbacksOf('callback-one-attempt-too-many');
    const finished = byWebhook(summary, 'disbursementFinished');
    expect(finished?.outcome).toBe('failed');
    expect(messages(finished)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/the receiver got 4 attempt\(s\) while it failed every one; x-delivery\.attempts is 3/),
        expect.stringMatching(
          /4 attempt\(s\) while every attempt failed; x-delivery\.attempts is 3, in the target's time/,
        ),
      ]),
    );
  }, 60_000);
});
