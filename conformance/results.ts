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
    const skipped = group.filter((r) => r.outcome === 'skipped');
    // Skipped only when none ran: the first skip's reason is then the subject's, and every other reason a note.
    const noted = ran.length === 0 ? skipped.slice(1) : skipped;
    const { skippedReason: _first, ...base } = first;
    const merged: CheckResult = {
      ...base,
      cases: sum(group),
      findings: group.flatMap((r) => r.findings),
      notes: [...group.flatMap((r) => r.notes ?? []), ...noted.flatMap((r) => (r.skippedReason ? [`skipped: ${r.skippedReason}`] : []))],
    };
    if (ran.length === 0) return { ...merged, ...(first.skippedReason ? { skippedReason: first.skippedReason } : {}) };
    return { ...merged, outcome: ran.some((r) => r.outcome === 'failed') ? 'failed' : 'passed' };
  });
}

const sum = (results: CheckResult[]): number => results.reduce((total, r) => total + r.cases, 0);
