import type { CheckResult, Finding } from './types.js';

/** A check fails on any failure finding; warnings alone pass. */
export function outcomeOf(findings: Finding[]): CheckResult['outcome'] {
  return findings.some((f) => f.severity === 'failure') ? 'failed' : 'passed';
}

/** Results of several scenarios on one subject as one result: failed if any failed, skipped only if none ran; skip reasons kept as notes. */
export function mergeBySubject(results: CheckResult[]): CheckResult[] {
  const bySubject = new Map<string, CheckResult[]>();
  for (const result of results) bySubject.set(result.subject, [...(bySubject.get(result.subject) ?? []), result]);
  return [...bySubject.values()].map((group) => {
    const [first] = group as [CheckResult, ...CheckResult[]];
    const ran = group.filter((r) => r.outcome !== 'skipped');
    // Skipped only when none ran; then the first reason is the subject's and the others stay notes.
    if (ran.length === 0) {
      const others = group.slice(1).flatMap((r) => (r.skippedReason ? [`skipped: ${r.skippedReason}`] : []));
      return { ...first, cases: sum(group), findings: group.flatMap((r) => r.findings), notes: [...group.flatMap((r) => r.notes ?? []), ...others] };
    }
    const { skippedReason: _none, ...base } = first;
    return {
      ...base,
      outcome: ran.some((r) => r.outcome === 'failed') ? 'failed' : 'passed',
      cases: sum(group),
      findings: group.flatMap((r) => r.findings),
      notes: [...group.flatMap((r) => r.notes ?? []), ...group.flatMap((r) => (r.outcome === 'skipped' && r.skippedReason ? [`skipped: ${r.skippedReason}`] : []))],
    };
  });
}

const sum = (results: CheckResult[]): number => results.reduce((total, r) => total + r.cases, 0);
