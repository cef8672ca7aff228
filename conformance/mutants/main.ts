// `npm run conformance:mutants`: the suite against every mutant of the catalogue, one line per mutant and
// `caught X of N`. The unmutated sandbox runs first and must pass, or no mutant's failure would mean
// anything. Exit 0 when every mutant was caught, 1 when one was missed or is stale, 2 for a usage mistake or
// a baseline that fails. With --by-check, the kill rate of each check alone (by-check.ts); exit 1 then only
// when a mutant could not be run.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  readCommandLine,
  refuse,
  UsageError,
  STANDARD_USAGE_LINES,
} from '@payments-contract/server/runtime/command-line';
import { mapPool } from '../pool.js';
import { CHECK_NAMES, type CheckName } from '../types.js';
import { formatMatrix, rowLine } from './by-check.js';
import { runByCheck } from './by-check-run.js';
import { loadCatalogue } from './catalogue.js';
import { failedResults, familyPatterns, judgeMutant, runAgainst, startMutant, type Verdict } from './runner.js';
import type { Mutant } from './types.js';

const COMMAND = {
  name: 'conformance:mutants',
  usage: `Usage: npm run conformance:mutants -- [options]

Runs the conformance suite against deliberately broken copies of the sandbox (conformance/mutants/catalogue/)
and reports which the suite caught. The unmutated sandbox runs first and must pass.

Options:
  --mutant NAME              only this mutant (repeatable).
  --family CHECK             only the mutants of this check's family (repeatable).
  --fast                     run only each mutant's own check instead of the full profile.
  --parallel N               mutants run at the same time (default 1; each is a sandbox and a suite run).
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
  if (!verdict.caught)
    return `MISSED  ${mutant.name} (${mutant.family}): ${mutant.mistake}  [${seconds(verdict.wallMs)}]`;
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
  try {
    chosen = select(catalogue, values.mutant ?? [], values.family ?? []);
    parallel = Number(values.parallel ?? '1');
    if (!Number.isInteger(parallel) || parallel < 1 || parallel > 8)
      throw new UsageError(`--parallel must be a whole number from 1 to 8, not "${values.parallel}"`);
    if (values['by-check'] && values.fast)
      throw new UsageError('--by-check runs every check alone; --fast cannot be added to it');
    if (values.json !== undefined && !values['by-check'])
      throw new UsageError('--json writes the --by-check matrix; give --by-check too');
  } catch (error) {
    if (error instanceof UsageError) return refuse(COMMAND, error);
    throw error;
  }
  if (values['by-check']) return byCheck(chosen, parallel, values.json);
  const fast = values.fast === true;
  const started = performance.now();

  const baselineStarted = performance.now();
  const baseline = await startMutant();
  let baselineFailures: string[];
  try {
    const checks = [...new Set(chosen.flatMap((m) => familyPatterns(m.family)))];
    baselineFailures = failedResults(await runAgainst(baseline, fast ? { only: checks } : {}));
  } finally {
    await baseline.close();
  }
  if (baselineFailures.length > 0) {
    console.error(
      `the unmutated sandbox fails ${baselineFailures.join(', ')}: no mutant's failure would mean anything. Fix the sandbox or the suite first.`,
    );
    return 2;
  }
  console.log(
    `baseline: the unmutated sandbox passes ${fast ? 'the selected checks' : 'the full profile'}  [${seconds(performance.now() - baselineStarted)}]`,
  );

  const verdicts = await mapPool(chosen, parallel, async (mutant) => {
    const verdict = await judgeMutant(mutant, { fast });
    console.log(verdictLine(verdict));
    return verdict;
  });
  const caught = verdicts.filter((v) => v.caught).length;
  console.log(
    `caught ${caught} of ${verdicts.length} (${fast ? "each mutant's own check" : 'full profile'}, ${seconds(performance.now() - started)})`,
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
