import { describe, expect, it } from 'vitest';
import { fixtureSummary } from './fixture.js';
import { contractPointer, formatSummary, summaryTable, totalsLine } from './summary.js';

describe('summary report', () => {
  const summary = fixtureSummary();

  it('tabulates subjects by check, with - where a check did not run', () => {
    expect(summaryTable(summary).split('\n')).toEqual([
      'operation       response_conformance  auth  positive_data',
      '--------------  --------------------  ----  -------------',
      'getBalance      pass                  skip  pass',
      'createCustomer  FAIL                  -     FAIL',
    ]);
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
    expect(text).toContain('WARN response_conformance getBalance\n  - /amount matches a known variant');
    expect(text).toContain('SKIP auth getBalance: the target cannot tell keys apart');
    expect(text).toContain('NOTE response_conformance getBalance, createCustomer: one case relaxed');
  });

  it('prints schema paths as pointers into the contract', () => {
    expect(contractPointer('https://payments-conformance.local/contract.json#/components/schemas/Balance/properties/balance/type')).toBe('#/components/schemas/Balance/properties/balance/type');
    expect(contractPointer('#/properties/id/type')).toBe('#/properties/id/type');
  });

  it('ends with totals, wall time and requests per second', () => {
    expect(totalsLine(summary)).toBe('2 passed, 2 failed, 1 skipped, 1 warnings; 250 requests in 2.50 s (100 requests/s) against http://127.0.0.1:4010, profile stateless');
    expect(formatSummary(summary).trimEnd().split('\n').at(-1)).toBe(totalsLine(summary));
  });

  it('has no failure section when nothing failed', () => {
    const passed = summary.results.filter((r) => r.outcome === 'passed');
    expect(formatSummary({ ...summary, results: passed, counts: { passed: passed.length, failed: 0, skipped: 0, warnings: 0 } })).not.toContain('Failures:');
  });
});
