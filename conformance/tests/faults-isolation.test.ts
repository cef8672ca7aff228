// The auth and isolation checks against the sandbox with an implementer's mistake in it (the mutant
// catalogue's auth and isolation families): each mistake is reported by its own check on the operation it
// breaks, and the sandbox as it is passes both checks, every case tried (nothing skipped for want of a key).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutants as authMutants } from '../mutants/catalogue/auth.js';
import { mutants as isolationMutants } from '../mutants/catalogue/isolation.js';
import { failedResults, type MutantTarget, runAgainst, runMutant, startMutant } from '../mutants/runner.js';
import type { Mutant } from '../mutants/types.js';
import { runConformance } from '../run.js';
import type { RunSummary } from '../types.js';
import { notRunReasons } from '../verdict.js';

const messages = (summary: RunSummary, subject: string): string[] =>
  summary.results
    .filter((r) => r.subject === subject && r.outcome === 'failed')
    .flatMap((r) => r.findings.map((f) => f.message));

/** The mutant's run of its own check only. */
function judged(mutant: Mutant): Promise<RunSummary> {
  return runMutant(mutant, { only: [mutant.family] });
}

describe('the sandbox as it is', () => {
  let target: MutantTarget;
  let summary: RunSummary;
  beforeAll(async () => {
    // Without the rate limits, as the mutants run: keys and who may see what are judged here, not the pace.
    target = await startMutant(undefined, { rateLimits: false });
    summary = await runAgainst(target, { only: ['auth', 'isolation'] });
  }, 60_000);
  afterAll(async () => target?.close());

  it('passes auth and isolation on every operation, skipping nothing', () => {
    expect(failedResults(summary)).toEqual([]);
    const isolation = summary.results.filter((r) => r.check === 'isolation');
    expect(isolation.length).toBeGreaterThan(10);
    expect(
      summary.results
        .filter((r) => r.outcome === 'skipped')
        .map((r) => `${r.check}:${r.subject}: ${r.skippedReason ?? ''}`),
    ).toEqual([]);
    // Both foreign keys were tried on every operation that addresses an object.
    for (const result of isolation) expect(result.cases, result.subject).toBeGreaterThanOrEqual(2);
    expect(summary.verdict).toBe('pass');
  });

  it('is incomplete with one foreign key only: the other half of each case was not run, and says which key it needs', async () => {
    const oneKey = await runConformance({
      baseUrl: target.url,
      apiKey: target.keys.test,
      profile: 'stateful',
      only: ['isolation'],
      timeoutMs: 15_000,
      concurrency: 8,
      strict: false,
      isolation: { otherMerchantKey: target.keys.otherMerchantTest },
    });
    expect(failedResults(oneKey)).toEqual([]);
    expect(oneKey.verdict).toBe('incomplete');
    const isolation = oneKey.results.filter((r) => r.check === 'isolation');
    for (const result of isolation)
      expect(notRunReasons(result), result.subject).toEqual([
        expect.stringMatching(/^across modes: not tried, give .*--other-mode-api-key/),
      ]);
  }, 60_000);

  it('is incomplete without the foreign keys, and complete when isolation is left out by name', async () => {
    const base = {
      baseUrl: target.url,
      apiKey: target.keys.test,
      profile: 'stateful' as const,
      timeoutMs: 15_000,
      concurrency: 8,
      strict: false,
    };
    expect((await runConformance({ ...base, only: ['isolation', 'auth:getBalance'] })).verdict).toBe('incomplete');
    expect(
      (await runConformance({ ...base, only: ['isolation', 'auth:getBalance'], skip: ['isolation'] })).verdict,
    ).toBe('pass');
  }, 60_000);
});

const expected: Record<string, { subject: string; message: RegExp }> = {
  'auth-password-ignored': {
    subject: 'getBalance',
    message: /2xx without a valid key \(the valid key with a non-empty password\)/,
  },
  'auth-key-trimmed': {
    subject: 'getBalance',
    message: /2xx without a valid key \(the valid key with a (trailing|leading) space\)/,
  },
  'auth-key-case-folded': {
    subject: 'getBalance',
    message: /2xx without a valid key \(the valid key in another letter case\)/,
  },
  'auth-live-keys-not-loaded': {
    subject: 'getBalance',
    message: /the same merchant's key of the other mode: refused with 401/,
  },
  'disbursement-read-across-merchants': {
    subject: 'getDisbursement',
    message:
      /another merchant's key .*answered 200 with the owner's object; the contract answers INVALID_PERMISSION_ERROR/,
  },
  'disbursement-other-merchant-not-found': {
    subject: 'getDisbursement',
    message: /another merchant's key .*expected status 403, got 404/,
  },
  'customer-lookup-across-merchants': {
    subject: 'listCustomers',
    message: /another merchant's key .*answered 200 with the owner's object/,
  },
  'customer-update-across-merchants': {
    subject: 'updateCustomer',
    message: /another merchant's key .*changed the owner's Customer \(read back with the owner's key/,
  },
  'fva-read-ignores-mode': {
    subject: 'getFixedVirtualAccount',
    message: /the other mode's key .*answered 200 with the owner's object/,
  },
};

describe.each([...authMutants, ...isolationMutants].map((mutant) => [mutant.name, mutant] as const))(
  'mutant %s',
  (name, mutant) => {
    it(`is caught by ${mutant.family} on the operation it breaks`, async () => {
      const summary = await judged(mutant);
      const failed = failedResults(summary);
      const want = expected[name];
      if (!want) throw new Error(`no expectation for mutant ${name}`);
      expect(failed).toContain(`${mutant.family}:${want.subject}`);
      expect(failed.every((f) => f.startsWith(`${mutant.family}:`) || f.startsWith('response_conformance:'))).toBe(
        true,
      );
      expect(
        messages(summary, want.subject).some((m) => want.message.test(m)),
        messages(summary, want.subject).join('\n'),
      ).toBe(true);
      // Every finding can be replayed, and no key shows in it.
      const findings = summary.results.flatMap((r) => r.findings);
      expect(findings.every((f) => f.curl === undefined || !/sk_(test|live)_/.test(f.curl))).toBe(true);
    }, 30_000);
  },
);
