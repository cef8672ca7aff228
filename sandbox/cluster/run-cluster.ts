// `npm run sandbox:cluster`: its command line alone. The cluster (start-cluster.ts, which says what it starts) is
// loaded only to start one, so --help, --version and a usage mistake answer without loading the sandbox's
// configuration and the PostgreSQL store.
//
//   npm run sandbox:cluster -- [--instances 2] [--port 3000] [--database-url postgres://...]
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
} from '@payments-contract/server/runtime/command-line';

const COMMAND = {
  name: 'sandbox:cluster',
  usage: `Usage: npm run sandbox:cluster -- [--instances 2] [--port 3000] [--database-url postgres://...]

Starts N sandboxes over one PostgreSQL database (a throwaway one unless --database-url or DATABASE_URL names
one) and a round-robin front before them, and prints their addresses. Ctrl-C stops everything it started.
Other variables (SANDBOX_CALLBACK_URL, SANDBOX_MERCHANTS...) reach every sandbox as \`npm start\` reads them.

  --instances N              sandboxes to start (default 2)
  --port P                   the front's port (default 3000; 0 picks a free one); sandbox n listens on P+n
  --database-url URL         an existing database instead of a throwaway one (default DATABASE_URL)
${STANDARD_USAGE_LINES}`,
  options: {
    instances: { type: 'string', default: '2' },
    port: { type: 'string', default: '3000' },
    'database-url': { type: 'string' },
  },
  module: import.meta.url,
} as const;

async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const instances = Number(line.values.instances);
  const port = Number(line.values.port);
  if (!Number.isInteger(instances) || instances < 1 || instances > 16)
    return refuse(COMMAND, new UsageError('--instances must be a whole number from 1 to 16'));
  if (!Number.isInteger(port) || port < 0 || port + instances > 65535)
    return refuse(COMMAND, new UsageError('--port must be a free port, with the next --instances ports free too'));
  const { runCluster } = await import('./start-cluster.js');
  return runCluster(instances, port, line.values['database-url'] ?? process.env.DATABASE_URL);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`sandbox:cluster: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
