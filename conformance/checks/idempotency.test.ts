// Check 6 against a small stateful fake that implements the idempotency rules as the contract documents
// them: every operation with an idempotency header passes, with the cases the contract makes applicable.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSpecPath, loadContract } from '../contract.js';
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
  summary = await runConformance({
    baseUrl: target.url,
    apiKey,
    profile: 'stateful',
    only: ['idempotency'],
    timeoutMs: 5_000,
    concurrency: 8,
    strict: false,
  });
}, 30_000);

afterAll(async () => {
  await target.close();
});

describe('idempotency against a target that implements it', () => {
  it('checks every operation with an idempotency header, and passes them', () => {
    expect(summary.results.map((r) => `${r.subject}: ${r.outcome}`).sort()).toEqual([
      'createDirectDebitPayment: passed',
      'createDisbursement: passed',
    ]);
  });

  it('provides what the request refers to before the cases, and counts every request', () => {
    const debit = summary.results.find((r) => r.subject === 'createDirectDebitPayment');
    const disbursement = summary.results.find((r) => r.subject === 'createDisbursement');
    // first, replay + lookup, mismatch + lookup, another amount + lookup, the race + lookup, then the key's
    // limits: too short, too long and at the longest (the key is optional, so no case without one).
    expect(disbursement?.cases).toBe(1 + 2 + 2 + 2 + CONCURRENT_REQUESTS + 1 + 3);
    // The same, after customer, link, OTP, accounts and payment method, with no key, too long and at the longest.
    expect(debit?.cases).toBe(5 + 1 + 2 + 2 + 2 + CONCURRENT_REQUESTS + 1 + 4);
  });

  it('has nothing to note when the contract gives every key its limits', () => {
    expect(summary.results.flatMap((r) => r.notes ?? [])).toEqual([]);
  });

  it('notes the cases the contract gives no limit for', async () => {
    // The bundled contract with the disbursement key's maxLength taken out, as a contract may leave it.
    const doc = JSON.parse(readFileSync(defaultSpecPath, 'utf8')) as {
      components: { parameters: Record<string, { schema: { maxLength?: number } }> };
    };
    const header = doc.components.parameters.IdempotencyKeyDisbursementHeader;
    if (!header) throw new Error('the contract has no IdempotencyKeyDisbursementHeader');
    delete header.schema.maxLength;
    const dir = mkdtempSync(join(tmpdir(), 'idempotency-no-max-'));
    const specPath = join(dir, 'openapi.json');
    writeFileSync(specPath, JSON.stringify(doc));
    const unbounded = await startStatefulTarget(loadContract(specPath), apiKey);
    try {
      const run = await runConformance({
        baseUrl: unbounded.url,
        apiKey,
        profile: 'stateful',
        only: ['idempotency:createDisbursement'],
        specPath,
        timeoutMs: 5_000,
        concurrency: 8,
        strict: false,
      });
      expect(run.results.find((r) => r.subject === 'createDisbursement')?.notes).toEqual([
        expect.stringMatching(/declares no maxLength/),
      ]);
    } finally {
      await unbounded.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
