import type { CheckResult, Finding } from './types.js';

/** A check fails on any failure finding; warnings alone pass. */
export function outcomeOf(findings: Finding[]): CheckResult['outcome'] {
  return findings.some((f) => f.severity === 'failure') ? 'failed' : 'passed';
}
