// The whole sandbox in-process, for tests: the real app (store in memory unless a DATA_DIR is given, every
// module, both generated routers with response validation on) behind a fetch-standard handler, typed
// clients of both contracts that call it without a network, and an in-process merchant endpoint that
// records every callback the dispatcher sends and answers what the test says.
//
//   const sandbox = await createTestSandbox();
//   const created = await sandbox.service().createFixedVirtualAccount({ body: {...} });
//   await sandbox.control().simulateFixedVirtualAccountPayment({ path: { id }, body: { amount: 50000 } });
//   const [paid] = await sandbox.waitForCallbacks(2);
//   await sandbox.close();
import { createPaymentsClient, type PaymentsClient } from '@payments-contract/client';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import type { FetchHandler } from '@payments-contract/server/runtime/node-listener';
import { createSandboxControlClient, type SandboxControlClient } from '@payments-contract/client/sandbox/client';
import { createSandboxApp, type SandboxApp } from '../app.js';
import { defaultConfig, type MerchantConfig, type SandboxConfig } from '../config.js';
import { scopeOf as scopeOfCaller, type Caller, type Json, type Scope } from '../context.js';
import type { SandboxLogger } from '../observability/index.js';
import { createSite } from '../server.js';

/** Where the clients pretend the sandbox is; nothing listens there. */
export const TEST_BASE_URL = 'http://sandbox.test';
/** Where the test merchants' callbacks go: answered in-process by the recorder. */
export const TEST_CALLBACK_URL = 'https://merchant.test/callbacks';

/** Two merchants, both modes: A is the default merchant of a started sandbox, B another one. */
export const TEST_MERCHANTS = {
  a: {
    id: 'merchant-a',
    ownerId: '5ed75086a883856178afc12e',
    keys: { test: 'sk_test_merchant_a_0000000000000000', live: 'sk_live_merchant_a_0000000000000000' },
    callbackTokens: { test: 'cbt_test_merchant_a', live: 'cbt_live_merchant_a' },
  },
  b: {
    id: 'merchant-b',
    ownerId: '5f6ee8de3a733c1d00000001',
    keys: { test: 'sk_test_merchant_b_0000000000000000', live: 'sk_live_merchant_b_0000000000000000' },
    callbackTokens: { test: 'cbt_test_merchant_b', live: 'cbt_live_merchant_b' },
  },
} as const satisfies Record<string, MerchantConfig>;

/** The test keys by name: `aTest` is the default of every helper below. */
export const TEST_KEYS = {
  aTest: TEST_MERCHANTS.a.keys.test,
  aLive: TEST_MERCHANTS.a.keys.live,
  bTest: TEST_MERCHANTS.b.keys.test,
  bLive: TEST_MERCHANTS.b.keys.live,
} as const;
export type TestKeyName = keyof typeof TEST_KEYS;

/** The caller each key authenticates as. */
export function callerOf(name: TestKeyName): Caller {
  const merchant = name.startsWith('a') ? TEST_MERCHANTS.a : TEST_MERCHANTS.b;
  return { merchantId: merchant.id, mode: name.endsWith('Test') ? 'test' : 'live', ownerId: merchant.ownerId };
}
export const scopeOf = (name: TestKeyName): Scope => scopeOfCaller(callerOf(name));

/** One callback as the merchant's endpoint received it. */
export interface ReceivedCallback {
  url: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: Json;
  /** What the recorder answered. */
  status: number;
  /** Real time of arrival (ms). */
  at: number;
}

export interface TestSandboxOptions {
  /** Changes to the configuration. Defaults: store in memory, response validation on, the two test merchants, callbacks to TEST_CALLBACK_URL 100 ms apart. */
  config?: Partial<SandboxConfig>;
  /** The recorder's answer to each callback (default 200). Ignored when `fetch` is given. */
  callbackStatus?: (callback: Omit<ReceivedCallback, 'status'>) => number;
  /** Sends callbacks instead of the recorder (a real receiver: pass the global fetch). */
  fetch?: typeof fetch;
  /** The real clock (ms) the sandbox clock is built on. */
  realTime?: () => number;
  /** Start the callback dispatcher (default true). */
  startDispatcher?: boolean;
  /** Fail the test on errors the router reports (a thrown handler, an answer off the contract). Default true. */
  failOnRouterErrors?: boolean;
  /** Where the lines per request and per callback attempt go (default: nowhere). */
  logger?: SandboxLogger;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body (every answer of the sandbox is JSON), or undefined for an empty one. */
  body: Json | undefined;
}

export interface RequestOptions {
  /** A key name, a literal key, or null for no Authorization header. Default `aTest`. */
  key?: TestKeyName | string | null;
  /** Sent as JSON (unless `form`). */
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface TestSandbox {
  app: SandboxApp;
  ctx: SandboxApp['ctx'];
  config: SandboxConfig;
  /** The whole sandbox (both contracts, /openapi.json) as a fetch-standard handler. */
  fetch: FetchHandler;
  /** A typed client of the service for a key (default `aTest`), retries off: tests see every answer as sent. */
  service(key?: TestKeyName): PaymentsClient;
  /** A typed client of the control API for a key (default `aTest`). */
  control(key?: TestKeyName): SandboxControlClient;
  /** Any request, for what the typed clients cannot send (malformed bodies, no key, unknown fields). */
  request(method: string, path: string, options?: RequestOptions): Promise<RawAnswer>;
  /** Every callback received so far, in order of arrival. */
  callbacks: ReceivedCallback[];
  /** Resolves with the callbacks once at least `count` have arrived (rejects after `timeoutMs`, default 5 s). */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  /** Resolves with the first callback (received before or after the call) that `matches` (rejects after `timeoutMs`, default 5 s). */
  waitForCallback(matches: (callback: ReceivedCallback) => boolean, timeoutMs?: number): Promise<ReceivedCallback>;
  /** Moves the clock of a key's merchant and mode (default `aTest`), as its advanceClock would; no other clock moves. */
  advance(ms: number, key?: TestKeyName): Promise<void>;
  /** Errors the routers reported (a failing test shows them). */
  routerErrors: unknown[];
  close(): Promise<void>;
}

const keyOf = (key: TestKeyName | string): string => (key in TEST_KEYS ? TEST_KEYS[key as TestKeyName] : key);

export async function createTestSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const config = defaultConfig({
    dataDir: ':memory:',
    validateResponses: true,
    merchants: [TEST_MERCHANTS.a, TEST_MERCHANTS.b],
    callbackUrl: TEST_CALLBACK_URL,
    callbackRetryDelayMs: 100,
    ...options.config,
  });
  const callbacks: ReceivedCallback[] = [];
  const waiters = new Set<() => void>();
  const recorder = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      body = text;
    }
    const received = { url: request.url, headers, body, at: Date.now() };
    const status = options.callbackStatus?.(received) ?? 200;
    callbacks.push({ ...received, status });
    for (const wake of waiters) wake();
    return new Response('{}', { status, headers: { 'content-type': 'application/json' } });
  };
  /** Resolves once `done()` holds, checked now and at every callback that arrives. */
  const waitUntil = (done: () => boolean, timeoutMs: number, failure: () => string): Promise<void> =>
    new Promise((resolve, reject) => {
      if (done()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(failure()));
      }, timeoutMs);
      const wake = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
      };
      waiters.add(wake);
    });
  const routerErrors: unknown[] = [];
  const app = await createSandboxApp(config, {
    fetch: options.fetch ?? recorder,
    onError: (error) => {
      routerErrors.push(error);
      if (options.failOnRouterErrors !== false) console.error('sandbox router error:', error);
    },
    ...(options.realTime ? { realTime: options.realTime } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    onAlert: () => {
      // Failed deliveries are the subject of the tests that cause them; no warning line for each.
    },
  });
  if (options.startDispatcher !== false) await app.start();
  const site = createSite({
    service: app.service,
    control: app.control,
    health: () => app.health(),
    observer: app.observer,
  });
  const fetchHandler: FetchHandler = async (request) => {
    const response = await site(request);
    if (options.failOnRouterErrors !== false && routerErrors.length > 0) {
      throw new Error(
        `the sandbox reported ${routerErrors.length} router error(s), first: ${routerErrors[0] instanceof Error ? routerErrors[0].message : String(routerErrors[0])}`,
      );
    }
    return response;
  };

  return {
    app,
    ctx: app.ctx,
    config,
    fetch: fetchHandler,
    service: (key = 'aTest') =>
      createPaymentsClient({ baseUrl: TEST_BASE_URL, secretKey: TEST_KEYS[key], fetch: fetchHandler, retries: false }),
    control: (key = 'aTest') =>
      createSandboxControlClient({
        baseUrl: TEST_BASE_URL,
        secretKey: TEST_KEYS[key],
        fetch: fetchHandler,
        retries: false,
      }),
    async request(method, path, requestOptions = {}) {
      const headers = new Headers(requestOptions.headers);
      const key = requestOptions.key === undefined ? 'aTest' : requestOptions.key;
      if (key !== null && !headers.has('authorization'))
        headers.set('authorization', basicAuthorization({ username: keyOf(key), password: '' }));
      let body: string | undefined;
      if (requestOptions.form) {
        body = new URLSearchParams(requestOptions.form).toString();
        if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded');
      } else if (requestOptions.body !== undefined) {
        body = typeof requestOptions.body === 'string' ? requestOptions.body : JSON.stringify(requestOptions.body);
        if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      }
      const response = await fetchHandler(
        new Request(`${TEST_BASE_URL}${path}`, { method, headers, ...(body === undefined ? {} : { body }) }),
      );
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text === '' ? undefined : (JSON.parse(text) as Json),
      };
    },
    callbacks,
    waitForCallbacks: async (count, timeoutMs = 5_000) => {
      await waitUntil(
        () => callbacks.length >= count,
        timeoutMs,
        () => `expected ${count} callback(s) within ${timeoutMs} ms, got ${callbacks.length}`,
      );
      return [...callbacks];
    },
    waitForCallback: async (matches, timeoutMs = 5_000) => {
      let found: ReceivedCallback | undefined;
      await waitUntil(
        () => (found = callbacks.find(matches)) !== undefined,
        timeoutMs,
        () => `no matching callback within ${timeoutMs} ms among ${callbacks.length} received`,
      );
      return found!;
    },
    advance: async (ms, key = 'aTest') => void (await app.platform.clock.advance(scopeOf(key), ms)),
    routerErrors,
    close: () => app.close(),
  };
}
