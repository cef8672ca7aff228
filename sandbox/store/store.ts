// The sandbox's one storage interface. Domain code sees collections of JSON records, each scoped to a
// merchant and a mode (test/live never see each other's objects), with lookups and uniqueness on named
// fields. It is asynchronous and transactional so that a PostgreSQL backend (records as jsonb, keys as a
// unique index) can implement it as well as the embedded ones. Each backend is a folder (journal/, sqlite/,
// postgres/) with the same file names; backends.ts lists them.
import type { components } from '@payments-contract/server/sandbox/types';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonRecord = { id: string; [field: string]: Json };

/** A key's mode, as the control contract names it (SandboxInfo.mode). */
export type Mode = components['schemas']['SandboxInfo']['mode'];

/** Whose data a record is. Every read and write names one. */
export interface Scope {
  merchantId: string;
  mode: Mode;
}

export interface CollectionDefinition {
  name: string;
  /** Fields whose value must be unique within a scope (a record may leave them out or null). */
  unique?: string[];
  /** Fields looked up by value (unique fields are looked up too). */
  indexed?: string[];
}

/**
 * Collection and field names are written into SQL by the backends that keep them in tables and indexes (a
 * SQLite partial-index condition must be literal), so they are plain words.
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function assertPlainName(name: string): string {
  if (!NAME.test(name))
    throw new Error(`store: "${name}" is not a plain name (letters, digits, _) for a collection or field`);
  return name;
}

/** Raised by insert/update when a unique field's value is already taken in the scope. */
export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly field: string,
    readonly value: string,
  ) {
    super(`${collection}.${field} ${value} already exists`);
    this.name = 'DuplicateKeyError';
  }
}

/**
 * Raised by insert/update when a record holds text that is not Unicode characters (a lone surrogate) or
 * holds U+0000: PostgreSQL's jsonb cannot keep either, so no store keeps it, and the record is not written.
 * The contract refuses such text in requests (decision `json-body-text`); this is the store's own guard.
 */
export class UnstorableTextError extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
  ) {
    super(`${collection} ${id} holds a lone surrogate or U+0000, which no store keeps`);
    this.name = 'UnstorableTextError';
  }
}

/**
 * JSON.stringify writes a lone surrogate as the escape `\udXXX` in lower case (well-formed stringify, ES2019)
 * and U+0000 as `\u0000`, and nothing else as either: such a `\u` after an even run of backslashes (after an
 * odd one it is a backslash written out, then `u`) is exactly the text no store keeps.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f])/;

/** The record as JSON text, as every store writes it; throws UnstorableTextError for text no store keeps. */
export function recordText(collection: string, record: JsonRecord): string {
  const text = JSON.stringify(record);
  // Most records hold no `\u` escape at all: one scan, and the pattern only when there is one.
  if (text.includes('\\u') && UNSTORABLE_ESCAPE.test(text)) throw new UnstorableTextError(collection, record.id);
  return text;
}

/**
 * `value` and everything in it made unchangeable (Object.freeze at every depth); returns `value`. For JSON
 * data (no cycles). Walked by index and key rather than Object.values: a third of the cost on a delivery.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    for (const key in value) deepFreeze(value[key]);
  }
  return Object.freeze(value);
}

/**
 * A record as a read by id outside a transaction gives it (Store.get): parsed from its stored text and frozen
 * at every depth, so that a store may hand the same object to every such read until the record changes.
 */
export const frozenRecord = <T extends JsonRecord>(text: string): T => deepFreeze(JSON.parse(text) as T);

/** A lookup value no record can hold (see recordText): every store finds nothing for it without asking its data. */
export const isUnstorableValue = (value: string | number | boolean): boolean =>
  typeof value === 'string' && UNSTORABLE_ESCAPE.test(JSON.stringify(value));

/** The data directory is held by another process (another sandbox on the same DATA_DIR). */
export class DataDirInUseError extends Error {
  constructor(readonly file: string) {
    super(`${file} is in use by another process (another sandbox with the same DATA_DIR?)`);
    this.name = 'DataDirInUseError';
  }
}

/** DATA_DIR holds another kind of embedded store than the one asked for, and none of the asked kind. */
export class OtherStoreKindError extends Error {
  constructor(
    readonly dataDir: string,
    readonly found: string,
    readonly file: string,
  ) {
    super(
      `${dataDir} holds a ${found} store (${file}); open it with STORE=${found} (--store ${found}), or give another DATA_DIR`,
    );
    this.name = 'OtherStoreKindError';
  }
}

/**
 * The store cannot reach its data now (its database is down, or did not answer in time). Nothing of the
 * operation is known to be stored unless it was acknowledged; the sandbox answers 503 and the client may retry.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** `error`, or an error it was caused by, is a StoreUnavailableError. */
export function isStoreUnavailable(error: unknown): boolean {
  for (let seen: unknown = error, depth = 0; seen instanceof Error && depth < 5; seen = seen.cause, depth++)
    if (seen instanceof StoreUnavailableError) return true;
  return false;
}

export interface FindOptions {
  /** Newest first (the default) or oldest first, by insertion order. */
  order?: 'newest' | 'oldest';
  /** Leaves out this many records first, in that order (those kept beyond a bound, say). */
  offset?: number;
  limit?: number;
}

/** The part of `items` (in the order asked for) that `options` keeps: after the first `offset`, at most `limit`. */
export function pageOf<T>(items: T[], options: FindOptions | undefined): T[] {
  const offset = options?.offset ?? 0;
  const end = options?.limit === undefined ? items.length : offset + options.limit;
  return offset === 0 && end >= items.length ? items : items.slice(offset, end);
}

/** Reads and writes inside one transaction. */
export interface Transaction {
  get<T extends JsonRecord>(collection: string, scope: Scope, id: string): Promise<T | undefined>;
  /** Records whose indexed (or unique) `field` equals `value`. */
  findBy<T extends JsonRecord>(
    collection: string,
    scope: Scope,
    field: string,
    value: string | number | boolean,
    options?: FindOptions,
  ): Promise<T[]>;
  /** Every record of the collection in the scope. */
  list<T extends JsonRecord>(collection: string, scope: Scope, options?: FindOptions): Promise<T[]>;
  insert<T extends JsonRecord>(collection: string, scope: Scope, record: T): Promise<T>;
  /** Replaces the record with the same id; throws if there is none. */
  update<T extends JsonRecord>(collection: string, scope: Scope, record: T): Promise<T>;
  /** Removes the record with this id; true if there was one. */
  delete(collection: string, scope: Scope, id: string): Promise<boolean>;
  /**
   * Removes the record with this id if there is one, for a caller with no use for whether there was: a store
   * may send it without waiting for its answer (what the transaction reads next still sees it gone, and its
   * failure fails the transaction). A finished job, a run of old deliveries: one round trip for all of them,
   * not one each, while the scope is locked.
   */
  discard(collection: string, scope: Scope, id: string): Promise<void>;
  /** Removes every record of the scope, in every collection (the control API's reset). */
  clearScope(scope: Scope): Promise<void>;
}

/**
 * The scheduler's collection (platform/scheduler.ts): everything the sandbox does later (a callback attempt,
 * an automatic outcome, an expiry) is a job record here, written in the transaction that makes it due, so it
 * exists if and only if that change does. Every store keeps it (include `jobsCollections` in its collections)
 * and claims from it with `Store.claim`.
 */
export const JOBS_COLLECTION = 'sandbox_jobs';
export const jobsCollections: CollectionDefinition[] = [{ name: JOBS_COLLECTION, indexed: ['state', 'run_at_ms'] }];

export interface JobRecord extends JsonRecord {
  /** Which handler runs it (`callback`, an automatic outcome's kind...). */
  kind: string;
  /** What it acts on (a delivery's id, an object's id). */
  target: string;
  /** Always `pending`: a job that is done is deleted. */
  state: 'pending';
  /** When it is due, in its scope's sandbox time (ms since the epoch): an advance of that clock claims by this. */
  due_ms: number;
  /** When it is due in real time at the latest (sandbox time never runs slower): the sweep claims by this. */
  run_at_ms: number;
  /** The scheduler instance holding it, or null. */
  locked_by: string | null;
  /** Real time at which that hold lapses (another instance may then take it), or null. */
  locked_until_ms: number | null;
}

/** Which due jobs a claim takes; each is held by `holder` for `leaseMs` of real time once taken. */
export type ClaimWhich =
  /** Due by real time, in any scope: at most `perScope` of each merchant and mode, and `scopes` scopes. */
  | { due: 'any'; perScope: number; scopes: number }
  /**
   * Due in `scope` by its sandbox time (`dueByMs`, after an advance of its clock): besides free ones, also
   * those another instance holds for later and has not started (its hold is a reservation, taken over here).
   */
  | { due: 'scope'; scope: Scope; dueByMs: number; limit: number }
  /** These jobs, if due by real time and free or already this holder's (its timer fired). */
  | { due: 'named'; jobs: { scope: Scope; id: string }[] };

export interface ClaimRequest {
  holder: string;
  /** Real time now (ms since the epoch). */
  nowMs: number;
  leaseMs: number;
  which: ClaimWhich;
}

export interface Store extends Transaction {
  /**
   * The record as last committed. It is frozen at every depth (deepFreeze): a store may give the same object
   * to every read of an unchanged record, so a reader that wants to change it makes a copy. Parsing it at every
   * read was some 8% of a stored FVA's read (reads alone: 43 -> 39-40 us per request without it).
   */
  get<T extends JsonRecord>(collection: string, scope: Scope, id: string): Promise<T | undefined>;
  /**
   * Runs `work` atomically: it sees no other transaction's partial writes, and either all its writes are
   * stored (durably, before the promise resolves) or none. Transactions do not interleave. Inside `work`,
   * read and write through `tx`: a call on the store itself waits for `work` to end, so it would never return.
   * Reads on the store outside a transaction see committed data only.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Records of a collection, across all scopes, whose indexed field (or `id`) has a value (e.g. due callbacks). */
  findAcrossScopes<T extends JsonRecord>(
    collection: string,
    field: string,
    value: string | number | boolean,
  ): Promise<{ scope: Scope; record: T }[]>;
  /**
   * Takes the due jobs `request` names that no other holder has (or whose hold lapsed), and holds them for
   * `request.holder` until `nowMs + leaseMs`: of several instances claiming at once, each job goes to one.
   * A job this holder already has is taken again. A job taken counts as started (`run_at_ms` at most now).
   */
  claim(request: ClaimRequest): Promise<{ scope: Scope; job: JobRecord }[]>;
  close(): Promise<void>;
  /**
   * True when other processes read and write the same data at the same time (several sandboxes on one
   * PostgreSQL database): what a process keeps in memory (clock offsets, settings) must be read again, and
   * background work (a callback attempt, a progression) must be claimed before it is done.
   */
  readonly shared?: boolean;
  /**
   * Resolves once every transaction under way when it was called has ended. A store whose reads outside a
   * transaction already wait for those (the embedded ones) leaves it out; the others let code that was told
   * about a write inside a transaction look for it once it is committed.
   */
  settled?(): Promise<void>;
}
