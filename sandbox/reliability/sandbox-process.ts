// The sandbox as `npm start` runs it, in a child process on 127.0.0.1: what the reliability suite attacks,
// kills and restarts. A child, not the app in the test's own process, so that a crash, a stack overflow or a
// blocked event loop shows as what it is (a lost process, a dropped connection, a hang) instead of being
// caught by the test runner, and so that SIGKILL means what it means in production.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_MERCHANTS, type TestKeyName } from '../testing/index.js';
import { repoRoot } from '../testing/repo-root.js';
import { SANDBOX_ENTRY, startScriptNodeFlags } from '../testing/start-script.js';
import type { StoreKind } from '../store/open-store.js';

const entry = join(repoRoot, SANDBOX_ENTRY);

/** Both test merchants of the in-process test sandbox, as SANDBOX_MERCHANTS gives them to a started one. */
export const MERCHANTS_ENV = JSON.stringify(
  [TEST_MERCHANTS.a, TEST_MERCHANTS.b].map((merchant) => ({
    id: merchant.id,
    owner_id: merchant.ownerId,
    keys: merchant.keys,
    callback_tokens: merchant.callbackTokens,
  })),
);

/** The four scopes (two merchants, two modes) by the key that reaches each. */
export const SCOPES: readonly TestKeyName[] = ['aTest', 'aLive', 'bTest', 'bLive'];

export interface SandboxProcessOptions {
  /** A directory the caller owns; by default a temporary one, removed by `remove()`. */
  dataDir?: string;
  store?: StoreKind;
  /** More environment (SANDBOX_CALLBACK_URL, TLS_CERT...). */
  env?: Record<string, string>;
  /** Extra node flags (a larger heap for a large journal). */
  nodeFlags?: string[];
  /** Default 90 s: a first start may build the docs. */
  startTimeoutMs?: number;
}

export interface SandboxProcess {
  url: string;
  port: number;
  pid: number;
  dataDir: string;
  /** Everything the process printed so far, stdout and stderr. */
  output(): string;
  /** Milliseconds from spawn to the start-up banner. */
  startMs: number;
  /** Resolves with the exit code (null after a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** Peak resident memory of the process so far (VmHWM), in bytes; undefined once it has ended. */
  peakRssBytes(): number | undefined;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean stop), resolved with the exit code; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
  /** Ends the process if it still runs and removes the data directory if the suite made it. */
  remove(): Promise<void>;
}

/** The sandbox's start failed: it exited, or printed no banner in time. */
export class StartFailed extends Error {
  constructor(
    message: string,
    readonly output: string,
    readonly exitCode: number | null,
  ) {
    super(`${message}\n${output}`);
  }
}

export async function startSandboxProcess(options: SandboxProcessOptions = {}): Promise<SandboxProcess> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sandbox-reliability-'));
  // Only what the sandbox needs: a developer's own SANDBOX_* variables must not leak in.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    STORE: options.store ?? 'journal',
    SANDBOX_MERCHANTS: MERCHANTS_ENV,
    CALLBACK_RETRY_DELAY_MS: '200',
    ...options.env,
  };
  const started = performance.now();
  // Node itself with tsx as a loader (not the tsx wrapper): a signal then reaches the sandbox, not a wrapper.
  const child: ChildProcess = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), ...startScriptNodeFlags(repoRoot), entry],
    {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let running = true;
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running = false;
      resolve(code);
    }),
  );
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new StartFailed(`the sandbox printed no banner within ${timeoutMs} ms`, output, null));
    }, timeoutMs);
    const look = (): void => {
      const found = /Ctrl-C stops it/.test(output) && /listening on (\S+)/.exec(output);
      if (!found) return;
      clearTimeout(timer);
      resolve(found[1]!);
    };
    child.stdout?.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new StartFailed(`the sandbox exited with ${String(code)} before it listened`, output, code));
    });
  }).catch(async (error: unknown) => {
    // A start that failed leaves nothing behind: no process, no directory the suite made.
    await exited;
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const startMs = performance.now() - started;
  const pid = child.pid!;
  const kill = async (): Promise<void> => {
    if (running) child.kill('SIGKILL');
    await exited;
  };
  return {
    url,
    port: Number(new URL(url).port),
    pid,
    dataDir,
    startMs,
    output: () => output,
    exited,
    peakRssBytes: () => {
      try {
        const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        return kib === undefined ? undefined : Number(kib) * 1024;
      } catch {
        return undefined;
      }
    },
    kill,
    stop: async (graceMs = 30_000) => {
      if (!running) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    remove: async () => {
      await kill();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A throwaway self-signed certificate for 127.0.0.1 in `dir` (openssl is part of the base system, as for sandbox/server.test.ts). */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  return { cert, key };
}
