// The attempt over node:http: what the receiver gets, the answer read to its bound, one timer for the whole
// attempt, connections kept for the next attempt, and a URL with credentials refused before anything is sent.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAttemptSender, type AttemptSender } from './send-attempt.js';
import {
  startEndlessReceiver,
  startHangingReceiver,
  startReceiver,
  type EndlessReceiver,
  type HangingReceiver,
  type Receiver,
} from './testing.js';

const closing: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

function sender(timeoutMs = 5_000, readLimit = 1024): AttemptSender {
  const made = createAttemptSender({ timeoutMs, readLimit, maxSockets: 4 });
  closing.push(() => made.close());
  return made;
}

const delivery = (url: string, body = '{"id":"d1"}') =>
  ({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-callback-token': 'cbt_1' },
    body,
  }) as const;

/** A receiver of the test's own on 127.0.0.1, closed after the test; its URL. */
async function serve(listener: RequestListener): Promise<string> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
}

async function track<T extends Receiver | EndlessReceiver | HangingReceiver>(receiver: Promise<T>): Promise<T> {
  const started = await receiver;
  closing.push(() => started.close());
  return started;
}

describe('a callback attempt over node:http', () => {
  it('posts the delivery as it is (headers, body) and reports the status and the answer read', async () => {
    const receiver = await track(startReceiver(() => 202));
    const answer = await sender().prepare(delivery(receiver.url, '{"id":"d1","amount":5}'))();
    expect(answer).toEqual({ status: 202, bytes: 2, cut: false });
    const [received] = receiver.received;
    expect(received?.body).toBe('{"id":"d1","amount":5}');
    expect(received?.headers['x-callback-token']).toBe('cbt_1');
    expect(received?.headers['content-type']).toBe('application/json');
  });

  it('keeps the connection for the next attempt to the same receiver', async () => {
    const sockets = new Set<unknown>();
    const url = await serve((request, response) => {
      sockets.add(request.socket);
      request.resume();
      request.on('end', () => response.end('{}'));
    });
    const send = sender();
    for (let i = 0; i < 3; i++) expect((await send.prepare(delivery(url))()).status).toBe(200);
    expect(sockets.size).toBe(1);
  });

  it('closes a pooled connection left unused for the idle time, before the receiver would', async () => {
    let closed = 0;
    const url = await serve((request, response) => {
      request.socket.once('close', () => closed++);
      request.resume();
      request.on('end', () => response.end('{}'));
    });
    const send = createAttemptSender({ timeoutMs: 5_000, readLimit: 1024, maxSockets: 4, idleConnectionMs: 100 });
    closing.push(() => send.close());
    expect((await send.prepare(delivery(url))()).status).toBe(200);
    expect(closed).toBe(0);
    await expect.poll(() => closed, { timeout: 2_000 }).toBe(1);
  });

  it('keeps a connection in use past the idle time: only the attempt timeout bounds an attempt', async () => {
    const url = await serve((request, response) => {
      request.resume();
      request.on('end', () => setTimeout(() => response.end('{}'), 300));
    });
    const send = createAttemptSender({ timeoutMs: 5_000, readLimit: 1024, maxSockets: 4, idleConnectionMs: 50 });
    closing.push(() => send.close());
    expect(await send.prepare(delivery(url))()).toEqual({ status: 200, bytes: 2, cut: false });
  });

  it('reads an endless answer only to the bound, then closes the connection', async () => {
    const endless = await track(startEndlessReceiver(64 * 1024 * 1024));
    const answer = await sender(10_000, 100_000).prepare(delivery(endless.url))();
    expect(answer).toEqual({ status: 200, bytes: 100_000, cut: true });
    await endless.firstClosed;
    expect(endless.written()).toBeLessThan(16 * 1024 * 1024);
  });

  it('fails an attempt that has no answer within the timeout, named as a timeout, and drops the connection', async () => {
    const hanging = await track(startHangingReceiver());
    const started = performance.now();
    const attempt = sender(150).prepare(delivery(hanging.url))();
    await expect(attempt).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(hanging.requests()).toBe(1);
  });

  it('keeps the status of an answer whose body does not end within the timeout', async () => {
    const url = await serve((request, response) => {
      request.resume();
      response.writeHead(200).write('{"partial":');
    });
    expect(await sender(200).prepare(delivery(url))()).toEqual({ status: 200, bytes: 11, cut: false });
  });

  it('rejects with the connection error when nobody listens', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(sender().prepare(delivery(`http://127.0.0.1:${port}/cb`))()).rejects.toThrow(/ECONNREFUSED/);
  });

  it('refuses a URL with credentials or of another scheme before anything is sent', () => {
    expect(() => sender().prepare(delivery('http://merchant:secret@127.0.0.1:1/cb'))).toThrow(/credentials/);
    expect(() => sender().prepare(delivery('ftp://127.0.0.1/cb'))).toThrow(/http or https/);
  });
});
