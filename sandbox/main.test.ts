// The entry point as `npm start` runs it: a process that prints where it is and its keys, serves the API, the
// docs and the contracts, refuses bad configuration with exit 2, and stops cleanly on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import {
  DEFAULT_LIVE_SECRET_KEY,
  DEFAULT_TEST_CALLBACK_TOKEN,
  DEFAULT_TEST_SECRET_KEY,
  defaultConfig,
} from './config.js';
import { describeSandbox } from './main.js';
import { repoRoot } from './testing/repo-root.js';

const entry = join(repoRoot, 'sandbox/main.ts');
// One process (node with tsx's loader), not the tsx wrapper: killing a wrapper would orphan the sandbox.
const node = (args: string[]): [string, string[]] => [process.execPath, ['--import', 'tsx', entry, ...args]];
// Only what the sandbox needs from the environment: a developer's own SANDBOX_* variables must not leak in.
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  ...extra,
});

/**
 * The sandbox's command line run to its end, its exit status and stderr. Not spawnSync: a test process blocked
 * for seconds cannot notice that the running sandbox closed an idle keep-alive connection, and the next
 * fetch was sent on it ("other side closed", seen at a load of 10).
 */
function runToEnd(
  args: string[],
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(...node(args), { cwd: repoRoot, env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe('npm start', () => {
  let child: ChildProcess;
  let output = '';
  let url = '';
  let exited: Promise<number | null>;
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-main-'));

  beforeAll(async () => {
    child = spawn(...node(['--port', '0', '--data-dir', dataDir]), {
      cwd: repoRoot,
      env: cleanEnv({ SANDBOX_CALLBACK_URL: 'http://127.0.0.1:9/callbacks' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not started:\n${output}`)), 60_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const found = /Ctrl-C stops it/.test(output) && /listening on (\S+)/.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      });
    });
  }, 90_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the base URL, the development keys, the callback token and the docs URL', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain(`test secret key:      ${DEFAULT_TEST_SECRET_KEY}`);
    expect(output).toContain(`live secret key:      ${DEFAULT_LIVE_SECRET_KEY}`);
    expect(output).toContain(DEFAULT_TEST_CALLBACK_TOKEN);
    expect(output).toContain(`${url}/docs`);
    expect(output).toContain('http://127.0.0.1:9/callbacks');
  });

  it('serves the API with the printed key', async () => {
    const response = await fetch(`${url}/balance`, {
      headers: { authorization: basicAuthorization({ username: DEFAULT_TEST_SECRET_KEY, password: '' }) },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const refused = await fetch(`${url}/balance`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error_code: 'INVALID_API_KEY' });
  });

  it('serves the Redoc docs of both contracts and the bundled contracts', async () => {
    const docs = await fetch(`${url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<title>Payments API</title>');
    const controlDocs = await fetch(`${url}/sandbox/docs`);
    expect(await controlDocs.text()).toContain('<title>Payments sandbox control API</title>');
    // Both pages import Redoc's library from beside them.
    const library = await fetch(`${url}/docs/redoc.js`);
    expect(library.status).toBe(200);
    expect(library.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await library.text()).toContain('export{RedocStandalone,hydrate,init}');
    const spec = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string };
    expect(spec.openapi).toMatch(/^3\.1/);
  });

  it('answers a GET of a disbursement carrying a body that is not JSON with 400 INVALID_JSON_FORMAT (decision get-disbursement-invalid-json)', async () => {
    const authorization = basicAuthorization({ username: DEFAULT_TEST_SECRET_KEY, password: '' });
    const rawGet = (body: string) =>
      new Promise<{ status: number; json: unknown }>((resolve, reject) => {
        const outgoing = httpRequest(
          `${url}/disbursements/5ed75086a883856178afc12f`,
          {
            method: 'GET',
            headers: {
              authorization,
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body)),
            },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) }));
          },
        );
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    expect(await rawGet('{"not": json')).toMatchObject({ status: 400, json: { error_code: 'INVALID_JSON_FORMAT' } });
    expect(await rawGet('{}')).toMatchObject({
      status: 404,
      json: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR' },
    });
  });

  it('refuses a second sandbox on the same DATA_DIR with exit 2 and the reason', async () => {
    const second = await runToEnd(['--port', '0', '--data-dir', dataDir]);
    expect(second.status).toBe(2);
    expect(second.stderr).toContain('is in use by another process');
    expect(second.stderr).toContain('--data-dir');
  });

  it('logs a line per request on stdout, with the request id it answered in x-request-id, and answers /health without a key', async () => {
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const id = health.headers.get('x-request-id');
    expect(id).toMatch(/^req_/);
    await expect.poll(() => output).toMatch(new RegExp(`GET /health  200  [\\d.]+ ms  ${id}`));
  });

  it('answers a foreign Host and a missing Host with a request id too, and logs them under it', async () => {
    /** One GET with `host` as its Host header (or none), giving the status and the x-request-id. */
    const get = (host: string | undefined): Promise<{ status: number; id: string | undefined }> =>
      new Promise((resolve, reject) => {
        const request = httpRequest(
          `${url}/balance`,
          { setHost: false, headers: host === undefined ? {} : { host } },
          (response) => {
            response.resume();
            const id = response.headers['x-request-id'];
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, id: typeof id === 'string' ? id : undefined }),
            );
          },
        );
        request.on('error', reject);
        request.end();
      });
    for (const [host, status] of [
      ['attacker.example', 421],
      [undefined, 400],
    ] as const) {
      const answer = await get(host);
      expect([host, answer.status, answer.id]).toEqual([host, status, expect.stringMatching(/^req_/)]);
      await expect.poll(() => output).toMatch(new RegExp(`GET /balance  ${status} [A-Z_]+  [\\d.]+ ms  ${answer.id}`));
    }
  });

  it('refuses to start another kind of store in a DATA_DIR that holds one, naming the option that opens it', async () => {
    const other = await runToEnd(['--port', '0', '--data-dir', dataDir, '--store', 'sqlite']);
    expect(other.status).toBe(2);
    expect(other.stderr).toContain('holds a journal store');
    expect(other.stderr).toContain('--store journal');
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('SIGTERM: stopping the sandbox');
  });
});

describe('LOG_FORMAT=json', () => {
  it('writes only JSON lines on stdout (the banner goes to stderr), one per request', async () => {
    const child = spawn(...node(['--port', '0', '--data-dir', ':memory:']), {
      cwd: repoRoot,
      env: cleanEnv({ LOG_FORMAT: 'json' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await expect
        .poll(() => /listening on (\S+) /.exec(stdout)?.[1], { timeout: 60_000, interval: 100 })
        .toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const url = /listening on (\S+) /.exec(stdout)![1]!;
      const answer = await fetch(`${url}/balance`, {
        headers: { authorization: basicAuthorization({ username: DEFAULT_TEST_SECRET_KEY, password: '' }) },
      });
      expect(answer.status).toBe(200);
      await expect.poll(() => stdout).toContain('"path":"/balance"');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const lines = stdout.split('\n').filter((line) => line !== '');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.find((line) => line.kind === 'request')).toMatchObject({
      level: 'info',
      method: 'GET',
      path: '/balance',
      status: 200,
      error_code: null,
    });
    expect(stderr).toContain('test secret key:');
  }, 90_000);
});

describe('bad configuration', () => {
  it.each([
    ['PORT', { PORT: 'abc' }, /PORT must be a whole number/],
    ['SANDBOX_MERCHANTS', { SANDBOX_MERCHANTS: '[{' }, /SANDBOX_MERCHANTS is not JSON/],
  ])('exits 2 with the reason for a bad %s', async (_name, env, message) => {
    const result = await runToEnd([], cleanEnv(env));
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('--help');
  });
});

describe('describeSandbox', () => {
  it('masks keys the operator chose and prints the built-in development keys', () => {
    const chosen = defaultConfig({
      merchants: [
        {
          ...defaultConfig().merchants[0]!,
          keys: { test: 'sk_test_operator_secret_1234', live: DEFAULT_LIVE_SECRET_KEY },
        },
      ],
      given: new Set(['secret-key']),
    });
    const text = describeSandbox('http://127.0.0.1:3000', chosen);
    expect(text).not.toContain('sk_test_operator_secret_1234');
    expect(text).toContain('sk_test_…1234 (as configured)');
    expect(text).toContain(DEFAULT_LIVE_SECRET_KEY);
  });

  it('without a callback URL, says how to set one or to bring the callbacks to a receiver with listen', () => {
    const line = describeSandbox('http://127.0.0.1:3000', defaultConfig({ callbackUrl: null }))
      .split('\n')
      .find((text) => text.includes('callback URL:'));
    expect(line).toContain('SANDBOX_CALLBACK_URL');
    expect(line).toContain('payments-sandbox listen --forward-to URL');
  });
});
