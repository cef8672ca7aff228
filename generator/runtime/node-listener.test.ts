import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withNativeHandler, type NativeRequest } from './native-request.js';
import { createNodeServer, toNodeListener, type FetchHandler } from './node-listener.js';
import { readBodyText } from './request-body.js';

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
      Response.json(
        { method: request.method, url: request.url, key: request.headers.get('x-key'), body: await request.text() },
        { status: 201, headers: { 'x-answer': 'yes' } },
      ),
    );
    const response = await fetch(`${base}/things/1?q=a%20b`, {
      method: 'POST',
      headers: { 'X-Key': 'k' },
      body: '{"a":1}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-answer')).toBe('yes');
    expect(await response.json()).toEqual({
      method: 'POST',
      url: 'http://payments.test/things/1?q=a%20b',
      key: 'k',
      body: '{"a":1}',
    });
  });

  it('gives GET requests no body', async () => {
    const base = await serve(async (request) => Response.json({ hasBody: request.body !== null }));
    expect(await (await fetch(`${base}/x`)).json()).toEqual({ hasBody: false });
  });

  it('answers a generic JSON 500 when the handler throws, and reports the error', async () => {
    const reported: unknown[] = [];
    const base = await serve(
      async () => {
        throw new Error('database password is hunter2');
      },
      (error) => reported.push(error),
    );
    const response = await fetch(`${base}/x`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error_code: 'SERVER_ERROR' });
    expect(text).not.toContain('hunter2');
    expect(reported).toHaveLength(1);
  });
});

describe('toNodeListener with a native entry', () => {
  /** A handler whose fetch entry must never run: the listener is to use the native one. */
  function nativeOnly(
    native: (request: NativeRequest) => Promise<{ status: number; headers: Record<string, string>; body?: string }>,
  ): FetchHandler {
    return withNativeHandler(async () => {
      throw new Error('the fetch entry was used');
    }, native);
  }

  it("builds the native request from Node's message: method, path, query, joined repeated headers and body", async () => {
    const base = await serve(
      nativeOnly(async (request) => {
        const body = await request.readBody(1024);
        return {
          status: 201,
          headers: { 'content-type': 'application/json', 'x-answer': 'native' },
          body: JSON.stringify({
            method: request.method,
            pathname: request.pathname,
            search: request.search,
            accept: request.header('accept'),
            tag: request.header('x-tag'),
            body,
          }),
        };
      }),
    );
    const response = await fetch(`${base}/callback_virtual_account_payments/payment_id=p%201?a=1&b=2`, {
      method: 'POST',
      headers: [
        ['X-Tag', 'one'],
        ['X-Tag', 'two'],
        ['accept', 'application/json'],
      ],
      body: '{"a":1}',
    });
    expect([response.status, response.headers.get('x-answer'), response.headers.get('content-length')]).toEqual([
      201,
      'native',
      String((await response.clone().text()).length),
    ]);
    expect(await response.json()).toEqual({
      method: 'POST',
      pathname: '/callback_virtual_account_payments/payment_id=p%201',
      search: 'a=1&b=2',
      accept: 'application/json',
      tag: 'one, two',
      body: { kind: 'text', text: '{"a":1}' },
    });
  });

  it('gives a request without a query an empty search, and refuses a body over the limit unread', async () => {
    const base = await serve(
      nativeOnly(async (request) => ({
        status: 200,
        headers: {},
        body: JSON.stringify({ search: request.search, body: await request.readBody(4) }),
      })),
    );
    const response = await fetch(`${base}/balance`, { method: 'POST', body: 'longer than four bytes' });
    expect(await response.json()).toEqual({ search: '', body: { kind: 'too-large' } });
  });

  it('reads the body of a GET that declares one (fetch cannot send it; a raw HTTP client can), and none otherwise', async () => {
    const base = await serve(
      nativeOnly(async (request) => ({ status: 200, headers: {}, body: JSON.stringify(await request.readBody(1024)) })),
    );
    const rawGet = (headers: Record<string, string>, body?: string) =>
      new Promise<unknown>((resolve, reject) => {
        const outgoing = httpRequest(`${base}/disbursements/d-1`, { method: 'GET', headers }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve(JSON.parse(text)));
        });
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    expect(await rawGet({ 'content-length': '8' }, 'not json')).toEqual({ kind: 'text', text: 'not json' });
    expect(await rawGet({})).toEqual({ kind: 'text', text: '' });
  });

  it('makes a fetch-standard Request on demand with the same method, URL, headers and body', async () => {
    const base = await serve(
      nativeOnly(async (request) => {
        const web = request.toRequest();
        return {
          status: 200,
          headers: {},
          body: JSON.stringify({
            method: web.method,
            url: web.url,
            key: web.headers.get('x-key'),
            body: await web.text(),
          }),
        };
      }),
    );
    const response = await fetch(`${base}/disbursements?external_id=e-1`, {
      method: 'PUT',
      headers: { 'x-key': 'k' },
      body: 'payload',
    });
    expect(await response.json()).toEqual({
      method: 'PUT',
      url: 'http://payments.test/disbursements?external_id=e-1',
      key: 'k',
      body: 'payload',
    });
  });

  it('answers a generic JSON 500 when the native handler throws', async () => {
    const base = await serve(
      nativeOnly(async () => {
        throw new Error('secret internals');
      }),
    );
    const response = await fetch(`${base}/x`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error_code: 'SERVER_ERROR' });
    expect(text).not.toContain('secret internals');
  });

  it('writes the answers made ready in one turn of the event loop together, at the end of that turn', async () => {
    const writes: string[] = [];
    const listener = toNodeListener(
      nativeOnly(async (request) => ({ status: 200, headers: {}, body: request.pathname })),
      { origin: 'http://payments.test' },
    );
    // Just what the listener touches of Node's request and response.
    const message = (url: string) =>
      ({ method: 'GET', url, headers: {}, complete: true }) as unknown as IncomingMessage;
    const out = () =>
      ({
        headersSent: false,
        writeHead: () => undefined,
        end: (body: string) => void writes.push(body),
      }) as unknown as ServerResponse;
    listener(message('/a'), out());
    listener(message('/b'), out());
    for (let i = 0; i < 10; i++) await Promise.resolve();
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['/a', '/b']);
  });

  it('answers 500 to a request whose answer cannot be written, and still writes the others of its batch', async () => {
    let arrived = 0;
    let release: () => void = () => undefined;
    const bothArrived = new Promise<void>((resolve) => (release = resolve));
    const errors: unknown[] = [];
    const base = await serve(
      nativeOnly(async (request) => {
        if (++arrived === 2) release();
        // Both answers are made in the same turn, so they are written in the same batch.
        await bothArrived;
        const headers: Record<string, string> = request.pathname === '/bad' ? { 'x-broken': 'line\nbreak' } : {};
        return { status: 200, headers, body: '{}' };
      }),
      (error) => errors.push(error),
    );
    const [bad, good] = await Promise.all([fetch(`${base}/bad`), fetch(`${base}/good`)]);
    expect(bad.status).toBe(500);
    expect(await bad.json()).toMatchObject({ error_code: 'SERVER_ERROR' });
    expect(good.status).toBe(200);
    expect(errors).toHaveLength(1);
  });
});

/** Writes `parts` to a raw connection (each after the previous was flushed) and reads until the server ends it or `waitMs` passes. */
function raw(
  port: number,
  parts: (string | Buffer)[],
  waitMs = 3_000,
): Promise<{ text: string; ended: boolean; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = (ended: boolean, error?: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ended, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', () => done(true));
    socket.on('error', (error) => done(text !== '', error.message));
    socket.on('connect', async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        await new Promise<void>((written) => socket.write(part, () => written()));
      }
    });
  });
}

/** The status and JSON body of the first response in a raw answer. */
function firstResponse(text: string): { status: number; contentType: string | undefined; body: unknown } {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const contentType = /content-type: ([^\r]+)/i.exec(head)?.[1];
  const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? '0');
  return { status, contentType, body: JSON.parse(rest.join('\r\n\r\n').slice(0, length)) as unknown };
}

describe('hostile requests over the Node listener', () => {
  let port = 0;
  /** A native handler that reads bodies with a 1 KiB limit, as the router does with its own limit. */
  const native = withNativeHandler(
    async () => {
      throw new Error('the fetch entry was used');
    },
    async (request: NativeRequest) => {
      const body = await request.readBody(1024);
      const status = body.kind === 'too-large' ? 413 : 200;
      return {
        status,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          error_code: status === 413 ? 'REQUEST_ENTITY_TOO_LARGE' : 'OK',
          message: request.pathname,
        }),
      };
    },
  );
  const start = async (handler: FetchHandler): Promise<void> => {
    server = createNodeServer(handler, {
      origin: 'http://payments.test',
      server: { requestTimeout: 1_000, headersTimeout: 1_000, connectionsCheckingInterval: 100 },
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };

  it.each(['//', '//a:b@c/', '//x/balance'])('treats the target %s as a path (no 500)', async (target) => {
    await start(native);
    const got = firstResponse(
      (await raw(port, [`GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`])).text,
    );
    expect(got).toEqual({
      status: 200,
      contentType: 'application/json',
      body: { error_code: 'OK', message: target.replace('@', '%40') === target ? target : expect.any(String) },
    });
  });

  it('lets a client still sending a body nobody reads receive the whole of a large answer before the connection closes', async () => {
    const answer = 'x'.repeat(512 * 1024);
    await start(
      withNativeHandler(
        async () => new Response(null),
        async () => ({
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answer }),
        }),
      ),
    );
    const body = Buffer.alloc(256 * 1024, '[');
    const head = `GET /records HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n`;
    // The rest of the body follows a moment later, as from a slow client; closing on unread request bytes
    // makes the server's system reset the connection, and the client loses the answer still in flight.
    const received = await new Promise<{ bytes: number; error?: string }>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let bytes = 0;
      setTimeout(() => socket.writable && socket.write(body.subarray(64 * 1024)), 300);
      socket.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      socket.on('end', () => resolve({ bytes }));
      socket.on('error', (error) => resolve({ bytes, error: error.message }));
      socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(head), body.subarray(0, 64 * 1024)])));
    });
    expect(received.error).toBeUndefined();
    expect(received.bytes).toBeGreaterThan(answer.length);
  });

  it('answers a chunked body over the limit with its 413, then reads the next request on the connection', async () => {
    await start(native);
    const chunk = 'a'.repeat(4096);
    const chunked = Array.from({ length: 64 }, () => `${(4096).toString(16)}\r\n${chunk}\r\n`);
    const got = await raw(port, [
      'POST /big HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n',
      ...chunked,
      '0\r\n\r\n',
      'GET /next HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n',
    ]);
    expect(firstResponse(got.text)).toEqual({
      status: 413,
      contentType: 'application/json',
      body: { error_code: 'REQUEST_ENTITY_TOO_LARGE', message: '/big' },
    });
    expect(got.text).toContain('"message":"/next"');
  });

  it('answers a fetch-standard handler that stops reading an oversized chunked body, instead of dropping the connection', async () => {
    await start(async (request) => {
      const body = await readBodyText(request, 1024);
      return Response.json(
        { error_code: body.kind === 'too-large' ? 'REQUEST_ENTITY_TOO_LARGE' : 'OK', message: 'read' },
        { status: body.kind === 'too-large' ? 413 : 200 },
      );
    });
    const chunked = Array.from({ length: 64 }, () => `1000\r\n${'b'.repeat(4096)}\r\n`);
    const got = await raw(port, [
      'POST /big HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n',
      ...chunked,
      '0\r\n\r\n',
    ]);
    // A Response's body is written chunked, so only its status line and content are looked at.
    expect(got.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(got.text).toContain('"error_code":"REQUEST_ENTITY_TOO_LARGE"');
  });

  const refusals: [string, { parts: string[]; status: number; error_code: string }][] = [
    [
      'an unknown method',
      { parts: ['FOO /balance HTTP/1.1\r\nhost: x\r\n\r\n'], status: 400, error_code: 'INVALID_HTTP_REQUEST' },
    ],
    ['a broken request line', { parts: ['GET /a b c\r\n\r\n'], status: 400, error_code: 'INVALID_HTTP_REQUEST' }],
    [
      'headers over the limit',
      {
        parts: [`GET /balance HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`],
        status: 431,
        error_code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
      },
    ],
    [
      'CONNECT',
      {
        parts: ['CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n'],
        status: 400,
        error_code: 'INVALID_HTTP_REQUEST',
      },
    ],
    [
      'an Expect other than 100-continue',
      {
        parts: ['POST /x HTTP/1.1\r\nhost: x\r\nexpect: teapot\r\ncontent-length: 2\r\n\r\n{}'],
        status: 417,
        error_code: 'EXPECTATION_FAILED',
      },
    ],
    [
      'headers that never end',
      { parts: ['GET /balance HTTP/1.1\r\nhost: x\r\n'], status: 408, error_code: 'REQUEST_TIMEOUT' },
    ],
    [
      'a body that never comes',
      {
        parts: ['POST /x HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n{'],
        status: 408,
        error_code: 'REQUEST_TIMEOUT',
      },
    ],
  ];
  it.each(refusals)(
    'answers %s in JSON, then closes',
    async (_name, { parts, status, error_code }) => {
      await start(native);
      const got = await raw(port, parts, 4_000);
      expect(firstResponse(got.text)).toEqual({
        status,
        contentType: 'application/json',
        body: { error_code, message: expect.any(String) },
      });
      expect(got.ended).toBe(true);
    },
    10_000,
  );
});
