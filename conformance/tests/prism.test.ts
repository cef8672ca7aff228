// npm test's conformance run: the stateless profile against the Prism mock of the bundled contract (behind
// the generated router), through the library. Every applicable check must pass, and every skip must say why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { startMock, type RunningMock } from '../mock/serve.js';
import { formatSummary, totalsLine } from '../report/summary.js';
import { runConformance } from '../run.js';
import { PROFILE_CHECKS, type RunSummary } from '../types.js';
import { isNotRun, notRunReasons } from '../verdict.js';

const contract = loadContract();
let mock: RunningMock;
let summary: RunSummary;

beforeAll(async () => {
  mock = await startMock();
  summary = await runConformance({
    baseUrl: mock.url,
    apiKey: 'sk_test_conformance',
    profile: 'stateless',
    timeoutMs: 10_000,
    concurrency: 8,
    strict: false,
  });
  // The figures the issue asks for, in the test log: wall time and requests per second.
  console.log(totalsLine(summary));
}, 60_000);

afterAll(async () => {
  await mock?.stop();
});

describe('the stateless profile against the Prism mock', () => {
  it('passes every applicable check', () => {
    const failed = summary.results.filter((r) => r.outcome === 'failed');
    expect(failed.length, formatSummary(summary)).toBe(0);
    expect(summary.counts.failed).toBe(0);
  });

  it('is complete: nothing the profile selects was left unchecked (only checks that do not apply are skipped)', () => {
    expect(
      summary.results.filter(isNotRun).map((r) => `${r.check} ${r.subject}: ${notRunReasons(r).join('; ')}`),
    ).toEqual([]);
    expect(summary.verdict).toBe('pass');
  });

  it('gives a reason for every skipped check', () => {
    const unexplained = summary.results.filter((r) => r.outcome === 'skipped' && !r.skippedReason);
    expect(unexplained.map((r) => `${r.check} ${r.subject}`)).toEqual([]);
  });

  it('ran every check of the profile, on every operation of the contract', () => {
    const ran = new Set(summary.results.map((r) => r.check));
    expect([...ran].sort()).toEqual([...PROFILE_CHECKS.stateless].sort());
    const judged = summary.results
      .filter((r) => r.check === 'response_conformance' && r.outcome !== 'skipped')
      .map((r) => r.subject);
    expect(judged.sort()).toEqual(contract.model.operations.map((o) => o.operationId).sort());
    expect(summary.requests).toBeGreaterThan(0);
  });

  it('finishes well within the 30 s target', () => {
    expect(summary.wallMs).toBeLessThan(30_000);
  });
});
