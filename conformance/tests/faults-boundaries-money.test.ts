// Proof of the `boundaries` and `money` checks against broken sandboxes (conformance/mutants/catalogue/):
// each mutant is caught by its own check on the operation it breaks, and the sandbox as it is passes both.
import { describe, expect, it } from 'vitest';
import { mutants as boundaryMutants } from '../mutants/catalogue/boundaries.js';
import { mutants as moneyMutants } from '../mutants/catalogue/money.js';
import { runMutant } from '../mutants/runner.js';
import type { Mutant } from '../mutants/types.js';
import type { CheckName, RunSummary } from '../types.js';

/** The subject each mutant must fail on: the operation whose request or transition it breaks. */
const EXPECTED_SUBJECT: Record<string, string> = {
  'disbursement-minimum-exclusive': 'createDisbursement',
  'disbursement-maximum-off-by-one': 'createDisbursement',
  'disbursement-minimum-on-every-bank': 'createDisbursement',
  'bca-account-digits-on-every-bank': 'createDisbursement',
  'fva-external-id-max-length-off-by-one': 'createFixedVirtualAccount',
  'disbursement-failure-not-refunded': 'failDisbursement',
  'disbursement-refunded-on-completion': 'completeDisbursement',
  'disbursement-debited-twice': 'createDisbursement',
  'fva-payment-credited-to-holding': 'simulateFixedVirtualAccountPayment',
  'fva-payment-credited-twice': 'simulateFixedVirtualAccountPayment',
  'ewallet-approval-not-credited': 'approveEwalletPayment',
  'fpc-settling-credited-to-cash': 'simulateFixedPaymentCodePayment',
  'direct-debit-completion-not-credited': 'completeDirectDebitPayment',
};

// The unmutated sandbox runs as the mutants do, without the rate limits (as the catalogue runs these checks): it
// passes under the conditions its mutants fail under, and waits out no window. faults-rate-limit holds the limits.
const run = (mutant: Mutant | undefined, only: string[]): Promise<RunSummary> =>
  runMutant(mutant, { only, rateLimits: false, checkRateLimit: false });

const failures = (summary: RunSummary, check: CheckName): string[] =>
  summary.results.filter((r) => r.check === check && r.outcome === 'failed').map((r) => r.subject);

describe('the unmutated sandbox', () => {
  it('passes boundaries and money on every subject, skipping none', async () => {
    const summary = await run(undefined, ['boundaries', 'money']);
    const mine = summary.results.filter((r) => r.check === 'boundaries' || r.check === 'money');
    expect(
      mine
        .filter((r) => r.outcome !== 'passed')
        .map(
          (r) =>
            `${r.check}:${r.subject} ${r.outcome}: ${r.skippedReason ?? r.findings.map((f) => f.message).join('; ')}`,
        ),
    ).toEqual([]);
    expect(mine.filter((r) => r.check === 'money').length).toBeGreaterThanOrEqual(10);
    expect(mine.filter((r) => r.check === 'boundaries').reduce((sum, r) => sum + r.cases, 0)).toBeGreaterThan(100);
  }, 60_000);
});

describe.each([...boundaryMutants, ...moneyMutants].map((m) => [m.name, m] as const))('mutant %s', (name, mutant) => {
  it(`is caught by ${mutant.family} on its operation, with a curl line`, async () => {
    const subject = EXPECTED_SUBJECT[name];
    expect(subject, `the test names the operation ${name} breaks`).toBeDefined();
    const summary = await run(mutant, [`${mutant.family}:${subject}`]);
    expect(failures(summary, mutant.family)).toEqual([subject]);
    const failed = summary.results.find((r) => r.check === mutant.family && r.subject === subject);
    expect(failed?.findings.some((f) => f.severity === 'failure' && f.curl?.startsWith('curl '))).toBe(true);
  }, 30_000);
});
