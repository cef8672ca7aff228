// Runs Prism as a child process on an internal loopback port. Prism logs at `warn` (its per-request `info`
// lines cost about a third of its throughput), so readiness is seen by connecting, not by reading its log.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

export interface PrismProcess {
  url: string;
  /** The last part of Prism's output, for error messages. */
  output: () => string;
  /** Settles when Prism exits, for whatever reason. */
  exited: Promise<number | null>;
  stop: () => Promise<void>;
}

export interface PrismOptions {
  specPath: string;
  /** Give up when Prism is not listening after this long. */
  startTimeoutMs?: number;
}

const OUTPUT_KEPT = 16 * 1024;

/** The Prism CLI's entry file, found through its package (not through `node_modules/.bin`, which npm may place elsewhere). */
function prismEntry(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bin.prism ?? 'dist/index.js');
}

/** A loopback port nobody listens on right now (the OS picks it). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGTERM');
  // Prism normally exits at once; a stuck one must not keep the caller (or a test run) waiting.
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  return exited.then(() => clearTimeout(timer));
}

/**
 * Loaded into Prism's process before Prism: it ends when its stdin reaches its end. This process holds the
 * only writing end of that pipe, and the kernel closes it however this process ends (SIGKILL, a crash, a
 * signal no handler saw), so Prism never outlives its parent to hold its port. Inline, because Prism's
 * process runs plain JavaScript, without this repository's TypeScript loader.
 */
const EXIT_WITH_PARENT = 'data:text/javascript,process.stdin.on("end",()=>process.exit(0)).resume()';

export async function startPrism(options: PrismOptions): Promise<PrismProcess> {
  const host = '127.0.0.1';
  const port = await freePort(host);
  // Without CORS headers: the contract says Access-Control-Allow-Origin is never sent (decision
  // no-browser-access), and Prism adds it to every answer unless told not to.
  const child = spawn(
    process.execPath,
    [
      '--import',
      EXIT_WITH_PARENT,
      prismEntry(),
      'mock',
      '--host',
      host,
      '--port',
      String(port),
      '--verboseLevel',
      'warn',
      '--cors',
      'false',
      options.specPath,
    ],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // If this process ends without stopping Prism (a crashed test run), Prism must not outlive it.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  const stop = (): Promise<void> => stopChild(child, exited);

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  while (!(await canConnect(host, port))) {
    if (gone) throw new Error(`Prism exited before it was listening:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Prism was not listening after ${options.startTimeoutMs ?? 60_000} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://${host}:${port}`, output: () => output, exited, stop };
}
