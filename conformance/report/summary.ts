// The end-of-run report for people: a table of operations (or other subjects) by check, every failure with
// what reproduces it, and a line of totals with wall time and throughput.
import { CHECK_NAMES, type CheckName, type CheckResult, type Finding, type Outcome, type RunSummary } from '../types.js';

const CELL: Record<Outcome, string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip' };

/** Subjects in the order they first appear in the results. */
function subjectsOf(results: CheckResult[]): string[] {
  return [...new Set(results.map((r) => r.subject))];
}

function checksOf(results: CheckResult[]): CheckName[] {
  const present = new Set(results.map((r) => r.check));
  return CHECK_NAMES.filter((check) => present.has(check));
}

/** Rows: subjects; columns: checks; cells pass, FAIL, skip, or - where the check does not apply. */
export function summaryTable(summary: RunSummary): string {
  const checks = checksOf(summary.results);
  const cells = new Map(summary.results.map((r) => [`${r.check}\u0000${r.subject}`, CELL[r.outcome]]));
  const rows = subjectsOf(summary.results).map((subject) => [subject, ...checks.map((check) => cells.get(`${check}\u0000${subject}`) ?? '-')]);
  const header = ['operation', ...checks];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]): string => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((row) => `${prefix}${row}`)
    .join('\n');
}

/** A schema path as a pointer into the contract (`#/components/...`), without the base URI ajv resolved it against. */
export function contractPointer(schemaPath: string): string {
  return schemaPath.replace(/^[a-z][a-z0-9+.-]*:[^#]*(?=#)/i, '');
}

/** One finding with everything needed to reproduce and locate it. */
export function formatFinding(finding: Finding): string {
  const lines = [finding.message];
  if (finding.status !== undefined) lines.push(`status: ${finding.status === 0 ? 'no answer' : finding.status}`);
  if (finding.schemaPath) lines.push(`schema path: ${contractPointer(finding.schemaPath)}`);
  if (finding.bodyExcerpt) lines.push(`body: ${finding.bodyExcerpt}`);
  if (finding.curl) lines.push(`reproduce: ${finding.curl}`);
  return lines.join('\n');
}

/** Every failure (and, separately, every warning), grouped by check and subject. */
export function findingDetails(summary: RunSummary, severity: Finding['severity']): string {
  const blocks: string[] = [];
  for (const result of summary.results) {
    const findings = result.findings.filter((f) => f.severity === severity);
    if (findings.length === 0) continue;
    blocks.push(`${severity === 'failure' ? 'FAIL' : 'WARN'} ${result.check} ${result.subject}\n${findings.map((f) => indent(formatFinding(f), '    ').replace(/^ {4}/, '  - ')).join('\n')}`);
  }
  return blocks.join('\n\n');
}

/** What checks noted about their own outcome (cases not applicable, relaxed expectations), one line per note. */
export function noteDetails(summary: RunSummary): string {
  // The same note usually applies to many operations; say it once, with the operations it applies to.
  const grouped = new Map<string, { check: string; note: string; subjects: string[] }>();
  for (const result of summary.results) {
    for (const note of result.notes ?? []) {
      const key = `${result.check}\u0000${note}`;
      const entry = grouped.get(key) ?? { check: result.check, note, subjects: [] };
      entry.subjects.push(result.subject);
      grouped.set(key, entry);
    }
  }
  return [...grouped.values()].map(({ check, note, subjects }) => `NOTE ${check} ${subjects.join(', ')}: ${note}`).join('\n');
}

/** Skipped results with their reasons: a skip is never a silent pass. */
export function skippedDetails(summary: RunSummary): string {
  return summary.results
    .filter((r) => r.outcome === 'skipped')
    .map((r) => `SKIP ${r.check} ${r.subject}: ${r.skippedReason ?? 'no reason given'}`)
    .join('\n');
}

export function totalsLine(summary: RunSummary): string {
  const { passed, failed, skipped, warnings } = summary.counts;
  const seconds = summary.wallMs / 1000;
  return `${passed} passed, ${failed} failed, ${skipped} skipped, ${warnings} warnings; ${summary.requests} requests in ${seconds.toFixed(2)} s (${Math.round(summary.requestsPerSecond)} requests/s) against ${summary.baseUrl}, profile ${summary.profile}`;
}

export function formatSummary(summary: RunSummary): string {
  const sections = [summaryTable(summary)];
  for (const [title, body] of [
    ['Failures', findingDetails(summary, 'failure')],
    ['Warnings', findingDetails(summary, 'warning')],
    ['Skipped', skippedDetails(summary)],
    ['Notes', noteDetails(summary)],
  ] as const) {
    if (body) sections.push(`${title}:\n\n${body}`);
  }
  sections.push(totalsLine(summary));
  return `${sections.join('\n\n')}\n`;
}
