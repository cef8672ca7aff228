// The end-of-run report for people. Short by default: what was not checked and why, every failure with what
// reproduces it, one row of counts per check and the verdict with wall time and throughput. --verbose adds
// the table of operations (or other subjects) by check, every warning, skip and note.
import {
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  type Finding,
  type Outcome,
  type RunSummary,
  type Verdict,
} from '../types.js';
import { countsOf } from '../verdict.js';
import { notCheckedGroups, notCheckedLine } from './not-checked.js';

const CELL: Record<Outcome, string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip' };
/** A skip that does not apply reads apart from one that could not run. */
const cellOf = (result: CheckResult): string =>
  result.outcome === 'skipped' && result.notApplicable ? 'n/a' : CELL[result.outcome];

/** Subjects in the order they first appear in the results. */
function subjectsOf(results: CheckResult[]): string[] {
  return [...new Set(results.map((r) => r.subject))];
}

function checksOf(results: CheckResult[]): CheckName[] {
  const present = new Set(results.map((r) => r.check));
  return CHECK_NAMES.filter((check) => present.has(check));
}

/** Rows: subjects; columns: checks; cells pass, FAIL, skip (not run), n/a (nothing to check), or - where the check has no result. */
export function summaryTable(summary: RunSummary): string {
  const checks = checksOf(summary.results);
  const cells = new Map(summary.results.map((r) => [`${r.check}\u0000${r.subject}`, cellOf(r)]));
  const rows = subjectsOf(summary.results).map((subject) => [
    subject,
    ...checks.map((check) => cells.get(`${check}\u0000${subject}`) ?? '-'),
  ]);
  const header = ['operation', ...checks];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: string[]): string =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
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
    blocks.push(
      `${severity === 'failure' ? 'FAIL' : 'WARN'} ${result.check} ${result.subject}\n${findings.map((f) => indent(formatFinding(f), '    ').replace(/^ {4}/, '  - ')).join('\n')}`,
    );
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
  return [...grouped.values()]
    .map(({ check, note, subjects }) => `NOTE ${check} ${subjects.join(', ')}: ${note}`)
    .join('\n');
}

/** Skipped results with their reasons: a skip is never a silent pass. */
export function skippedDetails(summary: RunSummary): string {
  return summary.results
    .filter((r) => r.outcome === 'skipped')
    .map(
      (r) =>
        `SKIP ${r.check} ${r.subject}: ${r.notApplicable ? 'not applicable: ' : ''}${r.skippedReason ?? 'no reason given'}`,
    )
    .join('\n');
}

/** At most this many groups of what was not checked, in the short summary. */
const NOT_CHECKED_SHOWN = 12;
/** At most this many warnings, one line each, in the short summary. */
const WARNINGS_SHOWN = 10;

/** What the run did not check and why, one line per check and reason; said first, since it changes the verdict. */
export function notCheckedDetails(summary: RunSummary, verbose = false): string {
  const groups = notCheckedGroups(summary.results);
  const shown = verbose ? groups : groups.slice(0, NOT_CHECKED_SHOWN);
  const lines = shown.map((group) => `  ${notCheckedLine(group, verbose ? Infinity : 3)}`);
  if (shown.length < groups.length)
    lines.push(`  … and ${groups.length - shown.length} more (--verbose or the JSON report lists them)`);
  return lines.join('\n');
}

/** One line per result with warnings, for the short summary; the details are in --verbose and the reports. */
function warningLines(summary: RunSummary): string {
  const warned = summary.results.filter((r) => r.findings.some((f) => f.severity === 'warning'));
  const lines = warned.slice(0, WARNINGS_SHOWN).map((r) => {
    const warnings = r.findings.filter((f) => f.severity === 'warning');
    return `WARN ${r.check} ${r.subject}: ${warnings[0]?.message ?? ''}${warnings.length > 1 ? ` (+${warnings.length - 1} more)` : ''}`;
  });
  if (warned.length > WARNINGS_SHOWN)
    lines.push(`… and ${warned.length - WARNINGS_SHOWN} more (--verbose or the JSON report lists them)`);
  return lines.join('\n');
}

/** What ran: one row per check with its counts (the per-operation table is --verbose's). */
export function checkTable(summary: RunSummary): string {
  const rows = checksOf(summary.results).map((check) => {
    const counts = countsOf(summary.results.filter((r) => r.check === check));
    return [check, counts.passed, counts.failed, counts.notRun, counts.notApplicable, counts.warnings].map(String);
  });
  const header = ['check', 'passed', 'failed', 'not run', 'n/a', 'warnings'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  // Names left-aligned, counts right-aligned.
  const line = (row: string[]): string =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** The 429 answers met, when the run counted them: outside the rate_limit check, a conforming target gives none. */
function rateLimited({ rateLimitedResponses: all, rateLimitedOutsideRateLimitCheck: outside }: RunSummary): string {
  if (all === undefined) return '';
  return `, ${all} answered 429${outside !== undefined && outside !== all ? ` (${outside} outside the rate_limit check)` : ''},`;
}

const VERDICT_LABEL: Record<Verdict, string> = { pass: 'PASS', fail: 'FAIL', incomplete: 'INCOMPLETE' };

export function totalsLine(summary: RunSummary): string {
  const { passed, failed, notRun, notApplicable, warnings } = summary.counts;
  const seconds = summary.wallMs / 1000;
  return `${VERDICT_LABEL[summary.verdict]}: ${passed} passed, ${failed} failed, ${notRun} not run, ${notApplicable} not applicable, ${warnings} warnings; ${summary.requests} requests in ${seconds.toFixed(2)} s (${Math.round(summary.requestsPerSecond)} requests/s)${rateLimited(summary)} against ${summary.baseUrl}, profile ${summary.profile}`;
}

/** What the user left out by name, which is not counted as not run. */
function selectionLine(summary: RunSummary): string | undefined {
  const { only, skip } = summary.selection;
  const parts = [
    ...(only.length > 0 ? [`--only ${only.join(',')}`] : []),
    ...(skip.length > 0 ? [`--skip ${skip.join(',')}`] : []),
  ];
  return parts.length > 0
    ? `Chosen by name (what this leaves out is not counted as not run): ${parts.join(' ')}`
    : undefined;
}

export interface SummaryOptions {
  /** Also the per-operation table, every warning in full, every skip and every note. */
  verbose?: boolean;
}

/**
 * The end-of-run report. What was not checked comes first, since it decides an incomplete verdict; then
 * every failure with what reproduces it; then what ran, check by check; the verdict and totals last.
 */
export function formatSummary(summary: RunSummary, options: SummaryOptions = {}): string {
  const verbose = options.verbose === true;
  const sections: string[] = [];
  const notChecked = notCheckedDetails(summary, verbose);
  if (notChecked)
    sections.push(`Not checked (the run is ${summary.verdict === 'fail' ? 'also ' : ''}incomplete):\n${notChecked}`);
  const selection = selectionLine(summary);
  if (selection) sections.push(selection);
  if (verbose) sections.push(summaryTable(summary));
  const failures = findingDetails(summary, 'failure');
  if (failures) sections.push(`Failures:\n\n${failures}`);
  if (verbose) {
    for (const [title, body] of [
      ['Warnings', findingDetails(summary, 'warning')],
      ['Skipped', skippedDetails(summary)],
      ['Notes', noteDetails(summary)],
    ] as const) {
      if (body) sections.push(`${title}:\n\n${body}`);
    }
  } else {
    const warnings = warningLines(summary);
    if (warnings) sections.push(warnings);
  }
  sections.push(checkTable(summary));
  sections.push(totalsLine(summary));
  return `${sections.join('\n\n')}\n`;
}
