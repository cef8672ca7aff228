// A small run summary with one of everything (pass, failure, warning, skip not run, skip not applicable,
// note) for the report tests.
import type { CheckResult, RunSummary } from '../types.js';

export const FIXTURE_RESULTS: CheckResult[] = [
  { check: 'positive_data', subject: 'getBalance', outcome: 'passed', cases: 1, findings: [] },
  {
    check: 'positive_data',
    subject: 'createCustomer',
    outcome: 'failed',
    cases: 3,
    findings: [
      {
        severity: 'failure',
        message: 'body does not match the 200 schema: /id must be string',
        schemaPath: '#/properties/id/type',
        status: 200,
        bodyExcerpt: '{"id": 7, "note": "<&>"}',
        curl: 'curl -sS -i -X POST \'http://127.0.0.1:4010/customers\' -u "$PAYMENTS_API_KEY:"',
      },
    ],
  },
  {
    check: 'response_conformance',
    subject: 'getBalance',
    outcome: 'passed',
    cases: 2,
    findings: [
      { severity: 'warning', message: '/amount matches a known variant', schemaPath: '#/properties/amount/type' },
    ],
    notes: ['one case relaxed'],
  },
  {
    check: 'auth',
    subject: 'getBalance',
    outcome: 'skipped',
    cases: 0,
    findings: [],
    skippedReason: 'the target cannot tell keys apart',
  },
  {
    check: 'negative_data',
    subject: 'getBalance',
    outcome: 'skipped',
    cases: 0,
    findings: [],
    skippedReason: 'the operation declares no request rule that can be broken',
    notApplicable: true,
  },
  {
    check: 'response_conformance',
    subject: 'createCustomer',
    outcome: 'failed',
    cases: 1,
    findings: [{ severity: 'failure', message: 'status 418 is not documented' }],
    notes: ['one case relaxed'],
  },
];

/** Counts written out: they are what the reports must show, not something to recompute here. */
export function fixtureSummary(): RunSummary {
  return {
    baseUrl: 'http://127.0.0.1:4010',
    profile: 'stateless',
    startedAt: '2026-11-21T10:00:00.000Z',
    wallMs: 2500,
    requests: 250,
    requestsPerSecond: 100,
    verdict: 'fail',
    selection: { only: [], skip: [] },
    results: FIXTURE_RESULTS,
    counts: { passed: 2, failed: 2, skipped: 2, notRun: 1, notApplicable: 1, warnings: 1 },
  };
}
