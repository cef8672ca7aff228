// The timestamps check against the sandbox (every creating operation with x-timestamps passes) and against
// the sandbox with one mistake in its answers: each mistake fails the subjects whose answers it touches,
// with a message naming the rule broken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '@payments-contract/contract/model/types';
import { runCheck } from '../tests/check-context.js';
import type { Rewrite } from '../tests/fakes/rewriting-proxy.js';
import { startTestSandbox, type TestSandbox } from '../tests/fakes/sandbox-behind-proxy.js';
import type { CheckResult } from '../types.js';
import { timestamps } from './timestamps.js';

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

/** Every object in a JSON value (the value, the items of a list) with `change` applied. */
const everyObject = (value: Json, change: (object: { [key: string]: Json }) => { [key: string]: Json }): Json =>
  Array.isArray(value)
    ? value.map((item) => everyObject(item, change))
    : value !== null && typeof value === 'object'
      ? change(value)
      : value;
const isService = (url: string): boolean => !url.startsWith('/sandbox');
const shifted = (value: Json | undefined, ms: number): Json | undefined =>
  typeof value === 'string' ? new Date(Date.parse(value) + ms).toISOString() : value;

describe('timestamps against the sandbox', () => {
  it('passes every creating operation whose answers carry x-timestamps, each change judged', async () => {
    const { results } = await runCheck(timestamps, { baseUrl: sandbox.served.url, apiKey: sandbox.apiKey });
    expect(
      results.filter((r) => r.outcome !== 'passed'),
      describeResults(results),
    ).toEqual([]);
    expect(results.map((r) => r.subject).sort()).toEqual([
      'createCustomer',
      'createDirectDebitPayment',
      'createDisbursement',
      'createEwalletPayment',
      'createFixedVirtualAccount',
      'createPaymentMethod',
    ]);
    expect(
      results
        .find((r) => r.subject === 'createDisbursement')
        ?.notes?.some((n) => /moved 1000 ms between steps/.test(n)),
    ).toBe(true);
  }, 60_000);
});

describe('timestamps against the sandbox with a mistake in its answers', () => {
  const mistakes: [string, Rewrite, string[], RegExp][] = [
    [
      'updated stamped by every read',
      ({ method, url }, body) =>
        method === 'GET' && isService(url)
          ? everyObject(body, (o) => ('updated' in o ? { ...o, updated: new Date().toISOString() } : o))
          : undefined,
      ['createCustomer', 'createDisbursement', 'createFixedVirtualAccount'],
      /updated \(change[^)]*\) moved with a read/,
    ],
    [
      'created written again by an update',
      ({ method }, body) =>
        method === 'PATCH' || method === 'PUT'
          ? everyObject(body, (o) => ('created' in o && 'updated' in o ? { ...o, created: o.updated ?? null } : o))
          : undefined,
      ['createCustomer', 'createFixedVirtualAccount'],
      /created \(creation[^)]*\) moved with an accepted update\w+/,
    ],
    [
      'updated kept at creation by an update',
      ({ method }, body) =>
        method === 'PATCH' || method === 'PUT'
          ? everyObject(body, (o) => ('created' in o && 'updated' in o ? { ...o, updated: o.created ?? null } : o))
          : undefined,
      ['createCustomer', 'createFixedVirtualAccount'],
      /updated \(change[^)]*\) did not move forward with an accepted update\w+/,
    ],
    [
      'created written in Jakarta time with a Z',
      ({ method, url }, body) =>
        method === 'POST' && isService(url)
          ? everyObject(body, (o) =>
              'created' in o ? { ...o, created: shifted(o.created, 7 * 3_600_000) ?? null } : o,
            )
          : undefined,
      ['createCustomer', 'createDisbursement', 'createEwalletPayment'],
      /created [0-9T:.Z-]+ is after the target's time/,
    ],
  ];

  it.each(mistakes)(
    'fails on %s',
    async (_name, rewrite, subjects, message) => {
      const proxy = await sandbox.withMistake(rewrite);
      try {
        const { results } = await runCheck(timestamps, {
          baseUrl: proxy.url,
          apiKey: sandbox.apiKey,
          only: subjects.map((s) => `timestamps:${s}`),
        });
        expect(results.map((r) => [r.subject, r.outcome]).sort(), describeResults(results)).toEqual(
          subjects.map((s) => [s, 'failed']).sort(),
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
