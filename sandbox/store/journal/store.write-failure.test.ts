// A journal write that fails (a full disk) fails its whole group and leaves nothing of it, in memory or in
// the file; a write the system takes in parts is completed. The file system's writeSync is replaced here so
// that those failures can be made on demand.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JOURNAL_FILE } from './journal-file.js';
import { openJournalStore } from './store.js';
import { collections, merchantA, thing } from '../testing/store-contract.js';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, writeSync: vi.fn(actual.writeSync) };
});

const dirs: string[] = [];
afterEach(() => {
  vi.mocked(writeSync).mockReset();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-journal-'));
  dirs.push(dir);
  return dir;
};
const actualWriteSync = (await vi.importActual<typeof import('node:fs')>('node:fs')).writeSync;
/** Writes the first 10 bytes of what it is given. */
const partWrite = (fd: number, data: string | NodeJS.ArrayBufferView, offset?: number | null): number =>
  typeof data === 'string' ? actualWriteSync(fd, data.slice(0, 10)) : actualWriteSync(fd, data, offset ?? 0, 10);
const diskFull = (): never => {
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
};

describe('the journal store when writing its journal fails', () => {
  it('fails every transaction of the group, keeps none of their writes, and goes on with the next', async () => {
    const dir = tempDir();
    const store = openJournalStore({ dataDir: dir, collections });
    await store.insert('things', merchantA, thing('before'));
    const journalBefore = readFileSync(join(dir, JOURNAL_FILE), 'utf8');

    // Part of the group's lines reach the file, then the disk is full.
    vi.mocked(writeSync).mockImplementationOnce(partWrite).mockImplementationOnce(diskFull);
    const results = await Promise.allSettled([
      store.insert('things', merchantA, thing('1')),
      store.update('things', merchantA, thing('before', { state: 'closed' })),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await store.get('things', merchantA, '1')).toBeUndefined();
    expect(await store.get('things', merchantA, 'before')).toEqual(thing('before'));
    expect(await store.findBy('things', merchantA, 'state', 'closed')).toEqual([]);
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).toBe(journalBefore);

    // The external_id the failed insert held is free again, and later writes are kept as usual.
    await store.insert('things', merchantA, thing('1'));
    await store.close();
    const reopened = openJournalStore({ dataDir: dir, collections });
    expect((await reopened.list('things', merchantA, { order: 'oldest' })).map((r) => [r.id, r.state])).toEqual([
      ['before', 'open'],
      ['1', 'open'],
    ]);
    await reopened.close();
  });

  it('completes a write that the system took only in part', async () => {
    const dir = tempDir();
    const store = openJournalStore({ dataDir: dir, collections });
    vi.mocked(writeSync).mockImplementationOnce(partWrite);
    await store.insert('things', merchantA, thing('1'));
    await store.close();
    const reopened = openJournalStore({ dataDir: dir, collections });
    expect(await reopened.get('things', merchantA, '1')).toEqual(thing('1'));
    await reopened.close();
  });

  it('keeps the journal as it was when rewriting it fails, fails no transaction, and does not retry at every commit', async () => {
    const dir = tempDir();
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    // Rewritten once past 150 bytes with superseded lines making up most of it: the header and the insert's
    // line stay under that, the update's line takes the journal past it.
    const store = openJournalStore({ dataDir: dir, collections, rewriteAfterBytes: 150 });
    await store.insert('things', merchantA, thing('1'));
    // The update's own line is written; the rewrite that follows it, in the next turn, finds the disk full.
    vi.mocked(writeSync).mockImplementationOnce(actualWriteSync).mockImplementationOnce(diskFull);
    await store.update('things', merchantA, thing('1', { state: 'closed' }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toHaveBeenCalledTimes(1);
    expect(warnings.mock.calls[0]?.[0]).toMatch(/journal could not be rewritten/);
    // The header and one line per commit.
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    expect(existsSync(join(dir, `${JOURNAL_FILE}.rewrite`))).toBe(false);

    // The next commit writes its line and nothing more: no second try until the journal has doubled.
    const writesBefore = vi.mocked(writeSync).mock.calls.length;
    await store.update('things', merchantA, thing('1', { state: 'reopened' }));
    expect(vi.mocked(writeSync).mock.calls.length - writesBefore).toBe(1);
    await store.close();
    warnings.mockRestore();
    const reopened = openJournalStore({ dataDir: dir, collections });
    expect(await reopened.get('things', merchantA, '1')).toEqual(thing('1', { state: 'reopened' }));
    await reopened.close();
  });

  it('opens a journal whose rewrite on opening fails, as it is, and warns', async () => {
    const dir = tempDir();
    const first = openJournalStore({ dataDir: dir, collections });
    await first.insert('things', merchantA, thing('1'));
    for (let n = 0; n < 20; n++) await first.update('things', merchantA, thing('1', { state: `state-${n}` }));
    await first.close();
    const journalBefore = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    vi.mocked(writeSync).mockImplementationOnce(diskFull);
    const store = openJournalStore({ dataDir: dir, collections, rewriteAfterBytes: 0 });
    expect(warnings.mock.calls[0]?.[0]).toMatch(/journal could not be rewritten/);
    warnings.mockRestore();
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).toBe(journalBefore);
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'state-19' }));
    await store.close();
  });

  it('refuses to open a journal of an earlier version it cannot rewrite, and lets go of the directory', async () => {
    const dir = tempDir();
    const versionOne = `${JSON.stringify({ format: 'payments-sandbox journal', version: 1 })}\n${JSON.stringify([['put', 'things', 'm-a', 'test', thing('1')]])}\n`;
    writeFileSync(join(dir, JOURNAL_FILE), versionOne);
    vi.mocked(writeSync).mockImplementationOnce(diskFull);
    expect(() => openJournalStore({ dataDir: dir, collections })).toThrow(/no space left/);
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).toBe(versionOne);
    const store = openJournalStore({ dataDir: dir, collections });
    expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
    await store.close();
  });
});
