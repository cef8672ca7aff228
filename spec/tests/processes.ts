// Test support: free loopback ports, child processes that are ready when they print a line, and a
// static file server, all cleaned up by the caller.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningProcess {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `command` and resolves once its output matches `ready`; rejects if it exits or times out first. */
export async function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
  options: { cwd: string; timeoutMs: number },
): Promise<RunningProcess> {
  const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  let output = '';
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} was not ready after ${options.timeoutMs} ms:\n${output}`));
    }, options.timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${String(code)} before it was ready:\n${output}`));
    });
  });
  return { child, output: () => output, stop };
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.css': 'text/css',
};

/** Serves the files under `root` on 127.0.0.1; resolves with the server and its base URL. */
export async function serveDirectory(root: string): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((request, response) => {
    const relative = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname)).replace(
      /^([/\\])+/,
      '',
    );
    const path = join(root, relative === '' ? 'index.html' : relative);
    if (!path.startsWith(root) || !statSync(path, { throwIfNoEntry: false })?.isFile()) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error_code":"NOT_FOUND","message":"No such file."}');
      return;
    }
    response.writeHead(200, { 'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream' });
    createReadStream(path).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}
