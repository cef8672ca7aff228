// `npm run conformance:mutants`: the suite against every mutant of the catalogue, one line per mutant and
// `caught X of N`. Each mutant is judged by the checks that judge it (runner.ts, checksFor); the unmutated
// sandbox must pass the whole full profile, and each of those sets of checks run alone on a fresh target as
// the mutants are, or no mutant's failure would mean anything (`caught` is: broke something the clean target
// passes). Exit 0 when every mutant was caught, 1 when one was missed or is stale, 2 for a usage mistake or
// a baseline that fails. A mutant that names where it must be caught (`caught`) and is caught elsewhere only is
// WRONG, and fails the run as a missed one does. With --by-check, the kill rate of each check alone (by-check.ts); exit 1 then only
// when a mutant could not be run.
// This module is the command line; the catalogue is loaded once it is read, and the judging (judge.ts) once the
// choice of mutants and workers is accepted.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  readCommandLine,
  refuse,
  UsageError,
  STANDARD_USAGE_LINES,
} from '@payments-contract/server/runtime/command-line';
import { CHECK_NAMES, type CheckName } from '../types.js';
import type { Mutant } from './types.js';

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
  // Loaded once the command line is read: the catalogue and the runner take longer to load than Node.js takes
  // to start, which --help, --version and a usage mistake need not wait for.
  const { loadCatalogue } = await import('./catalogue.js');
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
  const { byCheck, judgeCatalogue } = await import('./judge.js');
  if (values['by-check']) return byCheck(chosen, parallel, values.json);
  return judgeCatalogue(chosen, { full: values.full === true, workers, parallel });
}

function wholeNumber(option: string, value: string | undefined, otherwise: number): number {
  const number = Number(value ?? otherwise);
  if (!Number.isInteger(number) || number < 1 || number > 8)
    throw new UsageError(`${option} must be a whole number from 1 to 8, not "${value}"`);
  return number;
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
