// `npm start &` or `npm run mock &`, then `kill $!`: SIGTERM reaches npm alone. npm passes it on to its
// script's shell, which would die without passing it further, leaving the server (and Prism behind the
// mock) running, holding the port and the data directory's lock. The scripts `exec` node, and node runs
// the TypeScript itself (`--import tsx`, no wrapper process), so the signal reaches the server, which stops
// cleanly. These tests start the real npm scripts and signal npm's own process id only.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { answers, isRunning, killRunning, processTree, type ProcessInfo } from '@payments-contract/conformance/testing';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 90_000; // a first `npm start` builds the docs
const STOP_TIMEOUT_MS = 15_000;

/** Every process a test started, ended by id after it whatever happened. */
const started: ProcessInfo[] = [];
afterEach(() => {
  killRunning(started);
  started.length = 0;
});

const dataDir = mkdtempSync(join(tmpdir(), 'stop-with-npm-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface RunningScript {
  npm: ChildProcess;
  url: string;
  output: () => string;
  /** npm and every process below it once the server answered. */
  tree: ProcessInfo[];
}

/** `npm run <args>` with only the environment it needs, once its server says where it listens. */
async function npmRun(args: string[], env: Record<string, string> = {}): Promise<RunningScript> {
  const npm = spawn('npm', ['run', ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NPM_CONFIG_UPDATE_NOTIFIER: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: false,
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm run ${args.join(' ')} did not answer in ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      // Record what runs as soon as it shows, so a failure below still ends it.
      if (npm.pid !== undefined)
        for (const process of processTree(npm.pid))
          if (!started.some((known) => known.pid === process.pid)) started.push(process);
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    npm.stdout.on('data', read);
    npm.stderr.on('data', read);
    npm.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run ${args.join(' ')} exited (${String(code)}) before answering:\n${output}`));
    });
  });
  const tree = processTree(npm.pid!);
  started.push(...tree.filter((process) => !started.some((known) => known.pid === process.pid)));
  return { npm, url, output: () => output, tree };
}

/** SIGTERM to npm's process only, as `kill $!` sends it; then every process of the script must end in time. */
async function killNpm(script: RunningScript): Promise<void> {
  script.npm.kill('SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (script.tree.some(isRunning) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const left = script.tree.filter(isRunning).map((process) => `${process.pid} ${process.command}`);
  expect(left, `still running ${STOP_TIMEOUT_MS} ms after SIGTERM to npm:\n${script.output()}`).toEqual([]);
}

describe('SIGTERM to npm stops the server it started', () => {
  it(
    'npm start: the port closes, no process of it is left, and the next sandbox opens the same DATA_DIR',
    async () => {
      const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir };
      const sandbox = await npmRun(['start'], env);
      expect(await answers(sandbox.url)).toBe(true);
      expect(sandbox.tree.length).toBeGreaterThan(1);

      await killNpm(sandbox);
      expect(await answers(sandbox.url)).toBe(false);
      expect(sandbox.output()).toContain('SIGTERM: stopping the sandbox');

      // The data directory's lock went with it: a second sandbox starts on it, not refused as "in use".
      const next = await npmRun(['start'], env);
      expect(await answers(next.url)).toBe(true);
      await killNpm(next);
    },
    2 * START_TIMEOUT_MS,
  );

  it(
    'npm run mock: the mock and Prism behind it stop, and no process of it is left',
    async () => {
      const mock = await npmRun(['mock', '--', '--port', '0']);
      const prismUrl = /\(Prism on (http:\/\/\S+) /.exec(mock.output())?.[1];
      expect(prismUrl).toBeDefined();
      expect(await answers(mock.url)).toBe(true);
      expect(mock.tree.some((process) => process.command.includes('prism-cli'))).toBe(true);

      await killNpm(mock);
      expect(await answers(mock.url)).toBe(false);
      expect(await answers(prismUrl!)).toBe(false);
    },
    START_TIMEOUT_MS,
  );
});
