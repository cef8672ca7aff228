// Proof that the transitions and uniqueness checks catch each mutant of their catalogues, on the operation
// the mistake belongs to, and that the unmutated sandbox passes both (nothing failed, every subject run).
import { describe, expect, it } from 'vitest';
import { mutants as transitionMutants } from '../mutants/catalogue/transitions.js';
import { mutants as uniquenessMutants } from '../mutants/catalogue/uniqueness.js';
import { failedResults, runMutant } from '../mutants/runner.js';
import type { Mutant } from '../mutants/types.js';
import type { RunSummary } from '../types.js';

/** The result each mutant must fail: `check:operationId`. */
const EXPECTED: Record<string, string> = {
  'disbursement-fail-leaves-pending': 'transitions:getDisbursement',
  'inactive-payment-code-revived-by-update': 'transitions:updateFixedPaymentCode',
  'inactive-virtual-account-revived-by-update': 'transitions:updateFixedVirtualAccount',
  'completed-direct-debit-accepts-otp-again': 'transitions:validateDirectDebitPaymentOtp',
  'linked-token-validated-twice-succeeds': 'transitions:validateLinkedAccountTokenOtp',
  'invalidated-payment-method-still-debits': 'transitions:createDirectDebitPayment',
  'max-otp-attempts-leaves-payment-pending': 'transitions:validateDirectDebitPaymentOtp',
  'payment-code-expiry-on-real-time': 'transitions:getFixedPaymentCode',
  'virtual-account-expiry-not-applied-on-read': 'transitions:updateFixedVirtualAccount',
  'ewallet-duplicate-check-missing': 'uniqueness:createEwalletPayment',
  'customer-duplicate-on-email': 'uniqueness:createCustomer',
  'ewallet-duplicates-across-modes': 'uniqueness:createEwalletPayment',
};

// The unmutated sandbox runs as the mutants do, without the rate limits (as the catalogue runs these checks): it
// passes under the conditions its mutants fail under, and waits out no window. faults-rate-limit holds the limits.
const run = (mutant: Mutant | undefined, only: string[]): Promise<RunSummary> =>
  runMutant(mutant, { only, rateLimits: false, checkRateLimit: false });

describe('transitions and uniqueness faults', () => {
  it('the unmutated sandbox passes both checks', async () => {
    const summary = await run(undefined, ['transitions', 'uniqueness']);
    expect(failedResults(summary)).toEqual([]);
    const ran = summary.results.filter((r) => r.outcome === 'passed');
    // Every check reports results, and most subjects are exercised (the rest say why in their notes).
    expect(ran.filter((r) => r.check === 'transitions').length).toBeGreaterThanOrEqual(8);
    expect(ran.filter((r) => r.check === 'uniqueness').length).toBeGreaterThanOrEqual(5);
  }, 60_000);

  // One sandbox at a time: several at once on two cores made requests slow enough to time out.
  it.each([...transitionMutants, ...uniquenessMutants].map((m) => [m.name, m] as const))(
    'catches %s on its operation',
    async (name, mutant) => {
      const summary = await run(mutant, [mutant.family]);
      expect(failedResults(summary)).toContain(EXPECTED[name]);
      const failed = summary.results.find((r) => `${r.check}:${r.subject}` === EXPECTED[name]);
      // Every finding carries a reproducing command.
      expect(failed?.findings.every((f) => f.curl?.startsWith('curl '))).toBe(true);
    },
    60_000,
  );
});
