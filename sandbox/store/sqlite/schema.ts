// The SQLite store's tables and indexes, and the migration from the layout before them.
// Records are JSON text in one table. Each field a collection looks up or keeps unique gets its own partial
// index on the JSON value (`json_extract`), limited to that collection's rows: SQLite keeps it current on
// every insert and update, a write touches only the indexes of its own collection, and adding a collection
// or a field is an index created at start-up, not a migration.
import type Database from 'better-sqlite3';
import { assertPlainName, type CollectionDefinition } from '../store.js';

/** `PRAGMA user_version` of this layout. 0 is a new file or the first layout (records plus a key table). */
export const SCHEMA_VERSION = 2;

const RECORDS = `
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY,
  collection TEXT NOT NULL,
  merchant_id TEXT NOT NULL,
  mode TEXT NOT NULL,
  id TEXT NOT NULL,
  data TEXT NOT NULL,
  -- id before the scope: a lookup by id alone (across scopes) uses it too.
  UNIQUE (collection, id, merchant_id, mode)
);
-- Index entries with equal columns are in rowid (= seq) order, so a list needs no sort.
CREATE INDEX IF NOT EXISTS records_by_scope ON records (collection, merchant_id, mode);
`;

export interface KeyIndex {
  collection: string;
  field: string;
  unique: boolean;
  /** The SQLite index name (it also names the index in a UNIQUE constraint error). */
  name: string;
  /** The indexed expression; queries must use exactly this text for SQLite to use the index. */
  expression: string;
}

/** The key indexes the collections ask for: one per unique field, one per other indexed field. */
export function keyIndexesOf(collections: readonly CollectionDefinition[]): KeyIndex[] {
  return collections.flatMap((c) => {
    assertPlainName(c.name);
    const unique = c.unique ?? [];
    const fields = [
      ...unique.map((field) => ({ field, unique: true })),
      ...(c.indexed ?? []).filter((field) => !unique.includes(field)).map((field) => ({ field, unique: false })),
    ];
    return fields.map(({ field, unique: isUnique }) => {
      assertPlainName(field);
      return {
        collection: c.name,
        field,
        unique: isUnique,
        name: `${isUnique ? 'unique' : 'key'}__${c.name}__${field}`,
        expression: `json_extract(data, '$.${field}')`,
      };
    });
  });
}

/** Moves a file of the first layout (a key table beside the records) to this one, in one transaction. */
function migrateFromKeyTable(db: Database.Database): void {
  db.transaction(() => {
    db.exec(`
      ALTER TABLE records RENAME TO records_v1;
      ${RECORDS.replace('IF NOT EXISTS records_by_scope', 'records_by_scope')}
      INSERT INTO records (seq, collection, merchant_id, mode, id, data) SELECT seq, collection, merchant_id, mode, id, data FROM records_v1;
      DROP TABLE records_v1;
      DROP TABLE record_keys;
    `);
  })();
}

/**
 * Creates or upgrades the tables, then makes the key indexes match `collections`: missing ones created,
 * ones no collection asks for any more dropped (each costs every write of its collection).
 */
export function prepareSchema(db: Database.Database, keyIndexes: readonly KeyIndex[]): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION)
    throw new Error(
      `store: the data was written by a newer sandbox (layout ${version}; this one knows up to ${SCHEMA_VERSION})`,
    );
  const hasKeyTable =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'record_keys'").get() !== undefined;
  if (hasKeyTable) migrateFromKeyTable(db);
  db.exec(RECORDS);
  const wanted = new Set(keyIndexes.map((index) => index.name));
  const existing = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND (name LIKE 'unique\\_\\_%' ESCAPE '\\' OR name LIKE 'key\\_\\_%' ESCAPE '\\')",
    )
    .all();
  for (const { name } of existing) if (!wanted.has(name)) db.exec(`DROP INDEX "${name}"`);
  for (const index of keyIndexes) {
    db.exec(
      `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${index.name}" ON records (${index.expression}, merchant_id, mode) WHERE collection = '${index.collection}'`,
    );
  }
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}
