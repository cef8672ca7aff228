// The request deadlines over HTTPS, as over plain HTTP: a TLS connection that stalls inside its handshake,
// says nothing after it, or sends its request head cut off or a byte at a time is ended at the configured
// deadline (a JSON 408 once the handshake is done), not held open. Short deadlines, so nothing waits 90 s.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSite, listen, type Listening } from './server.js';

const deadlines = { handshakeMs: 400, headersMs: 400, requestMs: 800 };
/** Node checks every half head deadline here (deadlines.ts): an end may come that much late, plus some room. */
const LATE_MS = 200 + 600;

/** Reads the whole body first, as the routers do, so a dripped body is still arriving at the deadline. */
const answer = async (request: Request): Promise<Response> =>
  new Response(JSON.stringify({ read: (await request.text()).length }), {
    headers: { 'content-type': 'application/json' },
  });
const site = createSite({ service: answer, control: answer });

interface Ended {
  raw: string;
  ms: number;
}

/** Opens a connection, lets `talk` write on it, and reads until the server closes it (or 5 s pass). */
function converse(open: () => Duplex, talk: (socket: Duplex) => () => void): Promise<Ended> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = open();
    let raw = '';
    let stop = (): void => undefined;
    const give = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(give);
      stop();
      resolve({ raw, ms: Date.now() - started });
    });
    stop = talk(socket);
  });
}

/** Writes `text` a byte every `everyMs`, never finishing the head; returns what stops it. */
const drip = (socket: Duplex, text: string, everyMs: number): (() => void) => {
  let sent = 0;
  const timer = setInterval(() => socket.writable && socket.write(text[sent++ % text.length]!), everyMs);
  return () => clearInterval(timer);
};

const timedOut = (ended: Ended): void => {
  expect(ended.raw).toMatch(/^HTTP\/1\.1 408 /);
  expect(JSON.parse(ended.raw.slice(ended.raw.indexOf('\r\n\r\n') + 4))).toMatchObject({
    error_code: 'REQUEST_TIMEOUT',
  });
};

describe.each(['https', 'http'] as const)('request deadlines over %s', (scheme) => {
  let server: Listening;
  let open: () => Duplex;

  beforeAll(async () => {
    let tls: { cert: string; key: string } | undefined;
    if (scheme === 'https') {
      const dir = mkdtempSync(join(tmpdir(), 'sandbox-deadlines-'));
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
        ],
        { stdio: 'pipe' },
      );
      tls = { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
    }
    server = await listen(site, { host: '127.0.0.1', port: 0, tls: tls ?? null, deadlines });
    open =
      scheme === 'https'
        ? () => connectTls({ port: server.port, host: '127.0.0.1', rejectUnauthorized: false })
        : () => connectTcp(server.port, '127.0.0.1');
  });
  afterAll(() => server?.close());

  it('answers a connection that sends nothing 408 at the head deadline', async () => {
    const ended = await converse(open, () => () => undefined);
    timedOut(ended);
    expect(ended.ms).toBeLessThan(deadlines.headersMs + LATE_MS);
  });

  it('answers a request head cut off 408 at the head deadline', async () => {
    const ended = await converse(open, (socket) => {
      socket.write('GET /balance HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      return () => undefined;
    });
    timedOut(ended);
    expect(ended.ms).toBeLessThan(deadlines.headersMs + LATE_MS);
  });

  it('answers a request head dripped a byte at a time 408 at the head deadline, however often bytes come', async () => {
    const ended = await converse(open, (socket) => {
      socket.write('GET /balance HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      return drip(socket, 'abcdefgh', 50);
    });
    timedOut(ended);
    expect(ended.ms).toBeLessThan(deadlines.headersMs + LATE_MS);
  });

  it('answers a body dripped a byte at a time 408 at the request deadline', async () => {
    const ended = await converse(open, (socket) => {
      socket.write(
        'POST /customers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":"',
      );
      return drip(socket, 'x', 50);
    });
    timedOut(ended);
    expect(ended.ms).toBeLessThan(deadlines.requestMs + LATE_MS);
  });

  // Only TLS has a handshake: the case exists over https and is not reported as skipped over http.
  if (scheme === 'https')
    it('closes a connection stalled inside its TLS handshake at the handshake deadline', async () => {
      // The first byte of a handshake record and nothing more: the TLS layer waits for the rest.
      const ended = await converse(
        () => connectTcp(server.port, '127.0.0.1'),
        (socket) => {
          socket.write(Buffer.from([0x16, 0x03, 0x01]));
          return () => undefined;
        },
      );
      expect(ended.raw).toBe('');
      expect(ended.ms).toBeLessThan(deadlines.handshakeMs + LATE_MS);
    });
});
