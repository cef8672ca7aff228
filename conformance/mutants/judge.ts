// How `npm run conformance:mutants` judges the chosen mutants (main.ts reads its command line and loads this only
// to run them, so --help, --version and a usage mistake answer without loading the runner and its workers).
import { writeFileSync } from 'node:fs';
import { mapPool } from '../pool.js';
import { PROFILE_CHECKS } from '../types.js';
import { formatMatrix, rowLine } from './by-check.js';
import { runByCheck } from './by-check-run.js';
import { checksFor, runTrial, type Trial, type TrialResult, type Verdict, verdictOf } from './runner.js';
import type { Mutant } from './types.js';
import { trialPool } from './workers.js';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function verdictLine(verdict: Verdict): string {
  const { mutant } = verdict;
  if (verdict.error !== undefined) return `ERROR   ${mutant.name} (${mutant.family}): ${verdict.error}`;
  if (verdict.misplaced !== undefined)
    return `WRONG   ${mutant.name} (${mutant.family}): caught, but ${verdict.misplaced}  [${seconds(verdict.wallMs)}]`;
  if (!verdict.caught)
    return `MISSED  ${mutant.name} (${mutant.family}): ${mutant.mistake}${verdict.notRun.length > 0 ? ` (not run in full: ${verdict.notRun.join(', ')})` : ''}  [${seconds(verdict.wallMs)}]`;
  const shown =
    verdict.failedResults.slice(0, 4).join(', ') +
    (verdict.failedResults.length > 4 ? `, +${verdict.failedResults.length - 4}` : '');
  return `caught  ${mutant.name} (${mutant.family}${verdict.byFamily ? '' : ', not by its own check'}) by ${shown}  [${seconds(verdict.wallMs)}]`;
}

/** Runs of a mutant missed where a check gave no verdict, one at a time after the others. */
const AGAIN = 3;

const setKey = (checks: readonly string[] | undefined): string => (checks ? [...checks].sort().join(',') : 'full');

/**
 * Every mutant judged, and the unmutated sandbox run the same ways: once with the full profile (the rate
 * limit included when a rate limit's mutant is chosen), and with each set of checks a mutant is judged by,
 * alone on a fresh target. Longest trials first, so that no long one is left for the end.
 */
export async function judgeCatalogue(
  chosen: Mutant[],
  options: { full: boolean; workers: number; parallel: number },
): Promise<number> {
  const started = performance.now();
  const trialOf = (mutant: Mutant): Trial => ({ mutant, ...(options.full ? {} : { only: checksFor(mutant) }) });
  // The full profile on a target holding the rate limits, as a deployed sandbox does, the rate_limit check too.
  const sets = new Map<string, Trial>([['full', {}]]);
  for (const mutant of chosen) {
    const { only } = trialOf(mutant);
    if (only) sets.set(setKey(only), { only });
  }
  const baselines = [...sets.values()];
  const size = (trial: Trial): number => trial.only?.length ?? PROFILE_CHECKS.full.length + 1;
  const trials = [
    ...baselines.map((trial): { trial: Trial; mutant?: Mutant } => ({ trial })),
    ...chosen.map((mutant) => ({ trial: trialOf(mutant), mutant })),
  ]
    .map((item, index) => ({ ...item, index }))
    .sort((a, b) => size(b.trial) - size(a.trial) || a.index - b.index);

  const pool = trialPool(options.workers);
  const failedBaselines: string[] = [];
  const verdicts: Verdict[] = [];
  /** Mutants missed where a check gave no verdict: judged again alone (up to AGAIN times) once the others are done. */
  const again: Mutant[] = [];
  const judged = (mutant: Mutant, result: TrialResult, last: boolean): void => {
    const verdict = verdictOf(mutant, result);
    if (!verdict.caught && verdict.error === undefined && result.notRunResults.length > 0 && !last) {
      again.push(mutant);
      return;
    }
    verdicts.push(verdict);
    console.log(verdictLine(verdict));
  };
  try {
    await mapPool(trials, options.workers * options.parallel, async ({ trial, mutant }) => {
      const result = await pool.run(trial);
      if (mutant) judged(mutant, result, false);
      else if (result.error !== undefined || result.failedResults.length > 0)
        failedBaselines.push(
          `${trial.only ? `[${trial.only.join(', ')}]` : 'the full profile'}: ${result.error ?? result.failedResults.map((failed) => `${failed} (${result.failures[failed]?.[0]?.message ?? 'no message'})`).join(', ')}`,
        );
    });
    // A check that could not judge a case in time (the rate limit's burst, or its window between keys, on a busy machine)
    // gets a quieter machine: these run one at a time, in this process.
    for (const mutant of again) {
      let result = await runTrial(trialOf(mutant));
      for (
        let attempt = 2;
        attempt <= AGAIN && result.failedResults.length === 0 && result.notRunResults.length > 0;
        attempt++
      )
        result = await runTrial(trialOf(mutant));
      judged(mutant, result, true);
    }
  } finally {
    pool.close();
  }
  if (failedBaselines.length > 0) {
    console.error(
      `the unmutated sandbox fails ${failedBaselines.join('; ')}: no mutant's failure would mean anything. Fix the sandbox or the suite first.`,
    );
    return 2;
  }
  console.log(
    `baseline: the unmutated sandbox passes the full profile with the rate limit${options.full ? '' : ` and each of the ${baselines.length - 1} sets of checks the mutants are judged by, alone`}`,
  );
  const caught = verdicts.filter((v) => v.caught).length;
  console.log(
    `caught ${caught} of ${verdicts.length} (${options.full ? 'full profile' : 'each by the checks that judge it'}, ${seconds(performance.now() - started)})`,
  );
  return caught === verdicts.length ? 0 : 1;
}

export async function byCheck(chosen: Mutant[], parallel: number, json: string | undefined): Promise<number> {
  const started = performance.now();
  const { baseline, matrix } = await runByCheck(chosen, parallel, (row) => console.log(rowLine(row)));
  if (!matrix) {
    console.error(
      `the unmutated sandbox ${baseline.error ?? `fails ${baseline.caughtBy.join(', ')} run alone`}: no mutant's failure would mean anything. Fix the sandbox or the suite first.`,
    );
    return 2;
  }
  console.log(`\n${formatMatrix(matrix)}(${seconds(performance.now() - started)})`);
  if (json !== undefined) writeFileSync(json, `${JSON.stringify(matrix, null, 2)}\n`);
  return matrix.errors.length === 0 ? 0 : 1;
}
