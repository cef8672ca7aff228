// The preflight, through the command: a target that is not the contract's API, or that refuses the key,
// ends the run before any check with exit 2 and a few lines saying what is wrong; the sandbox with its key
// is let through. The wrong targets are small servers on 127.0.0.1, each answering every request one way.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSandboxApp,
  createSite,
  defaultConfig,
  listen,
  type Listening,
} from '@payments-contract/sandbox/testing';
import { main, type CliIo } from './cli.js';
import { loadContract } from './contract.js';
import { preflight, preflightOperation } from './preflight.js';

const contract = loadContract();
const KEY = 'sk_test_preflight_key_0123456789';

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** A server that gives every request the same answer. */
async function answering(answer: Answer): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function io(): CliIo & { text: () => string } {
  let text = '';
  const stream = { write: (chunk: string) => (text += chunk), isTTY: false };
  return { stdout: stream, stderr: stream, env: { PAYMENTS_API_KEY: KEY }, text: () => text };
}

/** The command against a URL, as CI runs it: the full profile, so a target let through would run for long. */
async function run(url: string, env: Record<string, string> = {}): Promise<{ code: number; lines: string[] }> {
  const streams = io();
  const code = await main(['--base-url', url, '--profile', 'full', '--timeout-ms', '3000'], {
    ...streams,
    env: { ...streams.env, ...env },
  });
  return { code, lines: streams.text().trimEnd().split('\n') };
}

const html = (status: number, title: string): Answer => ({
  status,
  contentType: 'text/html; charset=utf-8',
  body: `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`,
});
const unauthorized = contract.response(preflightOperation(contract) ?? contract.model.operations[0]!, 401);

describe('a target that is not the API, or refuses the key, ends the run at once', () => {
  it.each<[string, Answer, RegExp]>([
    [
      'a refused key',
      {
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({
          error_code: unauthorized?.errorCodes[0] ?? 'INVALID_API_KEY',
          message: 'The API key is invalid.',
        }),
      },
      /^payments-conformance: the target refused the API key: 401 INVALID_API_KEY \(GET http:\/\/127.0.0.1:\d+\/\S+ \(\w+\)\)/,
    ],
    [
      'an HTML page (documentation, a login page)',
      html(200, 'Payments API reference'),
      /does not answer as the .+ does: GET http:\/\/127.0.0.1:\d+\/\S+ \(\w+\) without a key answered 200 text\/html \(a web page\), a body that is not JSON/,
    ],
    [
      "a proxy's 404 page",
      html(404, '404 Not Found'),
      /without a key answered 404 text\/html \(a web page\), a status the contract does not document for \w+/,
    ],
    [
      'a JSON 404 for everything',
      { status: 404, contentType: 'application/json', body: '{"error_code":"NOT_FOUND","message":"No route."}' },
      /without a key answered 404 NOT_FOUND, a status the contract does not document/,
    ],
    [
      "a 401 that is not the contract's error",
      { status: 401, contentType: 'application/json', body: '{"error":"unauthorized"}' },
      /without a key answered 401 application\/json, a body that is not the contract's 401 answer/,
    ],
  ])('%s: exit 2, in a line or two', async (_name, answer, message) => {
    const target = await answering(answer);
    try {
      const { code, lines } = await run(target.url);
      expect(code).toBe(2);
      expect(lines.length).toBeLessThanOrEqual(10);
      expect(lines[0]).toMatch(message);
    } finally {
      await target.close();
    }
  });
});

describe('against the sandbox', () => {
  let server: Listening;
  let close: () => Promise<void>;
  const config = defaultConfig({ dataDir: ':memory:', host: '127.0.0.1', port: 0 });
  const key = config.merchants[0]?.keys.test ?? '';

  beforeAll(async () => {
    const app = await createSandboxApp(config, { onError: () => undefined });
    await app.start();
    server = await listen(createSite({ service: app.service, control: app.control, observer: app.observer }), {
      host: '127.0.0.1',
      port: 0,
    });
    close = async () => {
      await server.close();
      await app.close();
    };
  }, 60_000);
  afterAll(async () => close?.());

  it('lets the run start with its key', async () => {
    expect(await preflight(contract, { baseUrl: server.url, apiKey: key, timeoutMs: 5_000 })).toBeUndefined();
  });

  it('names a key it does not know as refused', async () => {
    const problem = await preflight(contract, {
      baseUrl: server.url,
      apiKey: 'sk_test_not_a_key_of_this_sandbox',
      timeoutMs: 5_000,
    });
    expect(problem?.kind).toBe('refused');
    expect(problem?.message).toMatch(/^the target refused the API key: 401 INVALID_API_KEY/);
  });

  it('tells its documentation pages from the API', async () => {
    const { code, lines } = await run(`${server.url}/docs`, { PAYMENTS_API_KEY: key });
    expect(code).toBe(2);
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(lines[0]).toMatch(/does not answer as the .+ does/);
  });
});
