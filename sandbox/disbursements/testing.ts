// The view the disbursement, e-wallet and customer tests take of the shared in-process sandbox
// (sandbox/testing): the whole app with response validation on, its clock held at a fixed real time and
// its callback dispatcher stopped, so every callback a test causes stays in the outbox to be inspected.
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import type { DeliveryRecord } from '../callbacks/outbox.js';
import type { SandboxSettings, SandboxContext } from '../context.js';
import type { Store } from '../store/store.js';
import { createTestSandbox, scopeOf, TEST_CALLBACK_URL, TEST_KEYS, type TestKeyName } from '../testing/index.js';

export { callerOf, scopeOf } from '../testing/index.js';

export const START = '2026-11-21T09:30:00.000Z';
export const CALLBACK_URL = TEST_CALLBACK_URL;
export type KeyName = TestKeyName;

export interface Answer {
  status: number;
  /** The parsed JSON body (every answer of the sandbox is JSON). */
  json: unknown;
}

export interface RequestOptions {
  key?: KeyName;
  /** Sent as JSON unless it is already a string (malformed bodies, forms). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Bench {
  ctx: SandboxContext;
  /** A request to the sandbox (the service, or the control API for `/sandbox/...` paths). */
  call(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  /** The service router itself, for requests `call` cannot build. */
  service: (request: Request) => Promise<Response>;
  /** The Authorization header of a key. */
  authorization(key?: KeyName): string;
  settings(changes: Partial<SandboxSettings>, key?: KeyName): Promise<void>;
  /** The scope's callback deliveries, oldest first. */
  deliveries(key?: KeyName): Promise<DeliveryRecord[]>;
  cash(key?: KeyName): Promise<number>;
  /** Moves the clock of a key's merchant and mode (default `aTest`). */
  advance(ms: number, key?: KeyName): Promise<void>;
  /** Errors the routers reported: a response off the contract shows up here as well as a 500. */
  errors: unknown[];
  close(): Promise<void>;
}

export async function openBench(): Promise<Bench> {
  const realTime = Date.parse(START);
  const sandbox = await createTestSandbox({
    realTime: () => realTime,
    startDispatcher: false,
    failOnRouterErrors: false,
  });
  const { ctx, app } = sandbox;
  return {
    ctx,
    errors: sandbox.routerErrors,
    call: async (method, path, { key = 'aTest', body, headers = {} } = {}) => {
      const answer = await sandbox.request(method, path, { key, body, headers });
      return { status: answer.status, json: answer.body };
    },
    service: app.service,
    authorization: (key = 'aTest') => basicAuthorization({ username: TEST_KEYS[key], password: '' }),
    settings: async (changes, key = 'aTest') => void (await ctx.settings.update(scopeOf(key), changes)),
    deliveries: async (key = 'aTest') => (await app.platform.callbacks.list(scopeOf(key))).reverse(),
    cash: (key = 'aTest') => ctx.store.transaction((tx) => ctx.balances.get(tx, scopeOf(key), 'CASH')),
    advance: (ms, key) => sandbox.advance(ms, key),
    close: () => sandbox.close(),
  };
}

/**
 * A bench opened before each test of the file and closed after it, checking that no router reported an
 * error (a response off the contract is one). Its members reach the current test's bench.
 */
export function useBench(): Bench {
  let current: Bench | undefined;
  const now = (): Bench => {
    if (!current) throw new Error('the bench is open only inside a test');
    return current;
  };
  beforeEach(async () => {
    current = await openBench();
  });
  afterEach(async () => {
    const bench = now();
    current = undefined;
    expect(bench.errors).toEqual([]);
    await bench.close();
  });
  return {
    get ctx() {
      return now().ctx;
    },
    get errors() {
      return now().errors;
    },
    call: (...args) => now().call(...args),
    service: (request) => now().service(request),
    authorization: (key) => now().authorization(key),
    settings: (changes, key) => now().settings(changes, key),
    deliveries: (key) => now().deliveries(key),
    cash: (key) => now().cash(key),
    advance: (ms, key) => now().advance(ms, key),
    close: () => now().close(),
  };
}

/** The value as an object, failing the test when it is not one. */
export function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  return Object.fromEntries(Object.entries(value));
}

/**
 * Logs, per transaction of `store` from now on, each read by id or field and each delete its work asks for
 * and when it is answered (`asked get disbursements`, `answered get disbursements`): which statements a
 * transaction has under way together, whatever the store. `restore` ends the logging.
 */
export function logTransactions(store: Store): { transactions: string[][]; restore(): void } {
  const transactions: string[][] = [];
  const transaction = store.transaction.bind(store);
  const spy = vi.spyOn(store, 'transaction').mockImplementation((work) =>
    transaction((tx) => {
      const log: string[] = [];
      transactions.push(log);
      const logged = async <R>(name: string, collection: string, statement: Promise<R>): Promise<R> => {
        log.push(`asked ${name} ${collection}`);
        const answer = await statement;
        log.push(`answered ${name} ${collection}`);
        return answer;
      };
      return work({
        ...tx,
        get: (collection, scope, id) => logged('get', collection, tx.get(collection, scope, id)),
        findBy: (collection, scope, field, value, options) =>
          logged('findBy', collection, tx.findBy(collection, scope, field, value, options)),
        delete: (collection, scope, id) => logged('delete', collection, tx.delete(collection, scope, id)),
        discard: (collection, scope, id) => logged('discard', collection, tx.discard(collection, scope, id)),
      });
    }),
  );
  return { transactions, restore: () => spy.mockRestore() };
}
