// Whether a run caught a mutant where its mistake is (the mutant's `caught`), and whether any of the run's
// reproducing commands shows an API key. Pure functions over plain data, so a worker process can send the
// findings and the catalogue's process judge them against the patterns it holds.
import type { RunSummary } from '../types.js';
import { isNotRun } from '../verdict.js';
import type { CaughtWhere } from './types.js';

/** A failure finding as a trial reports it: what it says and the command that reproduces it. */
export interface FailureFinding {
  message: string;
  curl?: string;
}

/** Per failed result (`check:subject`), its failure findings. */
export type FailuresByResult = Record<string, FailureFinding[]>;

export function failuresOf(summary: RunSummary): FailuresByResult {
  const failures: FailuresByResult = {};
  for (const result of summary.results)
    if (result.outcome === 'failed')
      failures[`${result.check}:${result.subject}`] = result.findings
        .filter((finding) => finding.severity === 'failure')
        .map(({ message, curl }) => (curl === undefined ? { message } : { message, curl }));
  return failures;
}

/**
 * `check:subject` of every result not run, wholly or in part: skipped, or with parts left unchecked (the rate
 * limit's window between keys not judged on a busy machine). A mutant missed with these was not judged.
 */
export function notRunResults(summary: RunSummary): string[] {
  return summary.results.filter(isNotRun).map((result) => `${result.check}:${result.subject}`);
}

const API_KEY = /\bsk_(test|live)_/;

/** `check:subject` of every result with a finding whose command shows an API key (it must be masked). */
export function keysInCommands(summary: RunSummary): string[] {
  return summary.results
    .filter((result) => result.findings.some((finding) => API_KEY.test(finding.curl ?? '')))
    .map((result) => `${result.check}:${result.subject}`);
}

/** Why the run did not catch the mutant where it says it must be caught; undefined when it did. */
export function missedWhere(where: CaughtWhere, failures: FailuresByResult): string | undefined {
  const findings = failures[where.result];
  if (findings === undefined) return `${where.result} did not fail`;
  if (where.alone) {
    const others = Object.keys(failures).filter((result) => result !== where.result);
    if (others.length > 0) return `${others.join(', ')} failed too; the mistake is in ${where.result} alone`;
  }
  const shown = findings.map((finding) => finding.message).join(' | ');
  const matching = (where.says ?? []).map((pattern) => findings.find((finding) => pattern.test(finding.message)));
  const unsaid = (where.says ?? []).filter((_, index) => matching[index] === undefined);
  if (unsaid.length > 0) return `${where.result} failed without saying ${unsaid.join(', ')} (it said: ${shown})`;
  if (where.shownBy && !where.shownBy.test(matching[0]?.curl ?? ''))
    return `${where.result}: the finding that says ${where.says?.[0]} is not shown by ${where.shownBy} (${matching[0]?.curl ?? 'no command'})`;
  if (where.reproduced) {
    const bare = findings.filter((finding) => !finding.curl?.startsWith('curl '));
    if (bare.length > 0) return `${where.result}: no command reproduces ${bare.map((f) => f.message).join(' | ')}`;
  }
  return undefined;
}
