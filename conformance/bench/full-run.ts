// `npm run bench:conformance`: its command line alone. The benchmark (full-run-measure.ts, which says what it
// measures and how) is loaded only to run, so --help, --version and a usage mistake answer without loading the
// suite and the sandbox's testing door.
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
} from '@payments-contract/server/runtime/command-line';

const COMMAND = {
  name: 'bench:conformance',
  usage: `Usage: npm run bench:conformance -- [--rounds N] [--rate-limits on|off] [--store journal|sqlite]

The full profile against the sandbox as \`npm start\` runs it, with a callback receiver and the keys the
isolation check uses; prints the wall time of the run, its requests, each check's time and the pass/fail
counts. Exit 0 when no check failed.

  --rounds N                 runs, one after the other, each against a fresh sandbox (default 1)
  --rate-limits on|off       off: the sandbox answers at full speed and the suite does not pace itself,
                             the figure the suite's speed budget is held to (default on)
  --store journal|sqlite     the sandbox's store (default journal)
${STANDARD_USAGE_LINES}`,
  options: {
    rounds: { type: 'string', default: '1' },
    'rate-limits': { type: 'string', default: 'on' },
    store: { type: 'string', default: 'journal' },
  },
  module: import.meta.url,
} as const;

async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const { values } = line;
  const rounds = Number(values.rounds);
  const limits = values['rate-limits'];
  const store = values.store;
  if (!Number.isInteger(rounds) || rounds < 1)
    return refuse(COMMAND, new UsageError(`--rounds must be a whole number of at least 1, not "${values.rounds}"`));
  if (limits !== 'on' && limits !== 'off')
    return refuse(COMMAND, new UsageError(`--rate-limits is on or off, not "${limits}"`));
  // PostgreSQL needs a database: its full-profile runs are conformance/tests/sandbox-postgres-cluster.test.ts.
  if (store !== 'journal' && store !== 'sqlite')
    return refuse(COMMAND, new UsageError(`--store is journal or sqlite, not "${store}"`));
  const { benchFullRun } = await import('./full-run-measure.js');
  return benchFullRun(rounds, limits === 'on', store);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench:conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
