// The PostgreSQL store's tables and indexes. One table per collection, in the store's schema: the scope
// (merchant_id, mode) and id as columns, the record as jsonb, and `seq` for insertion order. Each field a
// collection keeps unique or looks up gets an expression index on the record's value, so adding a
// collection or a field is a table or an index made at start-up, never a step by hand. What does need a
// step (a change to tables that hold data) is a versioned migration, applied once, in order, by whichever
// instance starts first: start-up holds an advisory lock, so two instances starting together do not race.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { assertPlainName } from '../store.js';
import type { CollectionDefinition } from '../store.js';

/** Identifiers longer than this are cut by PostgreSQL (NAMEDATALEN - 1). */
const MAX_IDENTIFIER = 63;

/** A plain name as an identifier: kept when it fits, otherwise cut and made unique by a hash of the whole. */
export function identifier(name: string): string {
  if (name.length <= MAX_IDENTIFIER) return name;
  return `${name.slice(0, MAX_IDENTIFIER - 9)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

export const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

export interface KeyIndex {
  collection: string;
  field: string;
  unique: boolean;
  /** The index name (it names the constraint in a unique violation). */
  name: string;
}

export interface CollectionTable {
  collection: string;
  /** Schema-qualified and quoted, ready for SQL. */
  table: string;
  keys: KeyIndex[];
}

/**
 * The key of a field's value as stored and looked up: JSON true/false as 1/0 (the store interface compares a
 * boolean as the number SQLite's json_extract gives), and JSON null as SQL NULL, which a unique index lets
 * any number of records hold.
 */
export const keyOf = (schema: string, field: string, record = 'data'): string =>
  `${quote(schema)}.sandbox_key(${record} -> '${assertPlainName(field)}')`;

/** A looked-up value as the key function gives it, as jsonb text. */
export const keyValue = (value: string | number | boolean): string =>
  JSON.stringify(typeof value === 'boolean' ? Number(value) : value);

export function tablesOf(schema: string, collections: readonly CollectionDefinition[]): CollectionTable[] {
  return collections.map((c) => {
    assertPlainName(c.name);
    const unique = c.unique ?? [];
    const fields = [
      ...unique.map((field) => ({ field, unique: true })),
      ...(c.indexed ?? []).filter((field) => !unique.includes(field)).map((field) => ({ field, unique: false })),
    ];
    return {
      collection: c.name,
      table: `${quote(schema)}.${quote(identifier(`records_${c.name}`))}`,
      keys: fields.map(({ field, unique: isUnique }) => ({
        collection: c.name,
        field: assertPlainName(field),
        unique: isUnique,
        name: identifier(`${c.name}__${field}__${isUnique ? 'unique' : 'key'}`),
      })),
    };
  });
}

interface Migration {
  version: number;
  description: string;
  sql: (schema: string) => string;
}

/** Applied in order, each once, in a transaction of its own. Never edit one that has shipped: add the next. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sandbox_key: the key of a field value in lookups and unique indexes',
    // IMMUTABLE, so indexes may use it; a plain SQL CASE, so the planner inlines it into lookups.
    sql: (
      schema,
    ) => `CREATE OR REPLACE FUNCTION ${quote(schema)}.sandbox_key(value jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT CASE WHEN value = 'true'::jsonb THEN '1'::jsonb WHEN value = 'false'::jsonb THEN '0'::jsonb WHEN value = 'null'::jsonb THEN NULL ELSE value END
    $$`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;

/** The lock that start-ups of one schema take in turn (a 64-bit key from the schema's name). */
export const startupLockKey = (schema: string): string =>
  createHash('sha256').update(`payments-sandbox store start-up\n${schema}`).digest().readBigInt64BE(0).toString();

export class NewerSchemaError extends Error {
  constructor(readonly found: number) {
    super(
      `store: the database was prepared by a newer sandbox (schema version ${found}; this one knows up to ${SCHEMA_VERSION}); upgrade this sandbox`,
    );
    this.name = 'NewerSchemaError';
  }
}

/**
 * Brings the schema up to date on a connection of its own: migrations first, then a table and indexes for
 * every collection (IF NOT EXISTS: what another instance made is kept). Indexes no collection asks for any
 * more are left alone, since an older instance still running may rely on them.
 */
export async function prepareSchema(
  client: pg.ClientBase,
  schema: string,
  tables: readonly CollectionTable[],
): Promise<void> {
  const s = quote(schema);
  await client.query(`SELECT pg_advisory_lock(${startupLockKey(schema)})`);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.sandbox_store_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${s}.sandbox_store_migrations`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) throw new NewerSchemaError(current);
    for (const migration of MIGRATIONS.filter((m) => m.version > current)) {
      await client.query('BEGIN');
      try {
        await client.query(migration.sql(schema));
        await client.query(`INSERT INTO ${s}.sandbox_store_migrations (version, description) VALUES ($1, $2)`, [
          migration.version,
          migration.description,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    for (const { collection, table, keys } of tables) {
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
        seq bigserial NOT NULL,
        merchant_id text NOT NULL,
        mode text NOT NULL,
        id text NOT NULL,
        data jsonb NOT NULL,
        PRIMARY KEY (merchant_id, mode, id)
      )`);
      // A scope's records in insertion order (lists), and a record by id across scopes.
      await client.query(
        `CREATE INDEX IF NOT EXISTS ${quote(identifier(`${collection}__scope_seq`))} ON ${table} (merchant_id, mode, seq)`,
      );
      await client.query(`CREATE INDEX IF NOT EXISTS ${quote(identifier(`${collection}__id`))} ON ${table} (id)`);
      for (const key of keys) {
        // A unique key is unique per scope; a lookup key also carries seq, so a lookup reads in insertion order.
        const columns = key.unique
          ? `(${keyOf(schema, key.field)}), merchant_id, mode`
          : `(${keyOf(schema, key.field)}), merchant_id, mode, seq`;
        await client.query(
          `CREATE ${key.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quote(key.name)} ON ${table} (${columns})`,
        );
      }
    }
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${startupLockKey(schema)})`);
  }
}
