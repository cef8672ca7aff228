// A run's verdict from its results. A check that could not run has not passed: a skip counts as not run
// unless its check marked it not applicable, and so does a result with parts left unchecked. What the user
// left out by name (--skip, --only) never produces a result, so it never counts.
import type { CheckResult, RunCounts, Verdict } from './types.js';

/** Why a result was (wholly or partly) not run, or nothing when it was run in full or does not apply. */
export function notRunReasons(result: CheckResult): string[] {
  if (result.outcome === 'skipped') return result.notApplicable ? [] : [result.skippedReason ?? 'no reason given'];
  return result.unchecked ?? [];
}

export const isNotRun = (result: CheckResult): boolean => notRunReasons(result).length > 0;

export function countsOf(results: readonly CheckResult[]): RunCounts {
  return {
    passed: results.filter((r) => r.outcome === 'passed').length,
    failed: results.filter((r) => r.outcome === 'failed').length,
    skipped: results.filter((r) => r.outcome === 'skipped').length,
    notRun: results.filter(isNotRun).length,
    notApplicable: results.filter((r) => r.outcome === 'skipped' && r.notApplicable === true).length,
    warnings: results.reduce((sum, r) => sum + r.findings.filter((f) => f.severity === 'warning').length, 0),
  };
}

/** Failures win over gaps: a run that failed is a failure whatever it could not check. */
export function verdictOf(counts: Pick<RunCounts, 'failed' | 'notRun'>): Verdict {
  if (counts.failed > 0) return 'fail';
  return counts.notRun > 0 ? 'incomplete' : 'pass';
}
