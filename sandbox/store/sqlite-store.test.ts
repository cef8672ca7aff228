import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
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
