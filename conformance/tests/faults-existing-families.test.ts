// Fault proofs for the families the suite covered before the catalogue (response shape, negative and
// positive data, stateful workflows, idempotency): one mutant of each family's catalogue, run with only
// the checks of that family, must fail on that check and on the operation (or workflow) the mistake is
// in; the unmutated sandbox passes the same checks. Several of these mutants went unnoticed before the
// gaps they revealed were closed (request-data triggers, a lookup among several resources, a fingerprint
// that must cover the amount), so this file fails without those fixes.
import { beforeAll, describe, expect, it } from 'vitest';
import { mutants as idempotencyMutants } from '../mutants/catalogue/idempotency.js';
import { mutants as negativeMutants } from '../mutants/catalogue/negative-data.js';
import { mutants as positiveMutants } from '../mutants/catalogue/positive-data.js';
import { mutants as responseMutants } from '../mutants/catalogue/response-conformance.js';
import { mutants as statefulMutants } from '../mutants/catalogue/stateful-workflows.js';
import { failedResults, familyPatterns, runMutant } from '../mutants/runner.js';
import type { Mutant } from '../mutants/types.js';
import type { CheckName, CheckResult, RunSummary } from '../types.js';

const FAMILIES: CheckName[] = [
  'response_conformance',
  'negative_data',
  'positive_data',
  'stateful_workflows',
  'idempotency',
];

function named(catalogue: Mutant[], name: string): Mutant {
  const mutant = catalogue.find((m) => m.name === name);
  if (!mutant) throw new Error(`the catalogue has no mutant ${name}`);
  return mutant;
}

interface Proof {
  mutant: Mutant;
  /** The result that must fail: check and subject. */
  subject: string;
  /** What one of its findings must say (the case that sees the mistake). */
  finding: RegExp;
  /** The request that shows it, when the subject is a workflow rather than an operation. */
  curl?: RegExp;
}

const PROOFS: Proof[] = [
  {
    mutant: named(responseMutants, 'fva-read-expiration-as-epoch'),
    subject: 'getFixedVirtualAccount',
    finding: /\/expiration_date must be string/,
  },
  {
    mutant: named(negativeMutants, 'fva-forbidden-terms-case-sensitive'),
    subject: 'createFixedVirtualAccount',
    finding: /forbidden term "[a-z ]+".*expected status 400/,
  },
  {
    mutant: named(negativeMutants, 'disbursement-unknown-bank-accepted'),
    subject: 'createDisbursement',
    finding: /not in the list listDisbursementBanks answers.*expected status 400/,
  },
  {
    mutant: named(positiveMutants, 'disbursement-ewallet-destination-refused'),
    subject: 'createDisbursement',
    finding: /valid example "ewallet": expected status 200, got 400/,
  },
  {
    mutant: named(statefulMutants, 'disbursement-lookup-ignores-external-id'),
    subject: 'disbursement',
    finding: /find by identifier: an item does not match the query \(external_id\)/,
    curl: /\/disbursements\?external_id=/,
  },
  {
    mutant: named(idempotencyMutants, 'disbursement-fingerprint-ignores-amount'),
    subject: 'createDisbursement',
    finding: /same key, other values: createDisbursement should answer IDEMPOTENCY_KEY_MISMATCH_ERROR/,
  },
];

// The unmutated sandbox runs as the mutants do, without the rate limits (as the catalogue runs these checks): it
// passes under the conditions its mutants fail under, and waits out no window. faults-rate-limit holds the limits.
const runWith = (mutant: Mutant | undefined, only: string[]): Promise<RunSummary> =>
  runMutant(mutant, { only, rateLimits: false, checkRateLimit: false });

describe('mutants of the families the suite already covered', () => {
  let baseline: RunSummary;
  beforeAll(async () => {
    baseline = await runWith(undefined, FAMILIES.flatMap(familyPatterns));
    // Every check of six families on one sandbox, sharing the two cores with the files running beside it: as
    // long as faults-transitions gives its unmutated run.
  }, 60_000);

  it('the unmutated sandbox passes every check of these families', () => {
    expect(failedResults(baseline)).toEqual([]);
    for (const family of FAMILIES)
      expect(
        baseline.results.some((r) => r.check === family && r.outcome === 'passed'),
        family,
      ).toBe(true);
  });

  it.each(PROOFS.map((proof) => [proof.mutant.name, proof] as const))(
    '%s is caught by its own check on the operation it breaks',
    async (_name, proof) => {
      const { mutant } = proof;
      const summary = await runWith(mutant, familyPatterns(mutant.family));
      const result: CheckResult | undefined = summary.results.find(
        (r) => r.check === mutant.family && r.subject === proof.subject,
      );
      expect(result?.outcome, `${mutant.family}:${proof.subject} (failed: ${failedResults(summary).join(', ')})`).toBe(
        'failed',
      );
      const messages = result?.findings.filter((f) => f.severity === 'failure').map((f) => f.message) ?? [];
      const shown = result?.findings.find((f) => f.severity === 'failure' && proof.finding.test(f.message));
      expect(shown, messages.join('\n')).toBeDefined();
      if (proof.curl) expect(shown?.curl).toMatch(proof.curl);
      // Every failure carries a command that reproduces it.
      for (const found of result?.findings ?? []) expect(found.curl, found.message).toMatch(/^curl /);
    },
    30_000,
  );
});
