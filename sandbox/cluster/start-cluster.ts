// The cluster behind `npm run sandbox:cluster` (run-cluster.ts reads its command line and loads this only to start
// one): several sandboxes over one PostgreSQL database on this machine, to try what a shared test environment runs.
// Without DATABASE_URL it starts a throwaway PostgreSQL (Debian's postgresql package, a temporary folder, a free
// port on 127.0.0.1, removed at the end); then N sandboxes as `npm start` runs them (STORE=postgres), each on its
// own port, and a round-robin front that hands each request to the next one. Prints every address; Ctrl-C stops the
// sandboxes, the front and the throwaway database.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { onStopSignal } from '@payments-contract/server/runtime/stop-signals';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { describeTarget } from '../store/postgres/store.js';
import { startThrowawayPostgres } from '../store/postgres/testing/throwaway.js';
import { repoRoot } from '../testing/repo-root.js';
import { SANDBOX_ENTRY, startScriptNodeFlags } from '../testing/start-script.js';
import { startRoundRobin } from './testing/round-robin.js';

interface Started {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** One sandbox as `npm start` runs it, with STORE=postgres; resolves once it prints where it listens. */
async function startSandbox(databaseUrl: string, port: number): Promise<Started> {
  const child = spawn(process.execPath, [...startScriptNodeFlags(repoRoot), join(repoRoot, SANDBOX_ENTRY)], {
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

/** Starts the cluster and serves until a stop signal or a sandbox's exit; its exit status. */
export async function runCluster(
  instances: number,
  port: number,
  givenDatabaseUrl: string | undefined,
): Promise<number> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: unknown) => console.error('sandbox:cluster: stopping failed:', error));
  };
  try {
    let databaseUrl = givenDatabaseUrl;
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
