// The real thing: Prism behind the generated router, started as the library does (startMock) and as `npm run mock`
// does (main.ts, stopped by a signal, or killed outright). Prism must be gone afterwards in every case.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers } from '../testing/answers.js';
import { isRunning, killRunning, processTree } from '../testing/processes.js';
import { loadContract } from '../contract.js';
import { freePort } from './prism.js';
import { startMock, type RunningMock } from './serve.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
// As `npm run mock` runs it: one node process, no tsx wrapper between the signal and the mock.
const mockMain = (args: string[]) =>
  spawn(process.execPath, ['--import', 'tsx', 'conformance/mock/main.ts', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
const contract = loadContract();
const basic = `Basic ${Buffer.from('sk_test_mock:').toString('base64')}`;
const formOperation = contract.model.operations.find(
  (o) => o.malformedBodyError && o.body?.mediaTypes.includes('application/x-www-form-urlencoded'),
);

let mock: RunningMock;

beforeAll(async () => {
  mock = await startMock();
}, 60_000);

afterAll(async () => {
  await mock?.stop();
});

describe('startMock', () => {
  it('serves the contract: a valid key gets the example, no key the documented 401', async () => {
    const ok = await fetch(`${mock.url}/balance`, { headers: { authorization: basic } });
    expect(ok.status).toBe(200);
    const denied = await fetch(`${mock.url}/balance`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ error_code: 'INVALID_API_KEY' });
  });

  it("answers malformed JSON with the operation's malformed-body error, and survives a broken form body", async () => {
    if (!formOperation?.malformedBodyError)
      throw new Error('the contract has no form operation with a malformed-body error');
    const path = formOperation.path;
    const json = await fetch(`${mock.url}${path}`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: '{bad',
    });
    expect(json.status).toBe(formOperation.malformedBodyError.status);
    expect(await json.json()).toMatchObject({ error_code: formOperation.malformedBodyError.error_code });
    const form = await fetch(`${mock.url}${path}`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: '%%%',
    });
    expect(form.status).toBe(formOperation.malformedBodyError.status);
    // Prism would have died on that body; it is still serving.
    expect((await fetch(`${mock.url}/balance`, { headers: { authorization: basic } })).status).toBe(200);
    // Without a key, the 401 comes first, as in the contract's order (credentials before body).
    const anonymous = await fetch(`${mock.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{bad',
    });
    expect(anonymous.status).toBe(401);
  });

  it('answers an unknown route with 404 NOT_FOUND as JSON', async () => {
    const response = await fetch(`${mock.url}/no/such/route`, { headers: { authorization: basic } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error_code: 'NOT_FOUND' });
  });

  it('stops Prism with itself', async () => {
    const own = await startMock();
    expect(await answers(own.prismUrl)).toBe(true);
    await own.stop();
    await own.exited;
    expect(await answers(own.prismUrl)).toBe(false);
    expect(await answers(own.url)).toBe(false);
  }, 60_000);
});

describe('npm run mock (main.ts)', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`listens on --host/--port and stops Prism on ${signal}`, async () => {
      const port = await freePort();
      const child = mockMain(['--host', '127.0.0.1', '--port', String(port)]);
      let output = '';
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const prismUrl = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`not ready:\n${output}`)), 45_000);
          const onData = (chunk: Buffer): void => {
            output += chunk.toString('utf8');
            const ready = /listening on (\S+) \(Prism on (\S+) /.exec(output);
            if (ready?.[2]) {
              clearTimeout(timer);
              resolve(ready[2]);
            }
          };
          child.stdout.on('data', onData);
          child.stderr.on('data', onData);
        });
        expect((await fetch(`http://127.0.0.1:${port}/balance`, { headers: { authorization: basic } })).status).toBe(
          200,
        );
        child.kill(signal);
        expect(await exited).toBe(0);
        expect(await answers(prismUrl)).toBe(false);
        expect(output).toMatch(/GET \/balance -> 200/);
      } finally {
        child.kill('SIGKILL');
      }
    }, 60_000);
  }

  it('takes Prism with it when it is killed outright (SIGKILL), with no chance to stop it', async () => {
    const child = mockMain(['--port', '0']);
    let output = '';
    try {
      const prismUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready:\n${output}`)), 45_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString('utf8');
          const ready = /\(Prism on (\S+) /.exec(output);
          if (ready?.[1]) {
            clearTimeout(timer);
            resolve(ready[1]);
          }
        });
      });
      const prism = processTree(child.pid!).filter((process) => process.command.includes('prism-cli'));
      expect(prism).toHaveLength(1);
      try {
        child.kill('SIGKILL');
        const deadline = Date.now() + 10_000;
        // Polled, not asked once: with other test files running beside this one, the kernel may take a moment after
        // the process is gone before the port stops accepting; a port that still answers at the deadline fails.
        while ((prism.some(isRunning) || (await answers(prismUrl))) && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(prism.filter(isRunning)).toEqual([]);
        expect(await answers(prismUrl)).toBe(false);
      } finally {
        killRunning(prism);
      }
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('refuses a bad --port with exit 2', async () => {
    const child = mockMain(['--port', 'many']);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(2);
    expect(stderr).toBe(
      'mock: --port must be a port number from 0 to 65535, not "many"\nRun with --help for every option.\n',
    );
  }, 30_000);
});
