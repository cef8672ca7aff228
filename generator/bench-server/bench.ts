// `npm run bench:server`: its command line alone. The benchmark (measure.ts, which says what it measures) is
// loaded only to run, so --help, --version and a usage mistake answer without loading autocannon, ajv and the
// generated router.
//
//   npm run bench:server -- [--duration 3] [--warmup 1] [--connections 32] [--rounds 3] [--targets generated,fastify,hono,bare]
import { readCommandLine, refuse, STANDARD_USAGE_LINES, UsageError } from '../runtime/command-line.js';
import { isTargetName, TARGETS } from './server-process.js';

const COMMAND = {
  name: 'bench:server',
  usage: `Usage: npm run bench:server -- [--duration 3] [--warmup 1] [--connections 32] [--rounds 3] [--targets ${Object.keys(TARGETS).join(',')}]

The generated router and Node listener against Fastify 5, Hono on @hono/node-server and a bare node:http
ceiling, each in its own process doing the same work, on GET /balance, GET /callback_virtual_accounts/{id},
POST /disbursements and two error answers (400 with the contract's errors list, 401). Checks first that all
answer alike, then measures each load on each target in alternating rounds.

  --duration S               seconds each target is measured per load and round (default 3)
  --warmup S                 seconds of warm-up per target and load before the first round (default 1)
  --connections N            connections autocannon keeps open (default 32)
  --rounds N                 rounds; each measures every load on every target, targets in rotating order (default 3)
  --targets NAMES            targets, separated by commas (default all: ${Object.keys(TARGETS).join(', ')})
${STANDARD_USAGE_LINES}

Environment:
  BENCH_SERVER_NODE_OPTIONS  extra node flags for the target processes (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)`,
  options: {
    duration: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    targets: { type: 'string', default: Object.keys(TARGETS).join(',') },
  },
  module: import.meta.url,
} as const;

export async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const { values } = line;
  const options = {
    duration: Number(values.duration),
    warmup: Number(values.warmup),
    connections: Number(values.connections),
    rounds: Number(values.rounds),
  };
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value < 1)
      return refuse(COMMAND, new UsageError(`--${name} must be a whole number of at least 1`));
  }
  const named = [...new Set(values.targets.split(','))];
  const unknown = named.filter((name) => !isTargetName(name));
  if (unknown.length > 0)
    return refuse(
      COMMAND,
      new UsageError(`--targets: ${unknown.join(', ')} is not a target (${Object.keys(TARGETS).join(', ')})`),
    );
  const names = named.filter(isTargetName);
  const { benchServer } = await import('./measure.js');
  return benchServer(names, options);
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
