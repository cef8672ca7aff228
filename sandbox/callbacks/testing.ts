// Test helpers for the platform and the callbacks: a platform on a real store (a temporary DATA_DIR, so a
// test can close it and open another on the same files, as a restart does), the contract's own webhook
// examples as payloads, and a local HTTP receiver that records what it was sent.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { webhookMetadata, type WebhookKind } from '@payments-contract/client/webhooks';
import type { CollectionDefinition, Json, Scope, Store } from '../store/store.js';
import { openJournalStore } from '../store/journal/store.js';
import { collections, createPlatform, type Platform, type PlatformOptions } from '../platform/index.js';
import type { DeliveryRecord } from './outbox.js';
import { openapiPath } from '@payments-contract/contract';

export const MERCHANT: Scope = { merchantId: '5ed75086a883856178afc12e', mode: 'test' };
export const CALLBACK_TOKEN = 'cb_test_5f6ee8de3a733c1d2e1a1b2c';

type JsonObject = { [key: string]: Json };

/** The first example the contract gives for a webhook's body: valid against its schema by the contract's own tests. */
export function webhookExample(kind: WebhookKind): JsonObject {
  const doc = JSON.parse(readFileSync(openapiPath, 'utf8')) as {
    webhooks: Record<
      string,
      {
        post: { requestBody: { content: { 'application/json': { examples: Record<string, { value: JsonObject }> } } } };
      }
    >;
  };
  const examples =
    doc.webhooks[webhookMetadata[kind].name]?.post.requestBody.content['application/json'].examples ?? {};
  const first = Object.values(examples)[0];
  if (!first) throw new Error(`the contract has no example of ${kind}`);
  return first.value;
}

export interface Received {
  at: number;
  /** The path and query the callback was sent to. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A merchant's endpoint on 127.0.0.1:0 answering every request with `status()`. */
export async function startReceiver(status: (request: Received) => number = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        at: performance.now(),
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(entry);
      response.writeHead(status(entry), { 'content-type': 'application/json' }).end('{}');
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    received,
    waitFor: (count, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        if (received.length >= count) return resolve(received);
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} requests, got ${received.length}`)),
          timeoutMs,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(received)) });
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Waits until the stored delivery satisfies `done` (its outcome is written just after the receiver answers). */
export async function settled(
  t: TestPlatform,
  id: string,
  done: (d: DeliveryRecord) => boolean,
  scope: Scope = MERCHANT,
): Promise<DeliveryRecord> {
  const deadline = performance.now() + 15_000;
  for (;;) {
    const delivery = await t.platform.callbacks.get(scope, id);
    if (delivery && done(delivery)) return delivery;
    if (performance.now() > deadline) throw new Error(`delivery ${id} did not settle: ${JSON.stringify(delivery)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function enqueue(
  t: TestPlatform,
  kind: keyof typeof webhookMetadata,
  url: string | null,
  scope: Scope = MERCHANT,
): Promise<string> {
  await t.store.transaction((tx) => t.platform.callbacks.enqueue(tx, scope, kind, webhookExample(kind), url));
  const [newest] = await t.platform.callbacks.list(scope);
  if (!newest) throw new Error('nothing was enqueued');
  return newest.id;
}

export interface TestPlatform {
  platform: Platform;
  store: Store;
  alerts: DeliveryRecord[];
  /** Stops the dispatcher and closes the store, as a shutdown does. */
  close(): Promise<void>;
}

/** Temporary data directories, removed by `removeTempDirs`. */
const dirs: string[] = [];
export const tempDataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-platform-'));
  dirs.push(dir);
  return dir;
};
export const removeTempDirs = (): void => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
};

/** Opens stores on `collections`, each closed by `closeAll` (call it in afterEach); `reopen` closes one first. */
export function testStores(collections: CollectionDefinition[]) {
  const open: Store[] = [];
  return {
    open: (dataDir = ':memory:'): Store => {
      const store = openJournalStore({ dataDir, collections });
      open.push(store);
      return store;
    },
    /** Closes a store as a shutdown does, so the same DATA_DIR can be opened again. */
    close: async (store: Store): Promise<void> => {
      open.splice(open.indexOf(store), 1);
      await store.close();
    },
    closeAll: async (): Promise<void> => {
      await Promise.all(open.splice(0).map((store) => store.close()));
      removeTempDirs();
    },
  };
}

export async function openTestPlatform(
  dataDir: string,
  options: Partial<Omit<PlatformOptions, 'store'>> = {},
): Promise<TestPlatform> {
  const store = openJournalStore({ dataDir, collections });
  const alerts: DeliveryRecord[] = [];
  const platform = await createPlatform({
    store,
    callbackToken: () => CALLBACK_TOKEN,
    callbackRetryDelayMs: 200,
    defaultCallbackUrl: null,
    onAlert: (delivery) => void alerts.push(delivery),
    ...options,
  });
  return {
    platform,
    store,
    alerts,
    close: async () => {
      await platform.dispatcher.stop();
      await store.close();
    },
  };
}

export interface HangingReceiver {
  url: string;
  /** Requests that arrived (none is ever answered). */
  requests(): number;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Drops every held connection (the attempts waiting on them fail at once) and stops listening. */
  close(): Promise<void>;
}

/** A merchant's endpoint on 127.0.0.1:0 that accepts every request and never answers. */
export async function startHangingReceiver(): Promise<HangingReceiver> {
  let requests = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((request) => {
    request.resume();
    requests++;
    for (const waiter of waiters.filter((w) => requests >= w.count)) waiter.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    requests: () => requests,
    waitFor: (count, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        if (requests >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`expected ${count} requests, got ${requests}`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

export interface ReceiverThread {
  /** Answered 200 at once; `${url}/hang` is never answered. */
  url: string;
  /** When (Date.now()) the connection of a request to /hang closed; undefined if none did within `timeoutMs`. */
  hangClosedAt(timeoutMs?: number): Promise<number | undefined>;
  close(): Promise<void>;
}

/**
 * A merchant's endpoint on 127.0.0.1:0 served from a thread of its own, so it answers, and sees connections
 * close, while the test's thread is blocked.
 */
export async function startReceiverThread(): Promise<ReceiverThread> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
    const server = require('node:http').createServer((request, response) => {
      request.resume();
      if (request.url !== '/hang') return void request.on('end', () => response.end('{}'));
      request.socket.once('close', () => parentPort.postMessage({ hangClosedAt: Date.now() }));
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));`,
    { eval: true },
  );
  const messages: { port?: number; hangClosedAt?: number }[] = [];
  const arrived: (() => void)[] = [];
  worker.on('message', (message: { port?: number; hangClosedAt?: number }) => {
    messages.push(message);
    for (const wake of arrived.splice(0)) wake();
  });
  const next = async (field: 'port' | 'hangClosedAt', timeoutMs: number): Promise<number | undefined> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find((message) => message[field] !== undefined)?.[field];
      if (found !== undefined || Date.now() >= deadline) return found;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        arrived.push(() => (clearTimeout(timer), resolve()));
      });
    }
  };
  const port = await next('port', 10_000);
  if (port === undefined) throw new Error('the receiver thread did not listen');
  return {
    url: `http://127.0.0.1:${port}`,
    hangClosedAt: (timeoutMs = 5000) => next('hangClosedAt', timeoutMs),
    close: async () => void (await worker.terminate()),
  };
}

export interface EndlessReceiver {
  url: string;
  /** Bytes of answer written so far, all connections together. */
  written(): number;
  /** Resolves once the sandbox has closed the connection of the first request. */
  firstClosed: Promise<void>;
  close(): Promise<void>;
}

/**
 * A merchant's endpoint on 127.0.0.1:0 answering 200 with a body that goes on as fast as the reader takes it,
 * up to `limitBytes` (a bound, so a reader that takes it all ends instead of filling the machine).
 */
export async function startEndlessReceiver(limitBytes = 256 * 1024 * 1024): Promise<EndlessReceiver> {
  let written = 0;
  let markFirstClosed: () => void = () => undefined;
  const firstClosed = new Promise<void>((resolve) => (markFirstClosed = resolve));
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server: Server = createServer((request, response) => {
    request.resume();
    response.socket?.once('close', markFirstClosed);
    response.writeHead(200, { 'content-type': 'application/json' });
    const pump = (): void => {
      while (!response.destroyed && written < limitBytes) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      if (!response.destroyed) response.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    written: () => written,
    firstClosed,
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}
