import { describe, expect, it } from 'vitest';
import type { CheckResult, RunSummary } from '../types.js';
import { countsOf, verdictOf } from '../verdict.js';
import { fixtureSummary } from './fixture.js';
import { checkTable, contractPointer, formatSummary, summaryTable, totalsLine } from './summary.js';

/** A summary of these results, counted and judged as a run would. */
function summaryOf(results: CheckResult[], extra: Partial<RunSummary> = {}): RunSummary {
  const counts = countsOf(results);
  return { ...fixtureSummary(), results, counts, verdict: verdictOf(counts), ...extra };
}

describe('summary report', () => {
  const summary = fixtureSummary();

  it('tabulates subjects by check with --verbose, n/a apart from a skip that could not run, - where a check has no result', () => {
    expect(summaryTable(summary).split('\n')).toEqual([
      'operation       response_conformance  auth  negative_data  positive_data',
      '--------------  --------------------  ----  -------------  -------------',
      'getBalance      pass                  skip  n/a            pass',
      'createCustomer  FAIL                  -     -              FAIL',
    ]);
    expect(formatSummary(summary, { verbose: true })).toContain(summaryTable(summary));
    expect(formatSummary(summary)).not.toContain(summaryTable(summary));
  });

  it('counts what ran check by check', () => {
    expect(checkTable(summary).split('\n')).toEqual([
      'check                 passed  failed  not run  n/a  warnings',
      'response_conformance       1       1        0    0         1',
      'auth                       0       0        1    0         0',
      'negative_data              0       0        0    1         0',
      'positive_data              1       1        0    0         0',
    ]);
  });

  it('says first what was not checked and why, each reason once for all the subjects it stands for', () => {
    const skip = (subject: string): CheckResult => ({
      check: 'callbacks',
      subject,
      outcome: 'skipped',
      cases: 0,
      findings: [],
      skippedReason: 'no callback receiver: pass --callback-listen HOST:PORT',
    });
    const unchecked: CheckResult = {
      check: 'isolation',
      subject: 'getDisbursement',
      outcome: 'passed',
      cases: 2,
      findings: [],
      unchecked: ['across modes: not tried, give --other-mode-api-key'],
    };
    const text = formatSummary(
      summaryOf([
        { check: 'auth', subject: 'getBalance', outcome: 'passed', cases: 3, findings: [] },
        ...['a', 'b', 'c', 'd', 'e'].map(skip),
        unchecked,
      ]),
    );
    expect(text.split('\n').slice(0, 3)).toEqual([
      'Not checked (the run is incomplete):',
      '  callbacks a, b, c (+2 more): no callback receiver: pass --callback-listen HOST:PORT',
      '  isolation getDisbursement: across modes: not tried, give --other-mode-api-key',
    ]);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^INCOMPLETE: 2 passed, 0 failed, 6 not run, 0 not applicable/);
  });

  it('shows each failure with its status, schema path, body excerpt and curl line', () => {
    const text = formatSummary(summary);
    expect(text).toContain(
      [
        'FAIL positive_data createCustomer',
        '  - body does not match the 200 schema: /id must be string',
        '    status: 200',
        '    schema path: #/properties/id/type',
        '    body: {"id": 7, "note": "<&>"}',
        `    reproduce: curl -sS -i -X POST 'http://127.0.0.1:4010/customers' -u "$PAYMENTS_API_KEY:"`,
      ].join('\n'),
    );
  });

  it('keeps warnings to one line each and leaves skips and notes to --verbose', () => {
    const text = formatSummary(summary);
    expect(text).toContain('WARN response_conformance getBalance: /amount matches a known variant');
    expect(text).not.toContain('NOTE ');
    expect(text).not.toContain('SKIP ');
    const verbose = formatSummary(summary, { verbose: true });
    expect(verbose).toContain('WARN response_conformance getBalance\n  - /amount matches a known variant');
    expect(verbose).toContain('SKIP auth getBalance: the target cannot tell keys apart');
    expect(verbose).toContain(
      'SKIP negative_data getBalance: not applicable: the operation declares no request rule that can be broken',
    );
    expect(verbose).toContain('NOTE response_conformance getBalance, createCustomer: one case relaxed');
  });

  it('names what the user left out, which is not counted as not run', () => {
    const passed = summaryOf([{ check: 'auth', subject: 'getBalance', outcome: 'passed', cases: 3, findings: [] }], {
      selection: { only: [], skip: ['callbacks', 'isolation'] },
    });
    expect(formatSummary(passed)).toContain(
      'Chosen by name (what this leaves out is not counted as not run): --skip callbacks,isolation',
    );
    expect(formatSummary(passed)).not.toContain('Not checked');
  });

  it('prints schema paths as pointers into the contract', () => {
    expect(
      contractPointer(
        'https://payments-conformance.local/contract.json#/components/schemas/Balance/properties/balance/type',
      ),
    ).toBe('#/components/schemas/Balance/properties/balance/type');
    expect(contractPointer('#/properties/id/type')).toBe('#/properties/id/type');
  });

  it('ends with the verdict, totals, wall time and requests per second', () => {
    expect(totalsLine(summary)).toBe(
      'FAIL: 2 passed, 2 failed, 1 not run, 1 not applicable, 1 warnings; 250 requests in 2.50 s (100 requests/s) against http://127.0.0.1:4010, profile stateless',
    );
    expect(formatSummary(summary).trimEnd().split('\n').at(-1)).toBe(totalsLine(summary));
  });

  it('counts the 429 answers met, when the run counted them', () => {
    expect(totalsLine({ ...summary, rateLimitedResponses: 0, rateLimitedOutsideRateLimitCheck: 0 })).toContain(
      '(100 requests/s), 0 answered 429, against',
    );
    expect(totalsLine({ ...summary, rateLimitedResponses: 12, rateLimitedOutsideRateLimitCheck: 2 })).toContain(
      '(100 requests/s), 12 answered 429 (2 outside the rate_limit check), against',
    );
  });

  it('has no failure section when nothing failed, and passes', () => {
    const passed = summaryOf(summary.results.filter((r) => r.outcome === 'passed'));
    expect(formatSummary(passed)).not.toContain('Failures:');
    expect(totalsLine(passed)).toMatch(/^PASS: /);
  });
});
