// `npm run sandbox:cluster`: several sandboxes over one PostgreSQL database on this machine, to try what a
// shared test environment runs. Without DATABASE_URL it starts a throwaway PostgreSQL (Debian's postgresql
// package, a temporary folder, a free port on 127.0.0.1, removed at the end); then N sandboxes as `npm start`
// runs them (STORE=postgres), each on its own port, and a round-robin front that hands each request to the
// next one. Prints every address; Ctrl-C stops the sandboxes, the front and the throwaway database.
//
//   npm run sandbox:cluster -- [--instances 2] [--port 3000] [--database-url postgres://...]
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
} from '@payments-contract/server/runtime/command-line';
import { onStopSignal } from '@payments-contract/server/runtime/stop-signals';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { describeTarget } from '../store/postgres/store.js';
import { startThrowawayPostgres } from '../store/postgres/testing/throwaway.js';
import { repoRoot } from '../testing/repo-root.js';
import { startRoundRobin } from './testing/round-robin.js';

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

interface Started {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** One sandbox as `npm start` runs it, with STORE=postgres; resolves once it prints where it listens. */
async function startSandbox(databaseUrl: string, port: number): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'sandbox/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, STORE: 'postgres', DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (\S+)/.exec(output);
      if (found) {
        child.stdout?.off('data', read);
        resolve(found[1]!);
      }
    };
    child.stdout?.on('data', read);
    void exited.then((code) => reject(new Error(`a sandbox exited (${String(code)}) before it listened:\n${output}`)));
  });
  // Its log lines (a line per request) go on to this terminal, each prefixed with the sandbox's address.
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) console.log(`[${url}] ${line}`);
  });
  return { url, child, exited };
}

async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const instances = Number(line.values.instances);
  const port = Number(line.values.port);
  if (!Number.isInteger(instances) || instances < 1 || instances > 16)
    return refuse(COMMAND, new UsageError('--instances must be a whole number from 1 to 16'));
  if (!Number.isInteger(port) || port < 0 || port + instances > 65535)
    return refuse(COMMAND, new UsageError('--port must be a free port, with the next --instances ports free too'));
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: unknown) => console.error('sandbox:cluster: stopping failed:', error));
  };
  try {
    let databaseUrl = line.values['database-url'] ?? process.env.DATABASE_URL;
    if (!databaseUrl) {
      console.error('starting a throwaway PostgreSQL (removed at the end)...');
      const server = await startThrowawayPostgres();
      stops.push(server.stop);
      databaseUrl = server.url;
    }
    const sandboxes: Started[] = [];
    for (let n = 1; n <= instances; n++) {
      // One after another: the first prepares the schema (the others would wait for its start-up lock anyway).
      const sandbox = await startSandbox(databaseUrl, port === 0 ? 0 : port + n);
      sandboxes.push(sandbox);
      stops.push(async () => {
        if (sandbox.child.exitCode === null) sandbox.child.kill('SIGTERM');
        await sandbox.exited;
      });
    }
    const front = await startRoundRobin(
      sandboxes.map((s) => s.url),
      port,
    );
    stops.push(front.close);
    console.log(
      [
        '',
        `${instances} sandboxes on one PostgreSQL database (${describeTarget(databaseUrl)})`,
        `  round-robin front:    ${front.url}   (each request to the next sandbox)`,
        ...sandboxes.map((s, index) => `  sandbox ${index + 1}:${' '.repeat(13 - String(index + 1).length)}${s.url}`),
        `  test secret key:      ${process.env.SANDBOX_SECRET_KEY ? '(as configured)' : DEFAULT_TEST_SECRET_KEY}`,
        `Try: curl -s -u ${process.env.SANDBOX_SECRET_KEY ? '<test secret key>' : DEFAULT_TEST_SECRET_KEY}: ${front.url}/balance`,
        'Ctrl-C stops them all.',
      ].join('\n'),
    );
    return await new Promise<number>((resolve) => {
      onStopSignal(() => void stopAll().then(() => resolve(0)));
      // A sandbox that dies on its own ends the cluster: the front would otherwise hand requests to nothing.
      for (const sandbox of sandboxes) {
        void sandbox.exited.then((code) => {
          if (stops.length === 0) return;
          console.error(`sandbox:cluster: the sandbox at ${sandbox.url} exited (${String(code)}); stopping the others`);
          void stopAll().then(() => resolve(1));
        });
      }
    });
  } catch (error) {
    await stopAll();
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`sandbox:cluster: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
