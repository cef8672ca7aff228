// A throwaway PostgreSQL server for tests and scripts: Debian's `postgresql` package (initdb and pg_ctl),
// a cluster in a new temporary folder, a free port on 127.0.0.1 only, trust authentication (nothing but
// this machine can reach it), and `stop()` stops that server (pg_ctl stop -m fast) and removes the folder.
// No Docker engine is needed. PostgreSQL refuses to run as root, so when we are root the cluster belongs to
// the `postgres` user and its commands run as that user (runuser).
//
// The cluster is made for speed: fsync off. A stopped or killed *client* (the sandbox) loses nothing with
// it, since a commit is in the server's hands before it is acknowledged; only a crash of the machine could
// lose the last commits, which a throwaway database does not care about.
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's postgresql 15 puts its server programs; PG_BIN overrides it. */
export const DEFAULT_PG_BIN = '/usr/lib/postgresql/15/bin';

export class PostgresNotInstalledError extends Error {
  constructor(bin: string) {
    super(
      `PostgreSQL's server programs are not in ${bin}: install Debian's postgresql (apt-get install -y postgresql; .ci/install-system-deps.sh does it), or set PG_BIN`,
    );
    this.name = 'PostgresNotInstalledError';
  }
}

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  host: string;
  port: number;
  /** The URL of another database of this server. */
  urlOf(database: string): string;
  /** Stops the server as a crash would (`immediate`) or cleanly (`fast`), keeping its data. */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port, with the same data. */
  startServer(): Promise<void>;
  /** Stops the server and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface ThrowawayOptions {
  /** The folder of initdb and pg_ctl (default PG_BIN or /usr/lib/postgresql/15/bin). */
  bin?: string;
  /** Connections the server accepts (default 200: several sandboxes with their pools). */
  maxConnections?: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** The `postgres` user's uid and gid, when we are root (PostgreSQL will not run as root). */
function runAsUser(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid, name: 'postgres' };
}

export async function startThrowawayPostgres(options: ThrowawayOptions = {}): Promise<ThrowawayPostgres> {
  const bin = options.bin ?? process.env.PG_BIN ?? DEFAULT_PG_BIN;
  if (!existsSync(join(bin, 'pg_ctl'))) throw new PostgresNotInstalledError(bin);
  const user = runAsUser();
  const folder = mkdtempSync(join(tmpdir(), 'sandbox-postgres-'));
  if (user) chownSync(folder, user.uid, user.gid);
  const data = join(folder, 'data');
  const command = (program: string, args: string[]) =>
    user ? run('runuser', ['-u', user.name, '--', join(bin, program), ...args]) : run(join(bin, program), args);
  const port = await freePort();
  const host = '127.0.0.1';
  const serverOptions = [
    `-p ${port}`,
    `-c listen_addresses=${host}`,
    // Its own socket folder: the system's /var/run/postgresql may not exist or belong to another server.
    `-k ${folder}`,
    `-c max_connections=${options.maxConnections ?? 200}`,
    '-c fsync=off',
    '-c full_page_writes=off',
  ].join(' ');
  const startServer = async () =>
    void (await command('pg_ctl', [
      '-D',
      data,
      '-o',
      serverOptions,
      '-l',
      join(folder, 'server.log'),
      '-w',
      '-t',
      '30',
      'start',
    ]));
  const stopServer = async (mode: 'fast' | 'immediate' = 'fast') =>
    void (await command('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']));
  try {
    await command('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    await startServer();
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  let stopped: Promise<void> | undefined;
  // A test runner that exits without calling stop() must not leave the server running behind it.
  const onExit = () => {
    try {
      execFileSync(
        user ? 'runuser' : join(bin, 'pg_ctl'),
        [...(user ? ['-u', user.name, '--', join(bin, 'pg_ctl')] : []), '-D', data, '-m', 'immediate', 'stop'],
        { stdio: 'ignore' },
      );
    } catch {
      // Already stopped.
    }
    rmSync(folder, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const urlOf = (database: string) => `postgres://postgres@${host}:${port}/${database}`;
  return {
    url: urlOf('postgres'),
    host,
    port,
    urlOf,
    stopServer,
    startServer,
    stop: () =>
      (stopped ??= (async () => {
        process.removeListener('exit', onExit);
        try {
          await stopServer('fast');
        } catch {
          // Stopped already (a test stopped it and did not start it again).
        }
        rmSync(folder, { recursive: true, force: true });
      })()),
  };
}
