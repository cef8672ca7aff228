// The lookups check against the sandbox (every list and lookup with a stated order passes, the one whose
// objects the suite cannot make does not apply) and against the sandbox with one mistake in its answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../tests/check-context.js';
import type { Rewrite } from '../tests/fakes/rewriting-proxy.js';
import { startTestSandbox, type TestSandbox } from '../tests/fakes/sandbox-behind-proxy.js';
import type { CheckResult } from '../types.js';
import { expectedOrder } from '../workflows/lookup-cases.js';
import { lookups } from './lookups.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
}, 30_000);
afterAll(async () => sandbox.served.stop());

const describeResults = (results: CheckResult[]): string =>
  results
    .map(
      (r) =>
        `${r.subject}: ${r.outcome}${r.skippedReason ? ` (${r.skippedReason})` : ''}${r.findings.map((f) => `\n  ${f.message}`).join('')}`,
    )
    .join('\n');
const LISTS = ['listCustomers', 'listDisbursementsByExternalId', 'listPaymentMethodsByCustomer'];

describe('expectedOrder', () => {
  it('puts the newest first or keeps the order of creation', () => {
    expect(expectedOrder('newest_first', ['a', 'b', 'c'])).toEqual(['c', 'b', 'a']);
    expect(expectedOrder('oldest_first', ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
  });
});

describe('lookups against the sandbox', () => {
  it('passes every list and lookup whose objects it can make, in the order x-matches states', async () => {
    const { results } = await runCheck(lookups, { baseUrl: sandbox.served.url, apiKey: sandbox.apiKey });
    expect(
      results.filter((r) => r.outcome !== 'passed' && !r.notApplicable),
      describeResults(results),
    ).toEqual([]);
    expect(
      results
        .filter((r) => r.outcome === 'passed')
        .map((r) => r.subject)
        .sort(),
    ).toEqual(['getDirectDebitPaymentByReferenceId', ...LISTS].sort());
    // A token's accounts are made by linking, one per token: nothing to order.
    expect(results.find((r) => r.subject === 'listLinkedAccountTokenAccounts')).toMatchObject({
      outcome: 'skipped',
      notApplicable: true,
    });
  }, 60_000);
});

describe('lookups against the sandbox with a mistake in its answers', () => {
  const lists =
    (change: (items: unknown[]) => unknown[]): Rewrite =>
    ({ method, url }, body) =>
      method === 'GET' && !url.startsWith('/sandbox') && Array.isArray(body)
        ? (change(body) as typeof body)
        : undefined;
  const mistakes: [string, Rewrite, RegExp][] = [
    [
      'every list oldest first',
      lists((items) => [...items].reverse()),
      /the list shows the objects created .* as .*; the contract says newest first/,
    ],
    [
      'every list cut to its first match',
      lists((items) => items.slice(0, 1)),
      /the list leaves out .+ of the \d objects created/,
    ],
  ];

  it.each(mistakes)(
    'fails every list on %s',
    async (_name, rewrite, message) => {
      const proxy = await sandbox.withMistake(rewrite);
      try {
        const { results } = await runCheck(lookups, {
          baseUrl: proxy.url,
          apiKey: sandbox.apiKey,
          only: LISTS.map((s) => `lookups:${s}`),
        });
        expect(results.map((r) => [r.subject, r.outcome]).sort(), describeResults(results)).toEqual(
          LISTS.map((s) => [s, 'failed']),
        );
        for (const result of results)
          expect(
            result.findings.some((f) => message.test(f.message)),
            describeResults([result]),
          ).toBe(true);
      } finally {
        await proxy.close();
      }
    },
    60_000,
  );
});
