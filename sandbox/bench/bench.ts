// `npm run bench`: its command line alone. The benchmark (measure.ts, which says what it measures and how) is
// loaded only to run, so --help, --version and a usage mistake answer without loading autocannon, Prism's
// starter, the sandbox's configuration and the mix.
//
//   npm run bench -- [--duration 10] [--warmup 3] [--connections 10] [--rounds 3] [--store journal,sqlite,postgres] [--instances 1,2] [--merchants 1]
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
} from '@payments-contract/server/runtime/command-line';
import { STORE_CHOICES, type StoreChoice } from '../store/open-store.js';
import type { BenchOptions } from './measure.js';

const COMMAND = {
  name: 'bench',
  usage: `Usage: npm run bench -- [--duration 10] [--warmup 3] [--connections 10] [--rounds 3] [--store journal,sqlite,postgres] [--instances 1,2] [--merchants 1]

The sandbox and the Prism mock of the same contract side by side on loopback, each driven with the same
request mix; prints requests/s, p50 and p99 latency, non-2xx answers, the sandbox's CPU per request and
idle share, the sandbox/Prism ratio and each target's goal.

  --duration S               seconds each target is measured per round (default 10)
  --warmup S                 seconds of warm-up per target (default 3)
  --connections N            connections autocannon keeps open (default 10)
  --rounds N                 rounds; each measures every target in turn (default 3)
  --store KINDS              the sandbox's stores, separated by commas: ${STORE_CHOICES.join(', ')} (default journal)
  --instances COUNTS         postgres: how many sandboxes share one database, one target per count (default 1)
  --merchants N              merchants the mix is spread over, each cycle to the next (default 1)
${STANDARD_USAGE_LINES}`,
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    store: { type: 'string', default: 'journal' },
    instances: { type: 'string', default: '1' },
    merchants: { type: 'string', default: '1' },
  },
  module: import.meta.url,
} as const;

export async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const { values } = line;
  const options: BenchOptions = {
    duration: Number(values.duration),
    warmup: Number(values.warmup),
    connections: Number(values.connections),
    rounds: Number(values.rounds),
    merchants: Number(values.merchants),
  };
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value < 1)
      return refuse(COMMAND, new UsageError(`--${name} must be a whole number of at least 1`));
  }
  const named = [...new Set(values.store.split(','))];
  const isStore = (name: string): name is StoreChoice => (STORE_CHOICES as readonly string[]).includes(name);
  const stores = named.filter(isStore);
  const unknown = named.filter((name) => !isStore(name));
  if (unknown.length > 0)
    return refuse(
      COMMAND,
      new UsageError(
        `--store: ${unknown.join(', ')} is not a store (${STORE_CHOICES.join(', ')}; several separated by commas)`,
      ),
    );
  const instanceCounts = [...new Set(values.instances.split(',').map(Number))];
  if (instanceCounts.some((count) => !Number.isInteger(count) || count < 1 || count > 8))
    return refuse(COMMAND, new UsageError('--instances is one or more whole numbers from 1 to 8, separated by commas'));
  if (options.merchants > 16) return refuse(COMMAND, new UsageError('--merchants is a whole number from 1 to 16'));
  if (values.instances !== '1' && !stores.includes('postgres'))
    return refuse(
      COMMAND,
      new UsageError('--instances applies to --store postgres (only PostgreSQL is shared by several sandboxes)'),
    );
  const { benchSandbox } = await import('./measure.js');
  return benchSandbox(options, stores, instanceCounts);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
