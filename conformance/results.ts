import type { CheckResult, Finding } from './types.js';

/** A check fails on any failure finding; warnings alone pass. */
export function outcomeOf(findings: Finding[]): CheckResult['outcome'] {
  return findings.some((f) => f.severity === 'failure') ? 'failed' : 'passed';
}

/** Results of several scenarios on one subject as one result: failed if any failed, skipped only if none ran; skip reasons kept as notes. */
export function mergeBySubject(results: CheckResult[]): CheckResult[] {
  const bySubject = new Map<string, CheckResult>();
  for (const result of results) {
    const seen = bySubject.get(result.subject);
    if (!seen) {
      bySubject.set(result.subject, { ...result, findings: [...result.findings], notes: [...(result.notes ?? [])] });
      continue;
    }
    seen.cases += result.cases;
    seen.findings.push(...result.findings);
    seen.notes = [...(seen.notes ?? []), ...(result.notes ?? [])];
    // A failure anywhere fails the subject; a skip only when nothing passed or failed.
    if (result.outcome === 'failed' || seen.outcome === 'failed') seen.outcome = 'failed';
    else if (seen.outcome === 'skipped' && result.outcome === 'passed') seen.outcome = 'passed';
    if (result.skippedReason && result.outcome === 'skipped') seen.notes.push(`skipped: ${result.skippedReason}`);
  }
  return [...bySubject.values()];
}
