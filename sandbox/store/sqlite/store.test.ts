import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from './schema.js';
import { openSqliteStore, SQLITE_FILE } from './store.js';
import { DuplicateKeyError } from '../store.js';
import { collections, describeStoreContract, merchantA, storeFixtures, thing } from '../testing/store-contract.js';

describeStoreContract('sqlite', (dataDir) => openSqliteStore({ dataDir, collections }));

describe('the SQLite store, its own file layout', () => {
  const { open, close, tempDir } = storeFixtures((dataDir) => openSqliteStore({ dataDir, collections }));

  it('moves data written in the first layout (records beside a key table) to this one, keys and all', async () => {
    const dir = tempDir();
    const old = new Database(join(dir, SQLITE_FILE));
    old.exec(`
      CREATE TABLE records (seq INTEGER PRIMARY KEY AUTOINCREMENT, collection TEXT NOT NULL, merchant_id TEXT NOT NULL, mode TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (collection, merchant_id, mode, id));
      CREATE TABLE record_keys (collection TEXT NOT NULL, merchant_id TEXT NOT NULL, mode TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, id TEXT NOT NULL, is_unique INTEGER NOT NULL);
      CREATE UNIQUE INDEX record_keys_unique ON record_keys (collection, merchant_id, mode, field, value) WHERE is_unique = 1;
    `);
    const insert = old.prepare('INSERT INTO records (collection, merchant_id, mode, id, data) VALUES (?, ?, ?, ?, ?)');
    const insertKey = old.prepare('INSERT INTO record_keys VALUES (?, ?, ?, ?, ?, ?, ?)');
    for (const id of ['1', '2']) {
      insert.run('things', merchantA.merchantId, merchantA.mode, id, JSON.stringify(thing(id)));
      insertKey.run('things', merchantA.merchantId, merchantA.mode, 'external_id', `ext-${id}`, id, 1);
    }
    old.close();

    const store = open(dir);
    expect((await store.list('things', merchantA)).map((r) => r.id)).toEqual(['2', '1']);
    expect((await store.findBy('things', merchantA, 'state', 'open', { order: 'oldest' })).map((r) => r.id)).toEqual([
      '1',
      '2',
    ]);
    await expect(store.insert('things', merchantA, thing('3', { external_id: 'ext-1' }))).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await close(store);
    const migrated = new Database(join(dir, SQLITE_FILE));
    expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(migrated.prepare("SELECT name FROM sqlite_master WHERE name = 'record_keys'").all()).toEqual([]);
    migrated.close();
  });

  it('drops the key index of a field no collection indexes any more', async () => {
    const dir = tempDir();
    await close(open(dir));
    const narrower = openSqliteStore({ dataDir: dir, collections: [{ name: 'things', unique: ['external_id'] }] });
    await narrower.close();
    const db = new Database(join(dir, SQLITE_FILE));
    const names = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%things%'")
      .all()
      .map((row) => row.name);
    db.close();
    expect(names).toEqual(['unique__things__external_id']);
  });
});
