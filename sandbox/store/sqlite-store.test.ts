import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from './sqlite-schema.js';
import { DataDirInUseError, openSqliteStore } from './sqlite-store.js';
import { DuplicateKeyError, type JsonRecord, type Scope, type Store } from './store.js';

const collections = [{ name: 'things', unique: ['external_id'], indexed: ['state'] }];
const merchantA: Scope = { merchantId: 'm-a', mode: 'test' };
const merchantALive: Scope = { merchantId: 'm-a', mode: 'live' };
const merchantB: Scope = { merchantId: 'm-b', mode: 'test' };
const dirs: string[] = [];
const stores: Store[] = [];
const open = (dataDir = ':memory:'): Store => {
  const store = openSqliteStore({ dataDir, collections });
  stores.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-store-'));
  dirs.push(dir);
  return dir;
};
const thing = (id: string, extra: Partial<JsonRecord> = {}): JsonRecord => ({ id, external_id: `ext-${id}`, state: 'open', ...extra });

describe('the SQLite store', () => {
  it('keeps merchants and modes apart', async () => {
    const store = open();
    await store.insert('things', merchantA, thing('1'));
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
    expect(await store.get('things', merchantALive, '1')).toBeUndefined();
    expect(await store.get('things', merchantB, '1')).toBeUndefined();
    // The same external_id is free in another scope.
    await store.insert('things', merchantB, thing('1'));
    await store.insert('things', merchantALive, thing('1'));
  });

  it('refuses a duplicate unique value in a scope and stores nothing of that insert', async () => {
    const store = open();
    await store.insert('things', merchantA, thing('1'));
    await expect(store.insert('things', merchantA, thing('2', { external_id: 'ext-1' }))).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await store.get('things', merchantA, '2')).toBeUndefined();
  });

  it('finds by indexed fields, newest first unless told otherwise, and follows updates', async () => {
    const store = open();
    for (const id of ['1', '2', '3']) await store.insert('things', merchantA, thing(id));
    expect((await store.findBy('things', merchantA, 'state', 'open')).map((r) => r.id)).toEqual(['3', '2', '1']);
    expect((await store.findBy('things', merchantA, 'state', 'open', { order: 'oldest', limit: 2 })).map((r) => r.id)).toEqual(['1', '2']);
    await store.update('things', merchantA, thing('2', { state: 'closed' }));
    expect((await store.findBy('things', merchantA, 'state', 'closed')).map((r) => r.id)).toEqual(['2']);
    expect((await store.findAcrossScopes('things', 'state', 'open')).map((r) => r.record.id)).toEqual(['1', '3']);
  });

  it('rolls a failed transaction back entirely', async () => {
    const store = open();
    await expect(
      store.transaction(async (tx) => {
        await tx.insert('things', merchantA, thing('1'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await store.get('things', merchantA, '1')).toBeUndefined();
  });

  it('runs concurrent transactions one after another: ten claims of one key, one winner', async () => {
    const store = open();
    const claim = (id: string) =>
      store.transaction(async (tx) => {
        if ((await tx.findBy('things', merchantA, 'external_id', 'once')).length > 0) return false;
        await tx.insert('things', merchantA, thing(id, { external_id: 'once' }));
        return true;
      });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(String(i))));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('clears one scope without touching another', async () => {
    const store = open();
    await store.insert('things', merchantA, thing('1'));
    await store.insert('things', merchantB, thing('1'));
    await store.clearScope(merchantA);
    expect(await store.list('things', merchantA)).toEqual([]);
    expect(await store.list('things', merchantB)).toHaveLength(1);
    await store.insert('things', merchantA, thing('1'));
  });

  it('refuses an update that would duplicate a unique value, and keeps the record as it was', async () => {
    const store = open();
    await store.insert('things', merchantA, thing('1'));
    await store.insert('things', merchantA, thing('2'));
    await expect(store.update('things', merchantA, thing('2', { external_id: 'ext-1', state: 'closed' }))).rejects.toEqual(new DuplicateKeyError('things', 'external_id', 'ext-1'));
    expect(await store.get('things', merchantA, '2')).toEqual(thing('2'));
  });

  it('lets a record leave a unique field out or null, any number of times', async () => {
    const store = open();
    await store.insert('things', merchantA, { id: '1', state: 'open' });
    await store.insert('things', merchantA, { id: '2', state: 'open', external_id: null });
    await store.insert('things', merchantA, { id: '3', state: 'open', external_id: null });
    expect(await store.list('things', merchantA, { order: 'oldest' })).toHaveLength(3);
  });

  it('lists a scope in insertion order, either way, with a limit', async () => {
    const store = open();
    for (const id of ['b', 'c', 'a']) await store.insert('things', merchantA, thing(id));
    await store.insert('things', merchantB, thing('z'));
    expect((await store.list('things', merchantA)).map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect((await store.list('things', merchantA, { order: 'oldest', limit: 2 })).map((r) => r.id)).toEqual(['b', 'c']);
  });

  it('says so when asked to look up a field its collection does not index, or an unknown collection', async () => {
    const store = open();
    await expect(store.findBy('things', merchantA, 'name', 'x')).rejects.toThrow('things.name is not an indexed field');
    await expect(store.get('nothings', merchantA, '1')).rejects.toThrow('unknown collection nothings');
  });

  it('refuses a second store on the same data directory while the first has it open', async () => {
    const dir = tempDir();
    const first = open(dir);
    await first.insert('things', merchantA, thing('1'));
    expect(() => open(dir)).toThrow(DataDirInUseError);
    await first.close();
    stores.splice(stores.indexOf(first), 1);
    expect(await open(dir).get('things', merchantA, '1')).toEqual(thing('1'));
  });

  it('moves data written in the first layout (records beside a key table) to this one, keys and all', async () => {
    const dir = tempDir();
    const old = new Database(join(dir, 'sandbox.sqlite3'));
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
    expect((await store.findBy('things', merchantA, 'state', 'open', { order: 'oldest' })).map((r) => r.id)).toEqual(['1', '2']);
    await expect(store.insert('things', merchantA, thing('3', { external_id: 'ext-1' }))).rejects.toBeInstanceOf(DuplicateKeyError);
    await store.close();
    stores.splice(0);
    const migrated = new Database(join(dir, 'sandbox.sqlite3'));
    expect(migrated.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(migrated.prepare("SELECT name FROM sqlite_master WHERE name = 'record_keys'").all()).toEqual([]);
    migrated.close();
  });

  it('drops the key index of a field no collection indexes any more', async () => {
    const dir = tempDir();
    await open(dir).close();
    stores.splice(0);
    const narrower = openSqliteStore({ dataDir: dir, collections: [{ name: 'things', unique: ['external_id'] }] });
    await narrower.close();
    const db = new Database(join(dir, 'sandbox.sqlite3'));
    const names = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%things%'").all().map((row) => row.name);
    db.close();
    expect(names).toEqual(['unique__things__external_id']);
  });

  it('answers a read by id with committed data only: not what an open group wrote, and not what was undone', async () => {
    const store = open();
    await store.insert('things', merchantA, thing('1'));
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
    const update = store.update('things', merchantA, thing('1', { state: 'closed' }));
    // The update is done but not committed yet (the group commits at the end of this turn of the event loop).
    await Promise.resolve();
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
    await update;
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'closed' }));

    await expect(
      store.transaction(async (tx) => {
        await tx.update('things', merchantA, thing('1', { state: 'reopened' }));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'closed' }));
  });

  it('gives each reader its own copy of a record', async () => {
    const store = open();
    await store.insert('things', merchantA, thing('1'));
    const first = await store.get('things', merchantA, '1');
    if (first) first.state = 'scribbled on';
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
  });

  it('forgets a cleared scope in reads by id, and only that scope', async () => {
    const store = open();
    await store.insert('things', merchantA, thing('1'));
    await store.insert('things', merchantB, thing('1'));
    expect(await store.get('things', merchantA, '1')).toBeDefined();
    expect(await store.get('things', merchantB, '1')).toBeDefined();
    await store.clearScope(merchantA);
    expect(await store.get('things', merchantA, '1')).toBeUndefined();
    expect(await store.get('things', merchantB, '1')).toEqual(thing('1'));
  });

  it('keeps every acknowledged write when the process is killed (SIGKILL) right after', async () => {
    const dir = tempDir();
    const writer = fileURLToPath(new URL('./testing/crash-writer.ts', import.meta.url));
    // Node itself runs the writer (tsx as a loader, not a wrapper process), so the SIGKILL hits the writer.
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acknowledged = 0;
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        acknowledged = Math.max(acknowledged, ...chunk.toString().split('\n').filter(Boolean).map(Number));
        if (acknowledged >= 50) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const store = open(dir);
    const stored = await store.list('things', merchantA);
    expect(stored.length).toBeGreaterThanOrEqual(acknowledged);
  }, 60_000);
});
