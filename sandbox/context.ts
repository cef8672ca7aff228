// What every part of the sandbox is handed: storage, time, ids, the merchant's dashboard settings, the
// callback outbox, the balance ledger and idempotency. Domain modules depend on these interfaces only;
// app.ts wires the implementations.
import type { components } from '@payments-contract/server/sandbox/types';
import type { Json, JsonRecord, Mode, Scope, Store, Transaction } from './store/store.js';

export type { Json, JsonRecord, Mode, Scope, Store, Transaction };

/** The caller the service router hands every handler (the principal of a valid key). */
export interface Caller extends Scope {
  /** The merchant's user/business id, echoed as owner_id, user_id, business_id. */
  ownerId: string;
}

/** The scope of the caller's key: its merchant and mode (never the owner id, which is not part of it). */
export const scopeOf = (caller: Caller): Scope => ({ merchantId: caller.merchantId, mode: caller.mode });

/**
 * Sandbox time: the real clock plus an offset the control API can advance (expiries, retry spacing). Each
 * merchant and mode has a clock of its own, so every reading names the scope whose time it is.
 */
export interface Clock {
  now(scope: Scope): Date;
  /** Moves the scope's time forward by `ms` and returns its new now; what became due for it then runs. */
  advance(scope: Scope, ms: number): Promise<Date>;
  /** Called with the scope and its new time whenever a clock moves (timers that follow sandbox time subscribe). */
  onAdvance(listener: (scope: Scope, now: Date) => void | Promise<void>): void;
}

export interface Ids {
  /** A new 24-hex id, optionally with a prefix (`lat-`, `la-`, `pm-`, `ddpy-`). */
  next(prefix?: string): string;
}

/** The dashboard configuration of one merchant in one mode, as the control contract names and describes it. */
export type SandboxSettings = components['schemas']['SandboxSettings'];

export interface Settings {
  /** A copy of the scope's settings, the caller's to change (the control API answers it). */
  get(scope: Scope): Promise<SandboxSettings>;
  /**
   * The scope's settings as they are, without a copy: read them, never change them. What a request or an
   * automatic outcome reads (copying them was three JSON parses per disbursement).
   */
  peek(scope: Scope): Readonly<SandboxSettings>;
  update(scope: Scope, changes: Partial<SandboxSettings>): Promise<SandboxSettings>;
}

/**
 * The durable outbox. `enqueue` is called inside the transaction that changes the object, so the callback
 * is recorded if and only if the change is: a restart loses none, and delivery happens after commit.
 * `url` null means the merchant configured none: the delivery is recorded as failed, not lost silently.
 */
export interface Callbacks {
  enqueue(tx: Transaction, scope: Scope, webhookOperationId: string, payload: Json, url: string | null): Promise<void>;
}

/**
 * Auto-resolve (the control contract's `*_auto_resolve` settings): objects that reach their outcome by
 * themselves. `schedule`, called inside the transaction that starts the countdown, has the module's handler
 * for `kind` run on the object once `delayMs` of its scope's sandbox time have passed (the handler checks
 * that it still applies). Stored, so a restart keeps it.
 */
export interface AutoResolve {
  schedule(tx: Transaction, scope: Scope, kind: string, resourceId: string): Promise<void>;
  /** Sandbox milliseconds from `schedule` to the handler. */
  readonly delayMs: number;
}

/**
 * What a module does when one of its objects' time to auto-resolve has come. `ran` ends the countdown: the
 * handler calls it inside the transaction that decides (and applies) the outcome, so the object's change and
 * the end of its countdown are one transaction; when the handler does not call it, the countdown ends afterwards.
 */
export type AutoResolveHandler = (
  scope: Scope,
  resourceId: string,
  ran: (tx: Transaction) => Promise<void>,
) => Promise<void>;

/** What a module auto-resolves, by the kind it schedules through `ctx.autoResolve`. */
export type AutoResolveHandlers = Readonly<Record<string, AutoResolveHandler>>;

export type AccountType = 'CASH' | 'HOLDING';

export interface Balances {
  get(tx: Transaction, scope: Scope, account: AccountType): Promise<number>;
  /** Adds to the account (money in). */
  credit(tx: Transaction, scope: Scope, account: AccountType, amount: number): Promise<number>;
  /** Takes from the account if it covers `amount`; returns false (and changes nothing) if it does not. */
  debit(tx: Transaction, scope: Scope, account: AccountType, amount: number): Promise<boolean>;
  /**
   * `debit` with the account's read started now: a caller with a read of its own to make first (an
   * idempotency key's lookup) has both sent at once, one round trip under the merchant's lock instead of two.
   */
  prepareDebit(tx: Transaction, scope: Scope, account: AccountType): (amount: number) => Promise<boolean>;
}

/** What an idempotent create stored, to answer a replay. */
export type IdempotencyOutcome<Result> =
  | { kind: 'first'; result: Result }
  | { kind: 'replay'; originalId: string | null }
  | { kind: 'mismatch' };

export interface Idempotency {
  /**
   * Runs `create` at most once per (scope, operation, key). The same key with the same request fingerprint
   * is a replay, with another fingerprint a mismatch; concurrent requests with one key see one `first`.
   * `create` runs inside `tx`'s transaction; `idOf` names the resource it made (for the replay message).
   */
  run<Result>(
    tx: Transaction,
    scope: Scope,
    operationId: string,
    key: string,
    fingerprint: string,
    create: () => Promise<Result>,
    idOf: (result: Result) => string | null,
  ): Promise<IdempotencyOutcome<Result>>;
}

export interface SandboxContext {
  store: Store;
  clock: Clock;
  ids: Ids;
  settings: Settings;
  callbacks: Callbacks;
  balances: Balances;
  idempotency: Idempotency;
  autoResolve: AutoResolve;
}
