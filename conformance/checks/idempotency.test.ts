// Check 6 against a small stateful fake that implements the idempotency rules as the contract documents
// them: every operation with an idempotency header passes, with the cases the contract makes applicable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { runConformance } from '../run.js';
import { startStatefulTarget } from '../tests/fakes/stateful-target.js';
import type { Target } from '../tests/target.js';
import type { RunSummary } from '../types.js';
import { CONCURRENT_REQUESTS } from '../workflows/idempotency-cases.js';

const apiKey = 'sk_test_idempotency';
let target: Target;
let summary: RunSummary;

beforeAll(async () => {
  target = await startStatefulTarget(loadContract(), apiKey);
  summary = await runConformance({ baseUrl: target.url, apiKey, profile: 'stateful', only: ['idempotency'], timeoutMs: 5_000, concurrency: 8, strict: false });
}, 30_000);

afterAll(async () => {
  await target.close();
});

describe('idempotency against a target that implements it', () => {
  it('checks every operation with an idempotency header, and passes them', () => {
    expect(summary.results.map((r) => `${r.subject}: ${r.outcome}`).sort()).toEqual(['createDirectDebitPayment: passed', 'createDisbursement: passed']);
  });

  it('provides what the request refers to before the cases, and counts every request', () => {
    const debit = summary.results.find((r) => r.subject === 'createDirectDebitPayment');
    const disbursement = summary.results.find((r) => r.subject === 'createDisbursement');
    // first, replay + lookup, mismatch + lookup, another amount + lookup, the race + lookup, then the key's limits.
    expect(disbursement?.cases).toBe(1 + 2 + 2 + 2 + CONCURRENT_REQUESTS + 1 + 1);
    // The same, after customer, link, OTP, accounts and payment method, with no key, too long and at the longest.
    expect(debit?.cases).toBe(5 + 1 + 2 + 2 + 2 + CONCURRENT_REQUESTS + 1 + 4);
  });

  it('notes the cases the contract gives no limit for', () => {
    const disbursement = summary.results.find((r) => r.subject === 'createDisbursement');
    expect(disbursement?.notes).toEqual([expect.stringMatching(/declares no maxLength/)]);
  });
});
