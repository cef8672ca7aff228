// The verdict of a run: a failure wins; a check that could not run (a skip not marked not applicable, or a
// result with parts left unchecked) makes the run incomplete; only a run with neither passes.
import { describe, expect, it } from 'vitest';
import type { CheckResult } from './types.js';
import { countsOf, isNotRun, notRunReasons, verdictOf } from './verdict.js';

const result = (outcome: CheckResult['outcome'], extra: Partial<CheckResult> = {}): CheckResult => ({
  check: 'callbacks',
  subject: 'ewalletPayment',
  outcome,
  cases: outcome === 'skipped' ? 0 : 1,
  findings: [],
  ...extra,
});
const verdict = (results: CheckResult[]) => verdictOf(countsOf(results));

describe('the verdict of a run', () => {
  it('counts a skip as not run unless it is marked not applicable', () => {
    expect(isNotRun(result('skipped', { skippedReason: 'no callback receiver' }))).toBe(true);
    expect(isNotRun(result('skipped'))).toBe(true);
    expect(isNotRun(result('skipped', { skippedReason: 'no request rule to break', notApplicable: true }))).toBe(false);
    expect(notRunReasons(result('skipped'))).toEqual(['no reason given']);
  });

  it('counts a result with parts left unchecked as not run, whatever its cases decided', () => {
    expect(notRunReasons(result('passed', { unchecked: ['across modes: give --other-mode-api-key'] }))).toEqual([
      'across modes: give --other-mode-api-key',
    ]);
    expect(isNotRun(result('passed', { notes: ['skipped: one case'] }))).toBe(false);
  });

  it('passes only when every result ran or does not apply', () => {
    expect(verdict([result('passed'), result('skipped', { notApplicable: true })])).toBe('pass');
    expect(verdict([result('passed'), result('skipped', { skippedReason: 'no callback receiver' })])).toBe(
      'incomplete',
    );
    expect(verdict([result('passed', { unchecked: ['across merchants'] })])).toBe('incomplete');
  });

  it('fails when any check failed, even with checks not run', () => {
    expect(verdict([result('failed', { findings: [{ severity: 'failure', message: 'x' }] }), result('skipped')])).toBe(
      'fail',
    );
  });

  it('counts not run and not applicable within the skips', () => {
    const counts = countsOf([
      result('passed', { unchecked: ['x'] }),
      result('skipped'),
      result('skipped', { notApplicable: true }),
      result('failed', { findings: [{ severity: 'warning', message: 'w' }] }),
    ]);
    expect(counts).toEqual({ passed: 1, failed: 1, skipped: 2, notRun: 2, notApplicable: 1, warnings: 1 });
  });
});
