// Test support for the balance, fixed virtual account and fixed payment code modules: a SandboxContext
// over an in-memory journal store (no file) with settable clocks (one per merchant and mode) and
// settings, a ledger and an outbox in the same store (so they commit or roll back with the change, as the
// real ones must), and the generated router serving only the operations under test, with response
// validation on.
import { expect } from 'vitest';
import { createRouter, type AnyHandler, type RouteTable } from '@payments-contract/server/runtime/router';
import { operationTable as controlTable } from '@payments-contract/server/sandbox/server';
import { operationTable as serviceTable } from '@payments-contract/server';
import {
  buildWebhookDelivery,
  webhookMetadata,
  type WebhookEvents,
  type WebhookKind,
} from '@payments-contract/client/webhooks';
import type { AccountType, Caller, Json, JsonRecord, SandboxSettings, SandboxContext, Scope } from '../context.js';
import { openJournalStore } from '../store/journal/store.js';
import type { CollectionDefinition, Store, Transaction } from '../store/store.js';

export const START = new Date('2026-11-21T09:30:00.000Z');
export const CALLBACK_TOKEN = 'cbt_test_area_a';

/** Keys of the merchants under test: A in test and live mode, B in test mode. */
export const KEYS = { a: 'sk_test_merchant_a', aLive: 'sk_live_merchant_a', b: 'sk_test_merchant_b' } as const;
const CALLERS: Record<string, Caller> = {
  [KEYS.a]: { merchantId: 'merchant-a', mode: 'test', ownerId: '5ed75086a883856178afc12e' },
  [KEYS.aLive]: { merchantId: 'merchant-a', mode: 'live', ownerId: '5ed75086a883856178afc12e' },
  [KEYS.b]: { merchantId: 'merchant-b', mode: 'test', ownerId: '5ed75086a883856178afc99b' },
};

/** Settings every merchant starts with in these tests: every bank and outlet configured and enabled. */
export function defaultSettings(): SandboxSettings {
  const settingNames = Object.values(webhookMetadata).flatMap((webhook) => {
    const destination = webhook.delivery.destination;
    return 'dashboard_setting' in destination ? [destination.dashboard_setting] : [];
  });
  return {
    virtual_account_number_range: {
      BCA: { merchant_code: '10766', from: '1076600000', to: '1076699999' },
      BNI: { merchant_code: '88608', from: '8860810000000', to: '8860810999999' },
      MANDIRI: { merchant_code: '88908', from: '8890800000000', to: '8890800999999' },
      SAHABAT_SAMPOERNA: { merchant_code: '88919', from: '8891900000000', to: '8891900999999' },
      BRI: { merchant_code: '26215', from: '262159999000000', to: '262159999999999' },
      PERMATA: { merchant_code: '82150', from: '8215000000000', to: '8215000999999' },
    },
    virtual_account_bank_activation: ['BCA', 'BNI', 'MANDIRI', 'SAHABAT_SAMPOERNA', 'BRI', 'PERMATA'],
    closed_virtual_accounts_enabled: true,
    expiration_date_enabled: true,
    payment_code_range: {
      ALFAMART: { prefix: '12345', from: '123450000000', to: '123450999999' },
      INDOMARET: { prefix: '7788', from: '7788800000', to: '7788899999' },
    },
    default_disbursement_description: null,
    ewallet_auto_resolve: true,
    disbursement_auto_resolve: true,
    direct_debit_auto_resolve: true,
    rate_limits_enabled: true,
    callback_urls: Object.fromEntries(settingNames.map((name) => [name, `https://merchant.example/callbacks/${name}`])),
  };
}

const OUTBOX = 'test_outbox';
const LEDGER = 'test_ledger';

export interface Enqueued extends JsonRecord {
  webhook: string;
  payload: Json;
  url: string | null;
  merchant_id: string;
  mode: string;
}

interface LedgerEntry extends JsonRecord {
  amount: number;
}

export interface Answer {
  status: number;
  body: Json;
}

export interface RequestOptions {
  key?: string | null;
  json?: unknown;
  /** Sent as the raw body with the given content type. */
  raw?: { contentType: string; text: string };
}

export interface Harness {
  ctx: SandboxContext;
  store: Store;
  /** Changes a merchant's settings (merchant A in test mode unless told otherwise). */
  configure(changes: Partial<SandboxSettings>, key?: string): Promise<void>;
  /** Moves the clock of a merchant's mode (merchant A in test mode unless told otherwise). */
  advance(ms: number, key?: string): Promise<void>;
  call(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  /** The callbacks enqueued so far, oldest first, each checked against its webhook's schema when enqueued. */
  outbox(key?: string): Promise<Enqueued[]>;
  balance(account: AccountType, key?: string): Promise<number>;
  /** Errors the router reported (thrown handlers, answers off the contract); a test expects none. */
  errors: unknown[];
}

const isWebhookKind = (name: string): name is WebhookKind => name in webhookMetadata;

function pick(table: RouteTable, operationIds: readonly string[]): RouteTable {
  return Object.fromEntries(
    operationIds.map((operationId) => {
      const route = table[operationId];
      if (!route) throw new Error(`no operation ${operationId}`);
      return [operationId, route];
    }),
  );
}

type Handler = AnyHandler<Caller>;

/**
 * A harness serving `handlers` (service and control operations, by operationId) over a fresh in-memory
 * store with the modules' `collections`.
 */
export function createHarness(
  build: (ctx: SandboxContext) => Record<string, Handler>,
  collections: readonly CollectionDefinition[],
): Harness {
  const store = openJournalStore({
    dataDir: ':memory:',
    collections: [...collections, { name: OUTBOX }, { name: LEDGER }],
  });
  const offsets = new Map<string, number>();
  let ids = 0;
  let sequence = 0;
  const settings = new Map<string, SandboxSettings>();
  const keyOf = (scope: Scope) => `${scope.merchantId}/${scope.mode}`;
  const settingsOf = (scope: Scope): SandboxSettings => settings.get(keyOf(scope)) ?? defaultSettings();
  const ledgerId = (account: AccountType) => `ledger-${account}`;
  const readBalance = async (tx: Pick<Store, 'get'>, scope: Scope, account: AccountType) =>
    (await tx.get<LedgerEntry>(LEDGER, scope, ledgerId(account)))?.amount ?? 0;
  const writeBalance = async (
    tx: Pick<Store, 'get' | 'insert' | 'update'>,
    scope: Scope,
    account: AccountType,
    amount: number,
  ) => {
    const entry: LedgerEntry = { id: ledgerId(account), amount };
    if (await tx.get(LEDGER, scope, entry.id)) await tx.update(LEDGER, scope, entry);
    else await tx.insert(LEDGER, scope, entry);
  };
  const debitBalance = async (tx: Transaction, scope: Scope, account: AccountType, amount: number) => {
    const balance = await readBalance(tx, scope, account);
    if (balance < amount) return false;
    await writeBalance(tx, scope, account, balance - amount);
    return true;
  };

  const ctx: SandboxContext = {
    store,
    clock: {
      now: (scope) => new Date(START.getTime() + (offsets.get(keyOf(scope)) ?? 0)),
      advance: async (scope, ms) => {
        offsets.set(keyOf(scope), (offsets.get(keyOf(scope)) ?? 0) + ms);
        return ctx.clock.now(scope);
      },
      onAdvance: () => undefined,
    },
    ids: { next: (prefix = '') => `${prefix}${(++ids).toString(16).padStart(24, '0')}` },
    settings: {
      get: async (scope) => structuredClone(settingsOf(scope)),
      peek: settingsOf,
      update: async (scope, changes) => {
        const next = { ...settingsOf(scope), ...changes };
        settings.set(keyOf(scope), next);
        return structuredClone(next);
      },
    },
    callbacks: {
      enqueue: async (tx, scope, webhook, payload, url) => {
        if (!isWebhookKind(webhook)) throw new Error(`no webhook ${webhook}`);
        // The real outbox builds the delivery with the generated sender, which refuses a payload off the
        // contract; doing the same here makes such a payload fail the test that produced it.
        buildWebhookDelivery(webhook, payload as WebhookEvents[typeof webhook], {
          callbackToken: CALLBACK_TOKEN,
          url: url ?? 'https://unset.example/',
        });
        const entry: Enqueued = {
          id: `cb-${String(++sequence).padStart(6, '0')}`,
          webhook,
          payload,
          url,
          merchant_id: scope.merchantId,
          mode: scope.mode,
        };
        await tx.insert(OUTBOX, scope, entry);
      },
    },
    balances: {
      get: (tx, scope, account) => readBalance(tx, scope, account),
      credit: async (tx, scope, account, amount) => {
        const balance = (await readBalance(tx, scope, account)) + amount;
        await writeBalance(tx, scope, account, balance);
        return balance;
      },
      debit: (tx, scope, account, amount) => debitBalance(tx, scope, account, amount),
      // The harness's debit reads when it is made: a prepared one is that debit, made later.
      prepareDebit: (tx, scope, account) => (amount) => debitBalance(tx, scope, account, amount),
    },
    idempotency: {
      run: async () => {
        throw new Error('these modules take no idempotency keys');
      },
    },
    autoResolve: {
      delayMs: 0,
      schedule: async () => {
        throw new Error('nothing of these modules finishes by itself');
      },
    },
  };

  const handlers = build(ctx);
  const operationIds = Object.keys(handlers);
  const table = {
    ...pick(
      serviceTable,
      operationIds.filter((id) => id in serviceTable),
    ),
    ...pick(
      controlTable,
      operationIds.filter((id) => id in controlTable),
    ),
  };
  const errors: unknown[] = [];
  const router = createRouter<Caller, RouteTable>(table, handlers, {
    authenticate: (credentials) =>
      credentials && credentials.password === '' ? (CALLERS[credentials.username] ?? null) : null,
    validateResponses: true,
    onError: (error) => void errors.push(error),
  });
  const callerOf = (key: string): Caller => {
    const caller = CALLERS[key];
    if (!caller) throw new Error(`no caller for ${key}`);
    return caller;
  };

  return {
    ctx,
    store,
    errors,
    configure: async (changes, key = KEYS.a) => void (await ctx.settings.update(callerOf(key), changes)),
    advance: async (ms, key = KEYS.a) => void (await ctx.clock.advance(callerOf(key), ms)),
    call: async (method, path, options = {}) => {
      const headers = new Headers();
      const key = options.key === undefined ? KEYS.a : options.key;
      if (key !== null) headers.set('authorization', `Basic ${Buffer.from(`${key}:`).toString('base64')}`);
      let body: string | undefined;
      if (options.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(options.json);
      } else if (options.raw) {
        headers.set('content-type', options.raw.contentType);
        body = options.raw.text;
      }
      const response = await router(
        new Request(`http://sandbox.test${path}`, { method, headers, ...(body === undefined ? {} : { body }) }),
      );
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : (JSON.parse(text) as Json) };
    },
    outbox: async (key = KEYS.a) => store.list<Enqueued>(OUTBOX, callerOf(key), { order: 'oldest' }),
    balance: async (account, key = KEYS.a) => readBalance(store, callerOf(key), account),
  };
}

/** A field of the answer's body (undefined when the body is not an object or lacks it). */
export function bodyField(answer: Answer, name: string): Json | undefined {
  const { body } = answer;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? body[name] : undefined;
}

/**
 * Tracks which documented error codes the tests produced, so a test file can require every code of its
 * operations to be reached by the condition the contract gives for it.
 */
export function errorCoverage() {
  const seen = new Set<string>();
  const tables: RouteTable[] = [serviceTable, controlTable];
  return {
    /** Expects the answer to be `status` with `code`, and records the code as reached. */
    expectError(operationId: string, answer: Answer, status: number, code: string): void {
      expect(answer, `${operationId} answer`).toMatchObject({ status, body: { error_code: code } });
      seen.add(`${operationId} ${status} ${code}`);
    },
    /**
     * Documented codes of the operations no test reached. 403 is left out: a key's permissions are set in
     * the dashboard, outside the API (decision `key-permissions`), and every sandbox key has them all. So are
     * the codes every operation documents for rate limits (429 RATE_LIMIT_EXCEEDED) and for a service that
     * cannot take requests (503 SERVICE_UNAVAILABLE): they come from in front of the operations (rate limiting,
     * an unavailable store), not from any one operation's handler, so this per-operation coverage does not track them.
     */
    missing(operationIds: readonly string[]): string[] {
      return operationIds.flatMap((operationId) => {
        const route = tables.map((table) => table[operationId]).find((found) => found !== undefined);
        if (!route) throw new Error(`no operation ${operationId}`);
        return Object.entries(route.responses)
          .filter(([status]) => Number(status) >= 400 && status !== '403' && status !== '429')
          .flatMap(([status, codes]) =>
            codes.filter((code) => code !== 'SERVICE_UNAVAILABLE').map((code) => `${operationId} ${status} ${code}`),
          )
          .filter((entry) => !seen.has(entry));
      });
    },
  };
}
