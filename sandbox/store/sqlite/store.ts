// The SQLite store (STORE=sqlite): better-sqlite3, one file under DATA_DIR (or in memory).
// Durability: WAL journal with synchronous=NORMAL. A committed transaction is in the WAL file (in the
// operating system's hands) before the caller hears about it, so a crash or kill of the process loses no
// acknowledged write; only a crash of the machine itself could lose the last commits, which the sandbox
// accepts for a several-fold cheaper commit (no fsync per transaction). The option synchronous: 'FULL' restores
// an fsync per commit.
// Tables, indexes and migration: schema.ts.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { CommittedRecords, recordKey } from './committed-records.js';
import { createGroupCommit, storeOver } from '../group-commit.js';
import { sqliteCommitSteps } from './commit-steps.js';
import { keyIndexesOf, prepareSchema, type KeyIndex } from './schema.js';
import {
  assertPlainName,
  DataDirInUseError,
  deepFreeze,
  DuplicateKeyError,
  isUnstorableValue,
  pageOf,
  recordText,
  type CollectionDefinition,
  type FindOptions,
  type JsonRecord,
  type Scope,
  type Store,
  type Transaction,
} from '../store.js';

interface RecordRow {
  data: string;
}

export interface SqliteStoreOptions {
  /** A directory (the file is `sandbox.sqlite3` inside it) or `:memory:`. */
  dataDir: string;
  collections: CollectionDefinition[];
  /** NORMAL (default): survives a process crash. FULL: also a machine crash, at an fsync per commit. */
  synchronous?: 'NORMAL' | 'FULL';
}

/** How many records' committed text is kept in memory for reads by id (the least recently used go first). */
const COMMITTED_RECORDS_CACHED = 10_000;

/** A looked-up value as SQLite compares it with `json_extract`'s result (JSON true/false come out as 1/0). */
const sqlValue = (value: string | number | boolean): string | number =>
  typeof value === 'boolean' ? Number(value) : value;

export const SQLITE_FILE = 'sandbox.sqlite3';

/** STORE=sqlite needs better-sqlite3, an optional dependency of the sandbox package. */
export class SqliteUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      'STORE=sqlite needs better-sqlite3, which is not installed (an optional dependency that compiles natively): install it with `npm install better-sqlite3`, or use the default store',
      { cause },
    );
    this.name = 'SqliteUnavailableError';
  }
}

/**
 * better-sqlite3, loaded when a SQLite store is opened and not before: the default store must run where the
 * native module was never built (it is an optional dependency). It is CommonJS, so require() loads it at once.
 */
function loadSqlite(): typeof Database {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  } catch (error) {
    throw new SqliteUnavailableError(error);
  }
}

export function openSqliteStore(options: SqliteStoreOptions): Store {
  const file = options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, SQLITE_FILE);
  if (file !== ':memory:') mkdirSync(options.dataDir, { recursive: true });
  // No waiting on a lock: with exclusive locking, a held lock means another process owns the file for good.
  const Sqlite = loadSqlite();
  const db = new Sqlite(file, { timeout: 0 });
  // One process owns the file: exclusive locking takes the file lock once instead of per statement, and WAL
  // then keeps its index in process memory (no shared-memory file). A second sandbox on the same DATA_DIR is
  // refused at its first statement rather than interleaving writes with this one.
  db.pragma('locking_mode = EXCLUSIVE');
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db.close();
    if (error instanceof Sqlite.SqliteError && error.code === 'SQLITE_BUSY') throw new DataDirInUseError(file);
    throw error;
  }
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  // Statement rollback data stays in memory instead of a temporary file.
  db.pragma('temp_store = MEMORY');
  // 32 MiB of page cache (the default is 2 MiB), so a busy sandbox reads its hot pages from memory.
  db.pragma('cache_size = -32768');
  // Checkpoint (copy the WAL into the database file, with an fsync) every ~40 MB of WAL rather than SQLite's
  // default ~4 MB: the hot pages of a busy sandbox are copied once per checkpoint, however often they changed.
  // Durability is the same (a commit is in the WAL either way); only the WAL file grows larger between resets.
  db.pragma('wal_autocheckpoint = 10000');
  const keyIndexes = keyIndexesOf(options.collections);
  prepareSchema(db, keyIndexes);

  // Every statement names its collection in the SQL, never as a parameter: with partial indexes on the table
  // (`WHERE collection = '...'`), SQLite would otherwise prepare a statement anew each time it is run, in
  // case the bound collection lets it use one of them. So each collection gets its own statements.
  const statementsOf = (collection: string) => {
    const scope = `collection = '${collection}' AND merchant_id = ? AND mode = ?`;
    return {
      get: db.prepare<[string, string, string], RecordRow>(`SELECT data FROM records WHERE ${scope} AND id = ?`),
      // Paged in SQL (LIMIT -1: no limit): a page past an offset then reads only its own rows.
      listNewest: db.prepare<[string, string, number, number], RecordRow>(
        `SELECT data FROM records WHERE ${scope} ORDER BY seq DESC LIMIT ? OFFSET ?`,
      ),
      listOldest: db.prepare<[string, string, number, number], RecordRow>(
        `SELECT data FROM records WHERE ${scope} ORDER BY seq ASC LIMIT ? OFFSET ?`,
      ),
      insert: db.prepare<[string, string, string, string]>(
        `INSERT INTO records (collection, merchant_id, mode, id, data) VALUES ('${collection}', ?, ?, ?, ?)`,
      ),
      update: db.prepare<[string, string, string, string]>(`UPDATE records SET data = ? WHERE ${scope} AND id = ?`),
      delete: db.prepare<[string, string, string]>(`DELETE FROM records WHERE ${scope} AND id = ?`),
      acrossById: db.prepare<[string], RecordRow & { merchant_id: string; mode: string }>(
        `SELECT data, merchant_id, mode FROM records WHERE collection = '${collection}' AND id = ? ORDER BY seq ASC`,
      ),
    };
  };
  const collections = new Map(options.collections.map((c) => [c.name, statementsOf(assertPlainName(c.name))]));
  const statementsFor = (collection: string) => {
    const found = collections.get(collection);
    if (!found) throw new Error(`unknown collection ${collection}`);
    return found;
  };
  const clearScope = db.prepare<[string, string]>('DELETE FROM records WHERE merchant_id = ? AND mode = ?');
  const keyIndex = new Map(keyIndexes.map((index) => [`${index.collection}.${index.field}`, index]));
  const indexNamed = new Map(keyIndexes.map((index) => [index.name, index]));
  const keyOf = (collection: string, field: string): KeyIndex => {
    if (!collections.has(collection)) throw new Error(`unknown collection ${collection}`);
    const found = keyIndex.get(`${collection}.${field}`);
    if (!found) throw new Error(`${collection}.${field} is not an indexed field`);
    return found;
  };
  // Lookups use a key index, which SQLite does only for a query whose condition is literally the index's.
  const lookups = new Map<string, Database.Statement<unknown[], RecordRow & { merchant_id: string; mode: string }>>();
  const lookup = (index: KeyIndex, shape: 'newest' | 'oldest' | 'newest1' | 'oldest1' | 'across') => {
    const cacheKey = `${index.name} ${shape}`;
    let statement = lookups.get(cacheKey);
    if (!statement) {
      const where = `collection = '${index.collection}' AND ${index.expression} = ?`;
      // A limit written into the SQL: with a bound `LIMIT ?`, SQLite planned a general-purpose sort (measured ~5x slower).
      const order = shape === 'across' || shape.startsWith('oldest') ? 'ASC' : 'DESC';
      const sql =
        shape === 'across'
          ? `SELECT data, merchant_id, mode FROM records WHERE ${where} ORDER BY seq ASC`
          : `SELECT data FROM records WHERE ${where} AND merchant_id = ? AND mode = ? ORDER BY seq ${order}${shape.endsWith('1') ? ' LIMIT 1' : ''}`;
      statement = db.prepare(sql);
      lookups.set(cacheKey, statement);
    }
    return statement;
  };

  /** A unique index's constraint error as the store's DuplicateKeyError; anything else unchanged. */
  const duplicateOf = (error: unknown, record: JsonRecord): unknown => {
    const name = error instanceof Error && /^UNIQUE constraint failed: index '([^']+)'/.exec(error.message)?.[1];
    const index = name ? indexNamed.get(name) : undefined;
    return index ? new DuplicateKeyError(index.collection, index.field, String(record[index.field])) : error;
  };
  /** The first `count` rows of `rows`; the statement is let go of once they are read. */
  const firstRows = <Row>(rows: IterableIterator<Row>, count: number): Row[] => {
    const taken: Row[] = [];
    if (count <= 0) return (rows.return?.(), taken);
    for (const row of rows) if (taken.push(row) === count) break;
    return taken;
  };
  /** The rows `options` keeps, parsed (only those: rows left out by an offset are never parsed). */
  const parsePage = <T>(rows: RecordRow[], options?: FindOptions): T[] =>
    pageOf(rows, options).map((row) => JSON.parse(row.data) as T);

  // Every write is one statement, which SQLite applies whole or not at all: a duplicate key undoes that write
  // and nothing else of the transaction.
  const tx: Transaction = {
    get: async <T extends JsonRecord>(collection: string, scope: Scope, id: string) => {
      const row = statementsFor(collection).get.get(scope.merchantId, scope.mode, id);
      return row ? (JSON.parse(row.data) as T) : undefined;
    },
    findBy: async <T extends JsonRecord>(
      collection: string,
      scope: Scope,
      field: string,
      value: string | number | boolean,
      options?: FindOptions,
    ) => {
      const order = options?.order ?? 'newest';
      const statement = lookup(keyOf(collection, field), options?.limit === 1 ? `${order}1` : order);
      // SQLite would bind a lone surrogate as U+FFFD and find records holding that: no record holds this value.
      if (isUnstorableValue(value)) return [];
      const args = [sqlValue(value), scope.merchantId, scope.mode];
      // With a limit, rows are read only as far as the page ends (the SQL has none, see `lookup`).
      const rows =
        options?.limit === undefined
          ? statement.all(...args)
          : firstRows(statement.iterate(...args), (options.offset ?? 0) + options.limit);
      return parsePage<T>(rows, options);
    },
    list: async <T extends JsonRecord>(collection: string, scope: Scope, options?: FindOptions) => {
      const statements = statementsFor(collection);
      const statement = options?.order === 'oldest' ? statements.listOldest : statements.listNewest;
      return statement
        .all(scope.merchantId, scope.mode, options?.limit ?? -1, options?.offset ?? 0)
        .map((row) => JSON.parse(row.data) as T);
    },
    insert: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
      const text = recordText(collection, record);
      try {
        statementsFor(collection).insert.run(scope.merchantId, scope.mode, record.id, text);
      } catch (error) {
        throw duplicateOf(error, record);
      }
      committedRecords.written(recordKey(collection, scope.merchantId, scope.mode, record.id), text);
      return record;
    },
    update: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
      const text = recordText(collection, record);
      let changed: number;
      try {
        changed = statementsFor(collection).update.run(text, scope.merchantId, scope.mode, record.id).changes;
      } catch (error) {
        throw duplicateOf(error, record);
      }
      if (changed === 0) throw new Error(`${collection} ${record.id} does not exist`);
      committedRecords.written(recordKey(collection, scope.merchantId, scope.mode, record.id), text);
      return record;
    },
    delete: async (collection: string, scope: Scope, id: string) => {
      if (statementsFor(collection).delete.run(scope.merchantId, scope.mode, id).changes === 0) return false;
      committedRecords.deleted(recordKey(collection, scope.merchantId, scope.mode, id));
      return true;
    },
    // Statements run at once, in process: a discard is a delete.
    discard: async (collection: string, scope: Scope, id: string) => void (await tx.delete(collection, scope, id)),
    clearScope: async (scope: Scope) => {
      clearScope.run(scope.merchantId, scope.mode);
      committedRecords.scopeCleared(scope.merchantId, scope.mode);
    },
  };

  const committedRecords = new CommittedRecords(COMMITTED_RECORDS_CACHED);
  const commits = createGroupCommit(sqliteCommitSteps(db, committedRecords));
  const findAcrossScopes = async <T extends JsonRecord>(
    collection: string,
    field: string,
    value: string | number | boolean,
  ) =>
    isUnstorableValue(value)
      ? []
      : (field === 'id'
          ? statementsFor(collection).acrossById.all(String(value))
          : lookup(keyOf(collection, field), 'across').all(sqlValue(value))
        ).map((row) => ({
          scope: { merchantId: row.merchant_id, mode: row.mode as Scope['mode'] },
          record: JSON.parse(row.data) as T,
        }));
  /** A read by id outside a transaction: committed data, from memory when the record was read or written lately. */
  const getCommitted = async <T extends JsonRecord>(
    collection: string,
    scope: Scope,
    id: string,
  ): Promise<T | undefined> => {
    const key = recordKey(collection, scope.merchantId, scope.mode, id);
    const known = committedRecords.record<T>(key);
    if (known !== undefined) return known;
    if (!commits.idle()) return commits.run(async () => deepFreeze(await tx.get<T>(collection, scope, id)));
    const row = statementsFor(collection).get.get(scope.merchantId, scope.mode, id);
    if (!row) return undefined;
    committedRecords.remember(key, row.data);
    return committedRecords.record<T>(key);
  };
  return storeOver(commits, tx, { getCommitted, findAcrossScopes, release: () => db.close() });
}
