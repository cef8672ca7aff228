import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { withNativeHandler } from '@payments-contract/server/runtime/native-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSite,
  DOCS,
  DOCS_LIBRARY,
  httpsRequiredResponse,
  listen,
  readDocs,
  routeByFirstByte,
  type Listening,
} from './server.js';

const answer = (who: string) => async (request: Request) =>
  new Response(JSON.stringify({ who, path: new URL(request.url).pathname }), {
    headers: { 'content-type': 'application/json' },
  });
const site = createSite({
  service: answer('service'),
  control: answer('control'),
  docs: { service: '<html>service docs</html>' },
});
const get = (path: string, method = 'GET') => site(new Request(`http://sandbox.test${path}`, { method }));

describe('createSite', () => {
  it('serves the bundled contracts as JSON', async () => {
    for (const [path, file] of [
      ['/openapi.json', DOCS.service.spec],
      ['/sandbox/openapi.json', DOCS.control.spec],
    ] as const) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toEqual(JSON.parse(readFileSync(file, 'utf8')));
    }
  });

  it('serves the docs page, with or without a trailing slash', async () => {
    for (const path of ['/docs', '/docs/']) {
      const response = await get(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).toBe('<html>service docs</html>');
    }
  });

  it("serves Redoc's library, which both pages load, as JavaScript, and answers 404 when it was not built", async () => {
    const withLibrary = createSite({
      service: answer('service'),
      control: answer('control'),
      docs: { library: 'export{RedocStandalone,hydrate,init};' },
    });
    const response = await withLibrary(new Request(`http://sandbox.test${DOCS_LIBRARY.url}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await response.text()).toBe('export{RedocStandalone,hydrate,init};');
    expect((await get(DOCS_LIBRARY.url)).status).toBe(404);
  });

  it('answers a page that was not built, and other methods on the pages, in JSON', async () => {
    const missing = await get('/sandbox/docs');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error_code: 'NOT_FOUND' });
    const post = await get('/openapi.json', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toMatchObject({ error_code: 'METHOD_NOT_ALLOWED' });
  });

  it('hands /sandbox and below to the control router, everything else to the service', async () => {
    const cases: [string, string][] = [
      ['/sandbox', 'control'],
      ['/sandbox/', 'control'],
      ['/sandbox/clock/advance', 'control'],
      ['/sandboxes', 'service'],
      ['/balance', 'service'],
      ['/', 'service'],
    ];
    for (const [path, who] of cases) expect(await (await get(path)).json(), path).toMatchObject({ who });
  });
});

describe('readDocs', () => {
  it('reads the Redoc page the contract package ships for each contract', () => {
    for (const which of ['service', 'control'] as const) expect(readDocs(DOCS[which])).toMatch(/<html/i);
  });

  it('gives undefined for a page that is missing', () => {
    expect(readDocs({ spec: DOCS.control.spec, page: '/nonexistent/index.html' })).toBeUndefined();
  });
});

describe('listen over HTTPS', () => {
  let server: Listening;
  let cert: string;
  let key: string;

  beforeAll(async () => {
    // A throwaway self-signed certificate for 127.0.0.1 (openssl is part of the base system the tests run on).
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'pipe' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
    server = await listen(site, { host: '127.0.0.1', port: 0, tls: { cert, key } });
  });
  afterAll(() => server?.close());

  it('serves HTTPS', async () => {
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    const body = await new Promise<string>((resolve, reject) => {
      const request = httpsRequest(`${server.url}/balance`, { ca: cert }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      });
      request.on('error', reject);
      request.end();
    });
    expect(JSON.parse(body)).toEqual({ who: 'service', path: '/balance' });
  });

  it('answers plain HTTP on the same port with a JSON error, then closes', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.write('GET /balance HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body!)).toEqual({
      error_code: 'HTTPS_REQUIRED',
      message: expect.stringContaining(`https://127.0.0.1:${server.port}/`),
    });
  });

  it('gives that refusal a request id from the `refused` hook (which logs it) and the security headers', async () => {
    const refused: unknown[] = [];
    const logged = await listen(site, {
      host: '127.0.0.1',
      port: 0,
      tls: { cert, key },
      refused: (request) => (refused.push(request), 'req_refused1'),
    });
    try {
      const response = await fetch(`http://127.0.0.1:${logged.port}/balance?x=1`);
      expect(response.status).toBe(400);
      expect(response.headers.get('x-request-id')).toBe('req_refused1');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(refused).toEqual([{ method: 'GET', path: '/balance?x=1', status: 400, error_code: 'HTTPS_REQUIRED' }]);
    } finally {
      await logged.close();
    }
  });

  it('answers fetch over plain HTTP with that JSON error', async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/balance`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error_code: 'HTTPS_REQUIRED' });
  });
});

describe('routeByFirstByte', () => {
  const refusal = httpsRequiredResponse('https://127.0.0.1/');

  /** A front routing by first byte with a 300 ms timeout; `send` talks to it and gives what came back. */
  async function withFront(send: (port: number) => Promise<string>): Promise<{ raw: string; ms: number }> {
    const sockets: Socket[] = [];
    const front = createNetServer((socket) => {
      sockets.push(socket);
      routeByFirstByte(socket, () => socket.destroy(), refusal, 300);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    try {
      const raw = await send((front.address() as AddressInfo).port);
      return { raw, ms: Date.now() - started };
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    }
  }

  /** Connects, lets `talk` write, and reads until the server closes or 3 s pass. */
  const exchange = (port: number, talk: (socket: Socket) => () => void): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const stopTalking = talk(socket);
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => {
        stopTalking();
        resolve(text);
      });
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 3_000);
    });

  it('answers a plain-HTTP request cut off before the end of its head once the timeout passes, instead of holding it open', async () => {
    const { raw, ms } = await withFront((port) =>
      exchange(port, (socket) => {
        socket.write('GET /balance HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        return () => undefined;
      }),
    );
    expect(raw).toBe(refusal);
    expect(ms).toBeLessThan(2_000);
  });

  it('answers a head trickled a byte at a time at the deadline from its first byte, however often bytes arrive', async () => {
    const { raw, ms } = await withFront((port) =>
      exchange(port, (socket) => {
        // One byte every 50 ms: the connection is never idle for the 300 ms an idle timeout would wait for.
        const head = `GET /balance HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(200)}`;
        let sent = 0;
        const trickle = setInterval(() => {
          if (sent < head.length && !socket.destroyed) socket.write(head[sent++]!);
        }, 50);
        return () => clearInterval(trickle);
      }),
    );
    expect(raw).toBe(refusal);
    expect(ms).toBeLessThan(2_000);
  });
});

describe('listen over HTTP', () => {
  it('serves the site and closes with keep-alive connections open', async () => {
    const server = await listen(site, { host: '127.0.0.1', port: 0 });
    const response = await fetch(`${server.url}/sandbox/clock`);
    expect(await response.json()).toEqual({ who: 'control', path: '/sandbox/clock' });
    const started = Date.now();
    await server.close();
    // An idle keep-alive connection left open would hold the close for the 5 s keep-alive timeout.
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('the docs pages over the network', () => {
  const page = readDocs(DOCS.service);
  // Routers with a native entry too, so the Node listener takes the native path as it does for the sandbox.
  const nativeAnswer = (who: string) =>
    withNativeHandler(answer(who), async (request) => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ who, path: request.pathname }),
    }));
  const sites = {
    fetch: createSite({ service: answer('service'), control: answer('control'), docs: { service: page } }),
    native: createSite({ service: nativeAnswer('service'), control: nativeAnswer('control'), docs: { service: page } }),
  };
  const decode: Record<string, (bytes: Buffer) => Buffer> = {
    br: brotliDecompressSync,
    gzip: gunzipSync,
    none: (bytes) => bytes,
  };

  /** GET /docs with this Accept-Encoding, as raw bytes (fetch would decode them itself). */
  const getDocs = (url: string, acceptEncoding: string | undefined) =>
    new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      httpGet(
        `${url}/docs`,
        { headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
        },
      ).on('error', reject);
    });

  it.each(['fetch', 'native'] as const)(
    'answers the built page compressed as the client accepts it (%s path)',
    async (which) => {
      expect(page, 'the docs are built (npm run docs)').toBeDefined();
      const server = await listen(sites[which], { host: '127.0.0.1', port: 0 });
      try {
        for (const [acceptEncoding, coding] of [
          ['gzip, deflate, br', 'br'],
          ['gzip', 'gzip'],
          [undefined, 'none'],
        ] as const) {
          const { headers, body } = await getDocs(server.url, acceptEncoding);
          expect(headers['content-encoding'] ?? 'none', String(acceptEncoding)).toBe(coding);
          expect(headers.vary).toBe('accept-encoding');
          expect(Number(headers['content-length'])).toBe(body.length);
          expect(decode[coding]!(body).toString('utf8')).toBe(page);
          // The page is megabytes of HTML; compressed it is a third of that or less.
          if (coding !== 'none') expect(body.length).toBeLessThan(Buffer.byteLength(page!) / 3);
        }
      } finally {
        await server.close();
      }
    },
  );
});
