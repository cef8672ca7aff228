// Which Host names the sandbox answers: its own (loopback, HOST, PUBLIC_HOST) on its port, and no other, so
// a page whose name is rebound to 127.0.0.1 cannot drive it; a request without Host is refused in JSON.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostChecker } from './host-names.js';
import { createSite, listen, type Listening } from './server.js';

describe('hostChecker', () => {
  const check = hostChecker({ listenHost: '0.0.0.0', publicHosts: ['sandbox.internal', 'api.example:8443'] });
  it.each([
    ['127.0.0.1:3000', '1.1', undefined],
    ['localhost:3000', '1.1', undefined],
    ['LOCALHOST', '1.1', undefined],
    ['[::1]:3000', '1.1', undefined],
    ['sandbox.internal:9999', '1.1', undefined],
    ['api.example:8443', '1.1', undefined],
    ['api.example:8444', '1.1', 421],
    ['localhost:3001', '1.1', 421],
    ['attacker.example:3000', '1.1', 421],
    ['0.0.0.0:3000', '1.1', 421],
    ['127.0.0.1.attacker.example', '1.1', 421],
    ['a b', '1.1', 421],
    [undefined, '1.1', 400],
    ['', '1.1', 400],
    [undefined, '1.0', undefined],
  ] as const)('Host %j over HTTP/%s: %s', (host, version, status) => {
    expect(check(host, 3000, version)?.status).toBe(status);
  });
  it('answers to the address it listens on when that is not a wildcard', () => {
    expect(
      hostChecker({ listenHost: '192.168.1.5', publicHosts: [] })('192.168.1.5:3000', 3000, '1.1'),
    ).toBeUndefined();
    expect(hostChecker({ listenHost: '::1', publicHosts: [] })('[::1]:3000', 3000, '1.1')).toBeUndefined();
  });
  it('judges a Host it answered before again on another port', () => {
    const fresh = hostChecker({ listenHost: '127.0.0.1', publicHosts: [] });
    for (let i = 0; i < 2; i++) expect(fresh('127.0.0.1:3000', 3000, '1.1')).toBeUndefined();
    expect(fresh('127.0.0.1:3000', 3001, '1.1')?.status).toBe(421);
    expect(fresh('127.0.0.1:3001', 3001, '1.1')).toBeUndefined();
    expect(fresh('127.0.0.1:3001', 3000, '1.1')?.status).toBe(421);
  });
});

describe('the Host header over the network', () => {
  let server: Listening;
  const site = createSite({
    service: async () => new Response('{"served":true}', { headers: { 'content-type': 'application/json' } }),
    control: async () => new Response('{"reset":true}', { headers: { 'content-type': 'application/json' } }),
  });
  beforeAll(async () => {
    server = await listen(site, { host: '127.0.0.1', port: 0, publicHosts: ['sandbox.internal'] });
  });
  afterAll(() => server?.close());

  /** Sends a raw request head (the connection closing after it) and gives the status, head and JSON body. */
  const send = (head: string): Promise<{ status: number; headers: string; body: unknown }> =>
    new Promise((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write(head.replace(/\r\n\r\n$/, '\r\nConnection: close\r\n\r\n')),
      );
      let raw = '';
      socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      socket.on('end', () => {
        const end = raw.indexOf('\r\n\r\n');
        const body = raw.slice(end + 4);
        // A body of unknown length comes chunked: one chunk here, its size line before it.
        const text = /^[0-9a-f]+\r\n/i.test(body) ? body.split('\r\n')[1]! : body;
        resolve({ status: Number(raw.slice(9, 12)), headers: raw.slice(0, end), body: JSON.parse(text) });
      });
      socket.on('error', reject);
    });

  it('refuses a page rebound to 127.0.0.1 (a foreign Host) 421 in JSON, before any router sees it', async () => {
    const answer = await send('POST /sandbox/reset HTTP/1.1\r\nHost: attacker.example\r\nContent-Length: 0\r\n\r\n');
    expect(answer.status).toBe(421);
    expect(answer.body).toEqual({ error_code: 'MISDIRECTED_REQUEST', message: expect.stringContaining('PUBLIC_HOST') });
    expect(answer.headers).toMatch(/x-content-type-options: nosniff/i);
    // Every answer names its request, refusals included (the control contract's promise).
    expect(answer.headers).toMatch(/^x-request-id: req_\w+$/im);
  });

  it('answers a request without Host 400 in JSON, not with an empty body', async () => {
    const answer = await send('GET /balance HTTP/1.1\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error_code: 'INVALID_HTTP_REQUEST' });
    expect(answer.headers).toMatch(/^x-request-id: req_\w+$/im);
  });

  it('serves its own names and the public host', async () => {
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`, 'sandbox.internal']) {
      const answer = await send(`GET /balance HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      expect([host, answer.status, answer.body]).toEqual([host, 200, { served: true }]);
    }
    expect((await send('GET /balance HTTP/1.0\r\n\r\n')).status).toBe(200);
  });
});
