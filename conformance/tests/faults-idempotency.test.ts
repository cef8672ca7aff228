// Proof that check 6 catches each idempotency fault, against the operation it belongs to: a fake target
// broken one way at a time (keys ignored, so a replay creates a second resource; key limits ignored; a
// refusal for lack of balance, which must be a skip, not a pass).
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { runConformance } from '../run.js';
import type { CheckResult } from '../types.js';
import { startStatefulTarget, type StatefulFaults } from './fakes/stateful-target.js';
import type { Target } from './target.js';

const apiKey = 'sk_test_idempotency_faults';
let target: Target | undefined;

afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function idempotencyResults(faults: StatefulFaults): Promise<CheckResult[]> {
  target = await startStatefulTarget(loadContract(), apiKey, faults);
  const summary = await runConformance({
    baseUrl: target.url,
    apiKey,
    profile: 'stateful',
    only: ['idempotency'],
    timeoutMs: 5_000,
    concurrency: 8,
    strict: false,
  });
  return summary.results;
}

const messages = (result: CheckResult | undefined): string[] => result?.findings.map((f) => f.message) ?? [];

describe('idempotency faults', () => {
  // The lookup tells what the replay did: a list by external id shows two, a lookup by reference id the newer one.
  it.each([
    [
      'createDisbursement',
      400,
      /^concurrent requests: 10 concurrent requests with one key: the lookup answers 10 resource\(s\)/,
    ],
    [
      'createDirectDebitPayment',
      409,
      /^concurrent requests: 10 concurrent requests with one key: 10 succeeded, exactly one should$/,
    ],
  ])(
    'reports a replayed key that creates a second resource against %s',
    async (subject, status, race) => {
      const result = (await idempotencyResults({ ignoreIdempotencyKeys: true })).find((r) => r.subject === subject);
      expect(result?.outcome).toBe('failed');
      expect(messages(result)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(`^same key and body: ${subject} should answer \\w+: expected status ${status}, got 200$`),
          ),
          expect.stringMatching(/^same key and body: the replayed key created another resource: the lookup answers/),
          expect.stringMatching(/^same key, other body: a reused key with another body created a resource/),
          expect.stringMatching(race),
        ]),
      );
      // Every failure can be replayed, the key masked.
      for (const finding of result?.findings ?? []) expect(finding.curl).toMatch(/^curl .*-u "\$PAYMENTS_API_KEY:"/);
    },
    30_000,
  );

  it('reports key limits that are not enforced, case by case', async () => {
    const results = await idempotencyResults({ ignoreKeyLength: true });
    expect(messages(results.find((r) => r.subject === 'createDirectDebitPayment'))).toEqual([
      expect.stringMatching(/^no key \(createDirectDebitPayment\): expected status 400, got 200$/),
      expect.stringMatching(/^key too long \(createDirectDebitPayment\): expected status 400, got 200$/),
      expect.stringMatching(/^key too short \(createDirectDebitPayment\): expected status 400, got 200$/),
    ]);
    expect(messages(results.find((r) => r.subject === 'createDisbursement'))).toEqual([
      expect.stringMatching(/^key too long \(createDisbursement\): expected status 400, got 200$/),
      expect.stringMatching(/^key too short \(createDisbursement\): expected status 400, got 200$/),
    ]);
  }, 30_000);

  it('skips, never passes, an operation the target refuses for its configuration', async () => {
    const results = await idempotencyResults({ insufficientBalance: true });
    const disbursement = results.find((r) => r.subject === 'createDisbursement');
    expect(disbursement?.outcome).toBe('skipped');
    expect(disbursement?.skippedReason).toMatch(/answered \w+: the target's insufficient_balance refuses/);
    expect(results.find((r) => r.subject === 'createDirectDebitPayment')?.outcome).toBe('passed');
  }, 30_000);
});
