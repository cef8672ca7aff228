// `npm run bench:diff`: its command line alone. The benchmark (measure.ts, which says what it measures) is loaded
// only to run, so --help, --version and a usage mistake answer without loading the change check and the
// conformance suite's testing tools.
import { fileURLToPath } from 'node:url';
import { readCommandLine, STANDARD_USAGE_LINES } from '@payments-contract/runtime/command-line';

const COMMAND = {
  name: 'bench:diff',
  usage: `Usage: npm run bench:diff

Prints the time to read two bundled contracts and diff the service contract against a copy of itself
with 20 changes (median of several runs; target: under 1 s).

${STANDARD_USAGE_LINES}

Environment:
  BENCH_DIFF_RUNS            runs (default 7)`,
  options: {},
  module: import.meta.url,
} as const;

async function main(): Promise<number> {
  const line = readCommandLine(COMMAND, process.argv.slice(2));
  if (typeof line === 'number') return line;
  const { benchDiff } = await import('./measure.js');
  return benchDiff();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main();
