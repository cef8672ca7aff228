import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { toNodeListener, type FetchHandler } from './node-listener.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: FetchHandler, onError?: (error: unknown) => void): Promise<string> {
  server = createServer(toNodeListener(handler, { origin: 'http://payments.test', ...(onError ? { onError } : {}) }));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('toNodeListener', () => {
  it('hands the handler the method, path, query, headers and body, and writes its response back', async () => {
    const base = await serve(async (request) =>
      Response.json({ method: request.method, url: request.url, key: request.headers.get('x-key'), body: await request.text() }, { status: 201, headers: { 'x-answer': 'yes' } }),
    );
    const response = await fetch(`${base}/things/1?q=a%20b`, { method: 'POST', headers: { 'X-Key': 'k' }, body: '{"a":1}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-answer')).toBe('yes');
    expect(await response.json()).toEqual({ method: 'POST', url: 'http://payments.test/things/1?q=a%20b', key: 'k', body: '{"a":1}' });
  });

  it('gives GET requests no body', async () => {
    const base = await serve(async (request) => Response.json({ hasBody: request.body !== null }));
    expect(await (await fetch(`${base}/x`)).json()).toEqual({ hasBody: false });
  });

  it('answers a generic JSON 500 when the handler throws, and reports the error', async () => {
    const reported: unknown[] = [];
    const base = await serve(async () => {
      throw new Error('database password is hunter2');
    }, (error) => reported.push(error));
    const response = await fetch(`${base}/x`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error_code: 'SERVER_ERROR' });
    expect(text).not.toContain('hunter2');
    expect(reported).toHaveLength(1);
  });
});
