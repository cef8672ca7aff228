// Check 5 against a small stateful fake of the contract: every workflow passes when the fake behaves, and
// each broken behaviour is reported against the workflow (and step) it belongs to, while the others pass.
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { runConformance } from '../run.js';
import { runCheck } from '../tests/check-context.js';
import { startStatefulTarget, type StatefulFaults } from '../tests/fakes/stateful-target.js';
import type { Target } from '../tests/target.js';
import type { CheckResult, RunSummary } from '../types.js';
import { createStatefulWorkflows } from './stateful-workflows.js';

const apiKey = 'sk_test_workflows';
const contract = loadContract();
let target: Target | undefined;

afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function run(faults: StatefulFaults = {}, only: string[] = ['stateful_workflows']): Promise<RunSummary> {
  target = await startStatefulTarget(contract, apiKey, faults);
  return runConformance({
    baseUrl: target.url,
    apiKey,
    profile: 'stateful',
    only,
    timeoutMs: 5_000,
    concurrency: 8,
    strict: false,
  });
}

const describeResults = (results: CheckResult[]): string =>
  results
    .map(
      (r) =>
        `${r.subject}: ${r.outcome}${r.skippedReason ? ` (${r.skippedReason})` : ''}${r.findings.map((f) => `\n  ${f.message}`).join('')}`,
    )
    .join('\n');

describe('stateful workflows against a target that implements the contract', () => {
  it('passes every workflow, each a subject with its steps counted', async () => {
    const summary = await run();
    const workflows = summary.results.filter((r) => r.check === 'stateful_workflows');
    expect(
      workflows.filter((r) => r.outcome !== 'passed'),
      describeResults(workflows),
    ).toEqual([]);
    expect(workflows.map((r) => r.subject)).toEqual(
      expect.arrayContaining([
        'fixed-virtual-account',
        'fixed-payment-code',
        'disbursement',
        'ewallet-payment',
        'ewallet-test-mode:80002',
        'ewallet-test-mode:80011',
        'ewallet-test-mode:default',
        'customer',
        'direct-debit',
        'unknown-id:getFixedVirtualAccount',
        'unknown-id:getDirectDebitPayment',
      ]),
    );
    expect(workflows.find((r) => r.subject === 'fixed-virtual-account')?.cases).toBe(5);
    // customer, link, OTP, accounts, payment method, its duplicate, debit, OTP, by id, by reference.
    expect(workflows.find((r) => r.subject === 'direct-debit')?.cases).toBe(10);
  }, 30_000);

  it('has check 1 judge every answer the workflows got', async () => {
    const summary = await run({}, ['stateful_workflows', 'response_conformance']);
    const judged = summary.results
      .filter((r) => r.check === 'response_conformance' && r.cases > 0)
      .map((r) => r.subject);
    expect(judged).toEqual(
      expect.arrayContaining([
        'createFixedVirtualAccount',
        'updateFixedVirtualAccount',
        'createPaymentMethod',
        'validateDirectDebitPaymentOtp',
        'getEwalletPaymentStatus',
      ]),
    );
    expect(
      summary.results.filter((r) => r.outcome === 'failed'),
      describeResults(summary.results),
    ).toEqual([]);
  }, 30_000);
});

describe('stateful workflows against broken targets', () => {
  const cases: [string, StatefulFaults, RegExp, RegExp][] = [
    [
      'an expired resource that can still be updated',
      { updateWhenInactive: true },
      /^fixed-(virtual-account|payment-code)$/,
      /^update when ended: update\w+ should answer \w+: expected status 400, got 200/,
    ],
    [
      'test amounts that complete',
      { ignoreTestAmounts: true },
      /^ewallet-test-mode:800\d\d$/,
      /^poll state: amount 800\d\d should end FAILED \(x-test-mode\), ended COMPLETED/,
    ],
    [
      'a duplicate payment method accepted',
      { allowDuplicatePaymentMethod: true },
      /^direct-debit$/,
      /^createPaymentMethod again: createPaymentMethod should answer \w+: .*\(steps not reached: createDirectDebitPayment, validateDirectDebitPaymentOtp, getDirectDebitPayment, getDirectDebitPaymentByReferenceId\)$/,
    ],
    [
      'unknown ids answered with a server error',
      { notFoundCode: 'SERVER_ERROR' },
      /^unknown-id:/,
      /^unknown \w+: \w+ should answer \w+_NOT_FOUND_ERROR: expected status 40\d, got 500/,
    ],
  ];

  it.each(cases)(
    'reports %s against the right workflows only',
    async (_name, faults, subjects, message) => {
      const summary = await run(faults);
      const failed = summary.results.filter((r) => r.outcome === 'failed');
      expect(failed.length).toBeGreaterThan(0);
      expect(
        failed.filter((r) => !subjects.test(r.subject)),
        describeResults(failed),
      ).toEqual([]);
      for (const result of failed) {
        expect(
          result.findings.some(
            (f) => message.test(f.message) && f.curl?.startsWith('curl ') && !f.curl.includes(apiKey),
          ),
          describeResults([result]),
        ).toBe(true);
      }
      expect(
        summary.results.filter((r) => subjects.test(r.subject) && r.outcome !== 'failed'),
        describeResults(summary.results),
      ).toEqual([]);
    },
    30_000,
  );

  it('skips, with the reason, a test-mode outcome the status operation never shows', async () => {
    target = await startStatefulTarget(contract, apiKey, { outcomeByCallbackOnly: true });
    const check = createStatefulWorkflows({ pollTimeoutMs: 300, pollIntervalMs: 50 });
    const { results } = await runCheck(check, { baseUrl: target.url, apiKey, only: ['ewallet-test-mode:*'] });
    expect(results.length).toBeGreaterThan(1);
    for (const result of results) {
      expect(result.outcome, describeResults([result])).toBe('skipped');
      expect(result.skippedReason).toMatch(/still PENDING after 300 ms .* only by callback/);
    }
  });

  it('skips a workflow the target refuses for its configuration, never passes it', async () => {
    const summary = await run({ insufficientBalance: true });
    const disbursement = summary.results.find((r) => r.subject === 'disbursement');
    expect(disbursement?.outcome).toBe('skipped');
    expect(disbursement?.skippedReason).toMatch(/insufficient_balance/);
  }, 30_000);

  it('fails every workflow, without crashing or hanging, when the target is unreachable', async () => {
    target = await startStatefulTarget(contract, apiKey);
    const url = target.url;
    await target.close();
    target = undefined;
    const summary = await runConformance({
      baseUrl: url,
      apiKey,
      profile: 'stateful',
      only: ['stateful_workflows'],
      timeoutMs: 2_000,
      concurrency: 8,
      strict: false,
    });
    expect(summary.results.length).toBeGreaterThan(0);
    expect(
      summary.results.filter((r) => r.outcome !== 'failed'),
      describeResults(summary.results),
    ).toEqual([]);
    expect(
      summary.results.every((r) => r.findings.some((f) => /fetch failed|ECONNREFUSED|connect/i.test(f.message))),
    ).toBe(true);
  }, 30_000);
});
