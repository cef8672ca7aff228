// The sandbox as it is, against each family of checks its mutants are judged by (conformance/mutants/): every
// case run, nothing skipped for want of a key or a clock, and the counts that show the checks did their work.
// Each mutant's own proof (caught by its check, on the result its mistake is in, saying what it is) is the
// catalogue's (`npm run conformance:mutants`, each mutant's `caught`); these are the clean runs it is read
// against, with what a clean run must also show. Each target runs as the mutants do, without the rate limits,
// except the rate limit's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  failedResults,
  familyPatterns,
  type MutantTarget,
  runAgainst,
  runMutant,
  startMutant,
} from '../mutants/runner.js';
import { runConformance } from '../run.js';
import type { CheckName, CheckResult, RunSummary } from '../types.js';
import { notRunReasons } from '../verdict.js';

const clean = (only: string[]): Promise<RunSummary> =>
  runMutant(undefined, { only, rateLimits: false, checkRateLimit: false });

describe('transitions and uniqueness', () => {
  it('the unmutated sandbox passes both checks', async () => {
    const summary = await clean(['transitions', 'uniqueness']);
    expect(failedResults(summary)).toEqual([]);
    const ran = summary.results.filter((r) => r.outcome === 'passed');
    // Every check reports results, and most subjects are exercised (the rest say why in their notes).
    expect(ran.filter((r) => r.check === 'transitions').length).toBeGreaterThanOrEqual(8);
    expect(ran.filter((r) => r.check === 'uniqueness').length).toBeGreaterThanOrEqual(5);
  }, 60_000);
});

const FAMILIES: CheckName[] = [
  'response_conformance',
  'negative_data',
  'positive_data',
  'stateful_workflows',
  'idempotency',
];

describe('the families the suite covered before the catalogue', () => {
  let baseline: RunSummary;
  beforeAll(async () => {
    baseline = await clean(FAMILIES.flatMap(familyPatterns));
  }, 60_000);

  it('the unmutated sandbox passes every check of these families', () => {
    expect(failedResults(baseline)).toEqual([]);
    for (const family of FAMILIES)
      expect(
        baseline.results.some((r) => r.check === family && r.outcome === 'passed'),
        family,
      ).toBe(true);
  });
});

describe('auth and isolation', () => {
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

describe('boundaries and money', () => {
  it('passes boundaries and money on every subject, skipping none', async () => {
    const summary = await clean(['boundaries', 'money']);
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

const messages = (result: CheckResult | undefined): string[] =>
  (result?.findings ?? []).filter((f) => f.severity === 'failure').map((f) => f.message);
const CLOCK_NOTE =
  "retries brought on by moving the target's clock (advanceClock) and timed in its own time from its delivery records (listCallbackDeliveries)";

describe('callbacks (check 7), at the default retry spacing', () => {
  it('passes the unmutated sandbox, its retries timed in its own time', async () => {
    const summary = await clean(['callbacks']);
    const results = summary.results.filter((r) => r.check === 'callbacks');
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) {
      expect(result.outcome, `${result.subject}: ${messages(result).join('\n')}`).toBe('passed');
      expect(result.notes ?? [], result.subject).toContain(CLOCK_NOTE);
    }
    // Three attempts 30 s apart and a fourth interval, without waiting for them.
    expect(summary.wallMs).toBeLessThan(30_000);
  }, 60_000);
});

describe('rate_limit, with the limits on as `npm start` has them', () => {
  it('passes the sandbox with its limits on: the 429 past the read limit, its headers, served again after Retry-After', async () => {
    const summary = await runMutant(undefined, { only: ['rate_limit'], checkRateLimit: true });
    expect(failedResults(summary)).toEqual([]);
    expect(summary.results.find((result) => result.check === 'rate_limit')).toMatchObject({
      subject: 'getBalance',
      outcome: 'passed',
    });
    // Another merchant's key and the other mode's key were judged too: nothing was left unchecked.
    expect(summary.results.find((result) => result.check === 'rate_limit')?.unchecked).toBeUndefined();
  }, 60_000);
});
