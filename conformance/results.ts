import type { CheckResult, Finding } from './types.js';

/** A check fails on any failure finding; warnings alone pass. */
export function outcomeOf(findings: Finding[]): CheckResult['outcome'] {
  return findings.some((f) => f.severity === 'failure') ? 'failed' : 'passed';
}

/**
 * Results of several scenarios on one subject as one result: failed if any failed, skipped only if none ran
 * (not applicable only if every scenario was, else with a reason why one could not run); skip reasons kept as notes.
 */
export function mergeBySubject(results: CheckResult[]): CheckResult[] {
  const bySubject = new Map<string, CheckResult[]>();
  for (const result of results) bySubject.set(result.subject, [...(bySubject.get(result.subject) ?? []), result]);
  return [...bySubject.values()].map((group) => {
    const [first] = group as [CheckResult, ...CheckResult[]];
    const ran = group.filter((r) => r.outcome !== 'skipped');
    const skipped = group.filter((r) => r.outcome === 'skipped');
    // Skipped only when none ran: a reason why it could not run, when there is one, is then the subject's
    // (it is what makes the run incomplete), and every other reason a note.
    const lead = skipped.find((r) => !r.notApplicable) ?? first;
    const noted = ran.length === 0 ? skipped.filter((r) => r !== lead) : skipped;
    const { skippedReason: _reason, notApplicable: _applies, unchecked: _unchecked, ...base } = first;
    const unchecked = [...new Set(group.flatMap((r) => r.unchecked ?? []))];
    const merged: CheckResult = {
      ...base,
      cases: sum(group),
      findings: group.flatMap((r) => r.findings),
      notes: [
        ...group.flatMap((r) => r.notes ?? []),
        ...noted.flatMap((r) => (r.skippedReason ? [`skipped: ${r.skippedReason}`] : [])),
      ],
      ...(unchecked.length > 0 ? { unchecked } : {}),
    };
    if (ran.length === 0) {
      return {
        ...merged,
        outcome: 'skipped',
        ...(lead.skippedReason ? { skippedReason: lead.skippedReason } : {}),
        ...(skipped.every((r) => r.notApplicable) ? { notApplicable: true } : {}),
      };
    }
    return { ...merged, outcome: ran.some((r) => r.outcome === 'failed') ? 'failed' : 'passed' };
  });
}

const sum = (results: CheckResult[]): number => results.reduce((total, r) => total + r.cases, 0);
