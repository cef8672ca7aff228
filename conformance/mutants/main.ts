// `npm run conformance:mutants`: the suite against every mutant of the catalogue, one line per mutant and
// `caught X of N`. Each mutant is judged by the checks that judge it (runner.ts, checksFor); the unmutated
// sandbox must pass the whole full profile, and each of those sets of checks run alone on a fresh target as
// the mutants are, or no mutant's failure would mean anything (`caught` is: broke something the clean target
// passes). Exit 0 when every mutant was caught, 1 when one was missed or is stale, 2 for a usage mistake or
// a baseline that fails. A mutant that names where it must be caught (`caught`) and is caught elsewhere only is
// WRONG, and fails the run as a missed one does. With --by-check, the kill rate of each check alone (by-check.ts); exit 1 then only
// when a mutant could not be run.
import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  readCommandLine,
  refuse,
  UsageError,
  STANDARD_USAGE_LINES,
} from '@payments-contract/server/runtime/command-line';
import { mapPool } from '../pool.js';
import { CHECK_NAMES, type CheckName, PROFILE_CHECKS } from '../types.js';
import { formatMatrix, rowLine } from './by-check.js';
import { runByCheck } from './by-check-run.js';
import { loadCatalogue } from './catalogue.js';
import { checksFor, runTrial, type Trial, type TrialResult, type Verdict, verdictOf } from './runner.js';
import type { Mutant } from './types.js';
import { trialPool } from './workers.js';

const COMMAND = {
  name: 'conformance:mutants',
  usage: `Usage: npm run conformance:mutants -- [options]

Runs the conformance suite against deliberately broken copies of the sandbox (conformance/mutants/catalogue/)
and reports which the suite caught. The unmutated sandbox runs first and must pass.

Options:
  --mutant NAME              only this mutant (repeatable).
  --family CHECK             only the mutants of this check's family (repeatable).
  --full                     run the full profile against each mutant, not only the checks that judge it
                             (its family's, with what feeds them).
  --fast                     the default: each mutant judged by the checks that judge it.
  --workers N                worker processes the mutants are spread over (default: the cores, at most 4).
  --parallel N               mutants each worker runs at the same time (default 2; each is a sandbox and a
                             suite run, mostly waiting on sockets and timers).
  --by-check                 run each check of the full profile alone against every mutant (started once)
                             and print the kill rate per check, the checks that catch each class of fault
                             and the mutants only the second round's checks catch.
  --json FILE                with --by-check: also write that matrix to FILE as JSON.
  --list                     print the catalogue and exit.
${STANDARD_USAGE_LINES}`,
  options: {
    mutant: { type: 'string', multiple: true },
    family: { type: 'string', multiple: true },
    fast: { type: 'boolean' },
    full: { type: 'boolean' },
    workers: { type: 'string' },
    parallel: { type: 'string' },
    list: { type: 'boolean' },
    'by-check': { type: 'boolean' },
    json: { type: 'string' },
  },
  module: import.meta.url,
} as const;

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

function select(catalogue: Mutant[], names: string[], families: string[]): Mutant[] {
  for (const family of families)
    if (!CHECK_NAMES.includes(family as CheckName))
      throw new UsageError(`--family must be one of ${CHECK_NAMES.join(', ')}, not "${family}"`);
  for (const name of names)
    if (!catalogue.some((m) => m.name === name))
      throw new UsageError(`no mutant is named "${name}" (--list shows them)`);
  return catalogue.filter(
    (m) => (names.length === 0 || names.includes(m.name)) && (families.length === 0 || families.includes(m.family)),
  );
}

export async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const { values } = line;
  const catalogue = await loadCatalogue();
  if (values.list) {
    for (const mutant of catalogue)
      console.log(`${mutant.name.padEnd(44)} ${mutant.family.padEnd(22)} ${mutant.mistake}`);
    return 0;
  }
  let chosen: Mutant[];
  let parallel: number;
  let workers: number;
  try {
    chosen = select(catalogue, values.mutant ?? [], values.family ?? []);
    parallel = wholeNumber('--parallel', values.parallel, values['by-check'] ? 1 : 2);
    workers = wholeNumber('--workers', values.workers, Math.min(4, availableParallelism()));
    if (values['by-check'] && (values.fast || values.full))
      throw new UsageError('--by-check runs every check alone; --fast or --full cannot be added to it');
    if (values.fast && values.full) throw new UsageError('--fast and --full contradict each other');
    if (values.json !== undefined && !values['by-check'])
      throw new UsageError('--json writes the --by-check matrix; give --by-check too');
  } catch (error) {
    if (error instanceof UsageError) return refuse(COMMAND, error);
    throw error;
  }
  if (values['by-check']) return byCheck(chosen, parallel, values.json);
  return judgeCatalogue(chosen, { full: values.full === true, workers, parallel });
}

function wholeNumber(option: string, value: string | undefined, otherwise: number): number {
  const number = Number(value ?? otherwise);
  if (!Number.isInteger(number) || number < 1 || number > 8)
    throw new UsageError(`${option} must be a whole number from 1 to 8, not "${value}"`);
  return number;
}

/** Runs of a mutant missed where a check gave no verdict, one at a time after the others. */
const AGAIN = 3;

const setKey = (checks: readonly string[] | undefined): string => (checks ? [...checks].sort().join(',') : 'full');

/**
 * Every mutant judged, and the unmutated sandbox run the same ways: once with the full profile (the rate
 * limit included when a rate limit's mutant is chosen), and with each set of checks a mutant is judged by,
 * alone on a fresh target. Longest trials first, so that no long one is left for the end.
 */
async function judgeCatalogue(
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

async function byCheck(chosen: Mutant[], parallel: number, json: string | undefined): Promise<number> {
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 2;
    },
  );
}
