// `npm run bench:generator`: its command line alone. The benchmark (bench-measure.ts, which says what it measures)
// is loaded only to run, so --help, --version and a usage mistake answer without loading ajv, the generator and
// the validators, which take seconds.
import { readCommandLine, STANDARD_USAGE_LINES } from './runtime/command-line.js';

const COMMAND = {
  name: 'bench:generator',
  usage: `Usage: npm run bench:generator

Prints the wall time of a full \`npm run generate\` (median of several runs; target: under 10 s) and the
validations per second of a generated validator against ajv compiling the same schema at run time.

${STANDARD_USAGE_LINES}

Environment:
  BENCH_GENERATE_RUNS        runs of \`npm run generate\` (default 5)
  BENCH_VALIDATION_MS        milliseconds each validator is measured per round (default 1500)`,
  options: {},
  module: import.meta.url,
} as const;

async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const { benchGenerator } = await import('./bench-measure.js');
  return benchGenerator();
}

process.exitCode = await main(process.argv.slice(2));
