// The embedded store: SQLite through better-sqlite3, in one file under DATA_DIR (or in memory).
// Durability: WAL journal with synchronous=NORMAL. A committed transaction is in the WAL file (in the
// operating system's hands) before the caller hears about it, so a crash or kill of the process loses no
// acknowledged write; only a crash of the machine itself could lose the last commits, which the sandbox
// accepts for a several-fold cheaper commit (no fsync per transaction). The option synchronous: 'FULL' restores
// an fsync per commit.
// Records are JSON text in one table; the fields a collection looks up or keeps unique are copied into a
// key table whose indexes do the work, so adding a collection needs no migration.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuplicateKeyError, type CollectionDefinition, type FindOptions, type JsonRecord, type Scope, type Store, type Transaction } from './store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  collection TEXT NOT NULL,
  merchant_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  id TEXT NOT NULL,
  data TEXT NOT NULL,
  UNIQUE (collection, merchant_id, mode, id)
);
CREATE TABLE IF NOT EXISTS record_keys (
  collection TEXT NOT NULL,
  merchant_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  field TEXT NOT NULL,
  value TEXT NOT NULL,
  id TEXT NOT NULL,
  is_unique INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS record_keys_unique ON record_keys (collection, merchant_id, mode, field, value) WHERE is_unique = 1;
CREATE INDEX IF NOT EXISTS record_keys_lookup ON record_keys (collection, field, value, merchant_id, mode);
CREATE INDEX IF NOT EXISTS record_keys_by_record ON record_keys (collection, merchant_id, mode, id);
`;

interface RecordRow {
  data: string;
}

/** A JSON value as the key table stores it: text, so numbers and strings compare as they were written. */
const keyValue = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value));

export interface SqliteStoreOptions {
  /** A directory (the file is `sandbox.sqlite3` inside it) or `:memory:`. */
  dataDir: string;
  collections: CollectionDefinition[];
  /** NORMAL (default): survives a process crash. FULL: also a machine crash, at an fsync per commit. */
  synchronous?: 'NORMAL' | 'FULL';
}

export function openSqliteStore(options: SqliteStoreOptions): Store {
  const file = options.dataDir === ':memory:' ? ':memory:' : join(options.dataDir, 'sandbox.sqlite3');
  if (file !== ':memory:') mkdirSync(options.dataDir, { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  // Checkpoint (copy the WAL into the database file, with an fsync) every ~40 MB of WAL rather than SQLite's
  // default ~4 MB: the hot pages of a busy sandbox are copied once per checkpoint, however often they changed.
  // Durability is the same (a commit is in the WAL either way); only the WAL file grows larger between resets.
  db.pragma('wal_autocheckpoint = 10000');
  db.exec(SCHEMA);

  const collections = new Map(options.collections.map((c) => [c.name, c]));
  const definition = (name: string): CollectionDefinition => {
    const found = collections.get(name);
    if (!found) throw new Error(`unknown collection ${name}`);
    return found;
  };
  const keyFields = (c: CollectionDefinition): { field: string; unique: boolean }[] => [
    ...(c.unique ?? []).map((field) => ({ field, unique: true })),
    ...(c.indexed ?? []).filter((field) => !(c.unique ?? []).includes(field)).map((field) => ({ field, unique: false })),
  ];

  const statements = {
    get: db.prepare<[string, string, string, string], RecordRow>('SELECT data FROM records WHERE collection = ? AND merchant_id = ? AND mode = ? AND id = ?'),
    findNewest: db.prepare<[string, string, string, string, string, number], RecordRow>(
      'SELECT r.data FROM record_keys k JOIN records r ON r.collection = k.collection AND r.merchant_id = k.merchant_id AND r.mode = k.mode AND r.id = k.id WHERE k.collection = ? AND k.merchant_id = ? AND k.mode = ? AND k.field = ? AND k.value = ? ORDER BY r.seq DESC LIMIT ?',
    ),
    findOldest: db.prepare<[string, string, string, string, string, number], RecordRow>(
      'SELECT r.data FROM record_keys k JOIN records r ON r.collection = k.collection AND r.merchant_id = k.merchant_id AND r.mode = k.mode AND r.id = k.id WHERE k.collection = ? AND k.merchant_id = ? AND k.mode = ? AND k.field = ? AND k.value = ? ORDER BY r.seq ASC LIMIT ?',
    ),
    listNewest: db.prepare<[string, string, string, number], RecordRow>('SELECT data FROM records WHERE collection = ? AND merchant_id = ? AND mode = ? ORDER BY seq DESC LIMIT ?'),
    listOldest: db.prepare<[string, string, string, number], RecordRow>('SELECT data FROM records WHERE collection = ? AND merchant_id = ? AND mode = ? ORDER BY seq ASC LIMIT ?'),
    across: db.prepare<[string, string, string], RecordRow & { merchant_id: string; mode: string }>(
      'SELECT r.data, r.merchant_id, r.mode FROM record_keys k JOIN records r ON r.collection = k.collection AND r.merchant_id = k.merchant_id AND r.mode = k.mode AND r.id = k.id WHERE k.collection = ? AND k.field = ? AND k.value = ? ORDER BY r.seq ASC',
    ),
    insert: db.prepare('INSERT INTO records (collection, merchant_id, mode, id, data) VALUES (?, ?, ?, ?, ?)'),
    update: db.prepare('UPDATE records SET data = ? WHERE collection = ? AND merchant_id = ? AND mode = ? AND id = ?'),
    deleteKeys: db.prepare('DELETE FROM record_keys WHERE collection = ? AND merchant_id = ? AND mode = ? AND id = ?'),
    insertKey: db.prepare('INSERT INTO record_keys (collection, merchant_id, mode, field, value, id, is_unique) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    clearRecords: db.prepare('DELETE FROM records WHERE merchant_id = ? AND mode = ?'),
    clearKeys: db.prepare('DELETE FROM record_keys WHERE merchant_id = ? AND mode = ?'),
  };

  const keyFieldsOf = new Map(options.collections.map((c) => [c.name, keyFields(c)]));
  const writeKeys = (c: CollectionDefinition, scope: Scope, record: JsonRecord): void => {
    for (const { field, unique } of keyFieldsOf.get(c.name) ?? keyFields(c)) {
      const value = keyValue(record[field]);
      if (value === undefined) continue;
      try {
        statements.insertKey.run(c.name, scope.merchantId, scope.mode, field, value, record.id, unique ? 1 : 0);
      } catch (error) {
        if (error instanceof Error && /UNIQUE constraint failed/.test(error.message)) throw new DuplicateKeyError(c.name, field, value);
        throw error;
      }
    }
  };

  const parse = <T>(rows: RecordRow[]): T[] => rows.map((row) => JSON.parse(row.data) as T);
  const limitOf = (options?: FindOptions): number => options?.limit ?? -1;

  // Each write is one SAVEPOINT (a nested better-sqlite3 transaction), so a duplicate key undoes that write and
  // nothing else of the transaction; the wrapping functions are made once, not per call.
  const writes = {
    insert: db.transaction((c: CollectionDefinition, scope: Scope, record: JsonRecord) => {
      statements.insert.run(c.name, scope.merchantId, scope.mode, record.id, JSON.stringify(record));
      writeKeys(c, scope, record);
    }),
    update: db.transaction((c: CollectionDefinition, scope: Scope, record: JsonRecord) => {
      const changed = statements.update.run(JSON.stringify(record), c.name, scope.merchantId, scope.mode, record.id).changes;
      if (changed === 0) throw new Error(`${c.name} ${record.id} does not exist`);
      statements.deleteKeys.run(c.name, scope.merchantId, scope.mode, record.id);
      writeKeys(c, scope, record);
    }),
    clearScope: db.transaction((scope: Scope) => {
      statements.clearRecords.run(scope.merchantId, scope.mode);
      statements.clearKeys.run(scope.merchantId, scope.mode);
    }),
  };

  const tx: Transaction = {
    get: async <T extends JsonRecord>(collection: string, scope: Scope, id: string) => {
      const row = statements.get.get(definition(collection).name, scope.merchantId, scope.mode, id);
      return row ? (JSON.parse(row.data) as T) : undefined;
    },
    findBy: async <T extends JsonRecord>(collection: string, scope: Scope, field: string, value: string | number | boolean, options?: FindOptions) => {
      const statement = options?.order === 'oldest' ? statements.findOldest : statements.findNewest;
      return parse<T>(statement.all(definition(collection).name, scope.merchantId, scope.mode, field, keyValue(value) ?? '', limitOf(options)));
    },
    list: async <T extends JsonRecord>(collection: string, scope: Scope, options?: FindOptions) => {
      const statement = options?.order === 'oldest' ? statements.listOldest : statements.listNewest;
      return parse<T>(statement.all(definition(collection).name, scope.merchantId, scope.mode, limitOf(options)));
    },
    insert: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
      writes.insert(definition(collection), scope, record);
      return record;
    },
    update: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
      writes.update(definition(collection), scope, record);
      return record;
    },
    clearScope: async (scope: Scope) => {
      writes.clearScope(scope);
    },
  };

  // better-sqlite3 is synchronous and a transaction cannot span an await that lets another request in, so
  // transactions run one after another; each holds the database only while its own work runs.
  let queue: Promise<unknown> = Promise.resolve();
  /** Transactions asked for and not yet settled (running or waiting their turn). */
  let pending = 0;
  const transaction = <T>(work: (inner: Transaction) => Promise<T>): Promise<T> => {
    pending += 1;
    const settle = (): void => void (pending -= 1);
    const run = async (): Promise<T> => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(tx);
        db.exec('COMMIT');
        return result;
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    };
    const result = queue.then(run, run);
    queue = result.then(settle, settle);
    return result;
  };

  // Outside `transaction`, each call is a transaction of its own, so it never joins or reads into one that is
  // waiting on an await.
  const single = <A extends unknown[], R>(operation: (...args: A) => Promise<R>) => (...args: A): Promise<R> => transaction(() => operation(...args));
  // A read needs no transaction of its own when none is open or waiting: it then runs at once (one statement,
  // so it sees only committed data), and cannot read into a transaction waiting on an await, since there is none.
  const read = <A extends unknown[], R>(operation: (...args: A) => Promise<R>) => (...args: A): Promise<R> =>
    pending === 0 && !db.inTransaction ? operation(...args) : transaction(() => operation(...args));
  return {
    get: read(tx.get) as Transaction['get'],
    findBy: read(tx.findBy) as Transaction['findBy'],
    list: read(tx.list) as Transaction['list'],
    insert: single(tx.insert) as Transaction['insert'],
    update: single(tx.update) as Transaction['update'],
    clearScope: single(tx.clearScope),
    transaction,
    findAcrossScopes: async <T extends JsonRecord>(collection: string, field: string, value: string | number | boolean) =>
      statements.across.all(definition(collection).name, field, keyValue(value) ?? '').map((row) => ({ scope: { merchantId: row.merchant_id, mode: row.mode as Scope['mode'] }, record: JSON.parse(row.data) as T })),
    close: async () => {
      await queue;
      db.close();
    },
  };
}
