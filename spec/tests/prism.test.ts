// The Prism mock serves the bundled contract as it is: a valid key gets the documented example, a missing
// key gets the contract's own 401 body (not Prism's problem+json).
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, type RunningProcess } from './processes.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const basic = (key: string): string => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
let prism: RunningProcess;
let baseUrl: string;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  prism = await startProcess(
    `${repoRoot}/node_modules/.bin/prism`,
    ['mock', '--host', '127.0.0.1', '--port', String(port), 'generated/contract/openapi.json'],
    /Prism is listening/,
    { cwd: repoRoot, timeoutMs: 60_000 },
  );
}, 90_000);

afterAll(async () => {
  await prism?.stop();
});

describe('Prism mock of the bundled contract', () => {
  it('starts without errors', () => {
    // Judged by each log line's level, not by any word "error": Prism prints every route with example
    // values for its parameters, and a random word there can be "error" (seen: GET /disbursements/error).
    const levels = prism
      .output()
      .split('\n')
      .flatMap((line) => /\[\w+\]\s+\S+\s+(\w+)/.exec(line)?.slice(1) ?? []);
    expect(levels).toContain('info');
    expect(levels.filter((level) => /^(error|fatal|warning)$/i.test(level))).toEqual([]);
    // Nor a thrown error's stack.
    expect(prism.output()).not.toMatch(/^\s*\w*Error:/m);
  });

  it('answers a GET with a valid key with 200 and a documented example', async () => {
    const response = await fetch(`${baseUrl}/balance`, { headers: { authorization: basic('sk_test_mock') } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { balance: unknown };
    expect(typeof body.balance).toBe('number');
  });

  it('answers a request without a key with 401 INVALID_API_KEY from the contract', async () => {
    const response = await fetch(`${baseUrl}/balance`);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { error_code: string; message: string };
    expect(body.error_code).toBe('INVALID_API_KEY');
    expect(body.message.length).toBeGreaterThan(0);
  });
});
