// What every backend of the store interface (store.ts) must do, run against each of them by its own test
// file. A PostgreSQL backend would pass the same.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreKind } from '../open-store.js';
import {
  DataDirInUseError,
  DuplicateKeyError,
  JOBS_COLLECTION,
  jobsCollections,
  UnstorableTextError,
  type CollectionDefinition,
  type JobRecord,
  type JsonRecord,
  type Scope,
  type Store,
} from '../store.js';

export const collections: CollectionDefinition[] = [
  { name: 'things', unique: ['external_id'], indexed: ['state'] },
  ...jobsCollections,
];
export const merchantA: Scope = { merchantId: 'm-a', mode: 'test' };
const merchantALive: Scope = { merchantId: 'm-a', mode: 'live' };
export const merchantB: Scope = { merchantId: 'm-b', mode: 'test' };
export const thing = (id: string, extra: Partial<JsonRecord> = {}): JsonRecord => ({
  id,
  external_id: `ext-${id}`,
  state: 'open',
  ...extra,
});

/** Opens stores and temporary directories for one test file, and closes and removes them after each test. */
export function storeFixtures<Opened extends Store | Promise<Store>>(openKind: (dataDir: string) => Opened) {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const opening: Promise<unknown>[] = [];
  afterEach(async () => {
    await Promise.allSettled(opening.splice(0));
    await Promise.all(stores.splice(0).map((s) => s.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** A store of the kind, or the promise of one for a kind that opens asynchronously (PostgreSQL). */
    open: (dataDir = ':memory:'): Opened => {
      const opened = openKind(dataDir);
      if (opened instanceof Promise) opening.push(opened.then((store: Store) => void stores.push(store)));
      else stores.push(opened);
      return opened;
    },
    /** Closes `store` now (it is not closed again after the test). */
    close: async (store: Store): Promise<void> => {
      stores.splice(stores.indexOf(store), 1);
      await store.close();
    },
    tempDir: (): string => {
      const dir = mkdtempSync(join(tmpdir(), 'sandbox-store-'));
      dirs.push(dir);
      return dir;
    },
  };
}

/** An update whose transaction fails is never seen by a read by id (record 1 stays `closed`). */
async function expectUndoneUpdateUnread(store: Store): Promise<void> {
  await expect(
    store.transaction(async (tx) => {
      await tx.update('things', merchantA, thing('1', { state: 'reopened' }));
      throw new Error('changed my mind');
    }),
  ).rejects.toThrow('changed my mind');
  expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'closed' }));
}

/** A free job due at `dueMs` (sandbox time) and `runAtMs` (real time). */
const job = (id: string, dueMs: number, runAtMs = dueMs): JobRecord => ({
  id,
  kind: 'test',
  target: id,
  state: 'pending',
  due_ms: dueMs,
  run_at_ms: runAtMs,
  locked_by: null,
  locked_until_ms: null,
});
const ids = (claimed: { job: JobRecord }[]): string[] => claimed.map((entry) => entry.job.id).sort();
const anyDue = { due: 'any', perScope: 16, scopes: 16 } as const;

export interface ContractOptions {
  /**
   * The "data directory" names data that several stores (several processes) use at once (a PostgreSQL
   * schema): a second store on it shares the data instead of being refused.
   */
  sharedData?: boolean;
}

export function describeStoreContract(
  kind: StoreKind | 'postgres',
  openKind: (dataDir: string) => Store | Promise<Store>,
  options: ContractOptions = {},
): void {
  const { open, close, tempDir } = storeFixtures(openKind);

  describe(`the ${kind} store`, () => {
    it('keeps merchants and modes apart', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
      expect(await store.get('things', merchantALive, '1')).toBeUndefined();
      expect(await store.get('things', merchantB, '1')).toBeUndefined();
      // The same external_id is free in another scope.
      await store.insert('things', merchantB, thing('1'));
      await store.insert('things', merchantALive, thing('1'));
    });

    it('refuses a duplicate unique value in a scope and stores nothing of that insert', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      await expect(store.insert('things', merchantA, thing('2', { external_id: 'ext-1' }))).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      expect(await store.get('things', merchantA, '2')).toBeUndefined();
    });

    it('finds by indexed fields, newest first unless told otherwise, and follows updates', async () => {
      const store = await open();
      for (const id of ['1', '2', '3']) await store.insert('things', merchantA, thing(id));
      expect((await store.findBy('things', merchantA, 'state', 'open')).map((r) => r.id)).toEqual(['3', '2', '1']);
      expect(
        (await store.findBy('things', merchantA, 'state', 'open', { order: 'oldest', limit: 2 })).map((r) => r.id),
      ).toEqual(['1', '2']);
      await store.update('things', merchantA, thing('2', { state: 'closed' }));
      expect((await store.findBy('things', merchantA, 'state', 'closed')).map((r) => r.id)).toEqual(['2']);
      expect((await store.findAcrossScopes('things', 'state', 'open')).map((r) => r.record.id)).toEqual(['1', '3']);
    });

    it('rolls a failed transaction back entirely', async () => {
      const store = await open();
      await expect(
        store.transaction(async (tx) => {
          await tx.insert('things', merchantA, thing('1'));
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await store.get('things', merchantA, '1')).toBeUndefined();
    });

    it("undoes a failed transaction's updates and cleared scopes, lookups and unique values included", async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      await store.insert('things', merchantB, thing('2'));
      await expect(
        store.transaction(async (tx) => {
          await tx.update('things', merchantA, thing('1', { external_id: 'renamed', state: 'closed' }));
          await tx.clearScope(merchantB);
          await tx.insert('things', merchantB, thing('3', { external_id: 'ext-2' }));
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
      expect((await store.findBy('things', merchantA, 'state', 'open')).map((r) => r.id)).toEqual(['1']);
      expect(await store.findBy('things', merchantA, 'state', 'closed')).toEqual([]);
      expect(await store.findBy('things', merchantA, 'external_id', 'renamed')).toEqual([]);
      expect((await store.list('things', merchantB)).map((r) => r.id)).toEqual(['2']);
      await expect(store.insert('things', merchantB, thing('4', { external_id: 'ext-2' }))).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      await store.insert('things', merchantA, thing('5', { external_id: 'renamed' }));
    });

    it("keeps lookups in insertion order when a record's value changes and changes back", async () => {
      const store = await open();
      for (const id of ['1', '2', '3']) await store.insert('things', merchantA, thing(id));
      await store.update('things', merchantA, thing('1', { state: 'closed' }));
      await store.update('things', merchantA, thing('1', { state: 'open' }));
      expect((await store.findBy('things', merchantA, 'state', 'open')).map((r) => r.id)).toEqual(['3', '2', '1']);
      expect(
        (await store.findBy('things', merchantA, 'state', 'open', { order: 'oldest', limit: 1 })).map((r) => r.id),
      ).toEqual(['1']);
    });

    it('finds values as JSON types compare: a number is not its string, a boolean is 1 or 0', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('n', { state: 1 }));
      await store.insert('things', merchantA, thing('s', { state: '1' }));
      await store.insert('things', merchantA, thing('b', { state: true }));
      expect((await store.findBy('things', merchantA, 'state', '1')).map((r) => r.id)).toEqual(['s']);
      expect((await store.findBy('things', merchantA, 'state', 1)).map((r) => r.id)).toEqual(['b', 'n']);
      expect((await store.findBy('things', merchantA, 'state', true)).map((r) => r.id)).toEqual(['b', 'n']);
    });

    // Text that is not Unicode characters (a lone surrogate) or holds U+0000: PostgreSQL's jsonb keeps
    // neither, so every store refuses it the same way, writes nothing, and finds nothing by it (decision
    // `json-body-text` refuses it in requests). Every other text is kept exactly.
    const UNSTORABLE: [string, Partial<JsonRecord>][] = [
      ['a lone high surrogate', { state: 'a\ud800' }],
      ['a lone low surrogate', { state: '\udc00' }],
      ['a high surrogate before a pair', { note: '\ud800\ud83d\ude00' }],
      ['U+0000 in a nested value', { metadata: { note: ['a\u0000b'] } }],
      ['U+0000 in a member name', { metadata: { 'a\u0000': 1 } }],
      ['a lone surrogate in a member name', { metadata: { '\ud800': 'x' } }],
      ['a lone surrogate after an escaped backslash', { note: '\\\ud800' }],
    ];
    it.each(UNSTORABLE)(
      'refuses %s with UnstorableTextError, on insert, update and in a transaction, writing nothing',
      async (_name, extra) => {
        const store = await open();
        await expect(store.insert('things', merchantA, thing('1', extra))).rejects.toBeInstanceOf(UnstorableTextError);
        expect(await store.get('things', merchantA, '1')).toBeUndefined();
        await store.insert('things', merchantA, thing('1'));
        await expect(store.update('things', merchantA, thing('1', extra))).rejects.toBeInstanceOf(UnstorableTextError);
        await expect(
          store.transaction(async (tx) => {
            await tx.insert('things', merchantA, thing('2'));
            await tx.update('things', merchantA, thing('1', extra));
          }),
        ).rejects.toBeInstanceOf(UnstorableTextError);
        expect(await store.list('things', merchantA)).toEqual([thing('1')]);
      },
    );

    it('keeps every other text exactly: pairs, astral characters, control characters, escapes written out', async () => {
      const store = await open();
      const texts = {
        pair: '\ud83d\ude00 😀',
        controls: '\u0001\u001f\u007f\u2028\u2029',
        last: '\uffff\ufffd',
        written: '\\u0000 \\ud800 \\\\u0000',
        quote: '"\\"',
      };
      const kept = thing('1', { ...texts, metadata: { 'k😀\u0001': ['é', '\\ud800'] } });
      await store.insert('things', merchantA, kept);
      expect(await store.get('things', merchantA, '1')).toEqual(kept);
      await store.insert('things', merchantA, thing('2', { state: '\ufffd' }));
      await store.insert('things', merchantA, thing('3', { state: '\\u0000' }));
      expect((await store.findBy('things', merchantA, 'state', '\ufffd')).map((r) => r.id)).toEqual(['2']);
      expect((await store.findBy('things', merchantA, 'state', '\\u0000')).map((r) => r.id)).toEqual(['3']);
      // Nothing holds a lone surrogate or U+0000, so nothing is found by one (not the U+FFFD a driver makes of it).
      for (const value of ['\ud800', 'a\u0000', '\udc00']) {
        expect(await store.findBy('things', merchantA, 'state', value)).toEqual([]);
        expect(await store.findAcrossScopes('things', 'state', value)).toEqual([]);
      }
    });

    it('finds a record by id across scopes', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      await store.insert('things', merchantB, thing('1'));
      await store.insert('things', merchantB, thing('2'));
      expect((await store.findAcrossScopes('things', 'id', '1')).map((found) => found.scope.merchantId)).toEqual([
        'm-a',
        'm-b',
      ]);
    });

    it('finds across scopes what changed after an earlier lookup across scopes, undone changes left out', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      const across = async (field: string, value: string) =>
        (await store.findAcrossScopes('things', field, value)).map(
          (found) => `${found.scope.merchantId}/${found.record.id}`,
        );
      expect(await across('state', 'open')).toEqual(['m-a/1']);
      expect(await across('id', '1')).toEqual(['m-a/1']);
      await store.insert('things', merchantB, thing('1'));
      await store.insert('things', merchantB, thing('2'));
      await store.update('things', merchantA, thing('1', { state: 'closed' }));
      await expect(
        store.transaction(async (tx) => {
          await tx.insert('things', merchantA, thing('3'));
          await tx.delete('things', merchantB, '2');
          throw new Error('undone');
        }),
      ).rejects.toThrow('undone');
      expect(await across('state', 'open')).toEqual(['m-b/1', 'm-b/2']);
      expect(await across('state', 'closed')).toEqual(['m-a/1']);
      expect(await across('id', '1')).toEqual(['m-a/1', 'm-b/1']);
      expect(await across('id', '3')).toEqual([]);
      await store.delete('things', merchantB, '1');
      await store.clearScope(merchantA);
      expect(await across('state', 'open')).toEqual(['m-b/2']);
      expect(await across('state', 'closed')).toEqual([]);
      expect(await across('id', '1')).toEqual([]);
    });

    it('runs concurrent transactions one after another: ten claims of one key, one winner', async () => {
      const store = await open();
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
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      await store.insert('things', merchantB, thing('1'));
      await store.clearScope(merchantA);
      expect(await store.list('things', merchantA)).toEqual([]);
      expect(await store.list('things', merchantB)).toHaveLength(1);
      await store.insert('things', merchantA, thing('1'));
    });

    it('deletes a record of one scope: gone from reads, lookups and lists, its unique values free again', async () => {
      const store = await open();
      for (const id of ['1', '2', '3']) await store.insert('things', merchantA, thing(id));
      await store.insert('things', merchantB, thing('2'));
      expect(await store.delete('things', merchantA, '2')).toBe(true);
      expect(await store.delete('things', merchantA, '2')).toBe(false);
      expect(await store.get('things', merchantA, '2')).toBeUndefined();
      expect((await store.list('things', merchantA)).map((r) => r.id)).toEqual(['3', '1']);
      expect((await store.findBy('things', merchantA, 'state', 'open')).map((r) => r.id)).toEqual(['3', '1']);
      expect((await store.findAcrossScopes('things', 'id', '2')).map((found) => found.scope)).toEqual([merchantB]);
      await store.insert('things', merchantA, thing('4', { external_id: 'ext-2' }));
    });

    it('undoes a delete with its transaction, the record back in its place', async () => {
      const store = await open();
      for (const id of ['1', '2', '3']) await store.insert('things', merchantA, thing(id));
      await expect(
        store.transaction(async (tx) => {
          await tx.delete('things', merchantA, '2');
          await tx.delete('things', merchantA, '3');
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect((await store.list('things', merchantA, { order: 'oldest' })).map((r) => r.id)).toEqual(['1', '2', '3']);
      expect((await store.findBy('things', merchantA, 'state', 'open', { order: 'oldest' })).map((r) => r.id)).toEqual([
        '1',
        '2',
        '3',
      ]);
      await expect(store.insert('things', merchantA, thing('4', { external_id: 'ext-2' }))).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
    });

    it('discards a record: gone for what its transaction reads next and once committed, undone with it, a missing one no error', async () => {
      const store = await open();
      for (const id of ['1', '2', '3', '4']) await store.insert('things', merchantA, thing(id));
      await store.transaction(async (tx) => {
        await tx.discard('things', merchantA, '2');
        await tx.discard('things', merchantA, 'never-stored');
        expect(await tx.get('things', merchantA, '2')).toBeUndefined();
        expect((await tx.list('things', merchantA, { order: 'oldest' })).map((r) => r.id)).toEqual(['1', '3', '4']);
      });
      expect(await store.get('things', merchantA, '2')).toBeUndefined();
      await expect(
        store.transaction(async (tx) => {
          await tx.discard('things', merchantA, '3');
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await store.get('things', merchantA, '3')).toEqual(thing('3'));
      await store.discard('things', merchantA, '4');
      expect((await store.list('things', merchantA, { order: 'oldest' })).map((r) => r.id)).toEqual(['1', '3']);
      // Its unique value is free again.
      await store.insert('things', merchantA, thing('5', { external_id: 'ext-2' }));
    });

    it('lists and finds past an offset, in the order asked for', async () => {
      const store = await open();
      for (const id of ['1', '2', '3', '4']) await store.insert('things', merchantA, thing(id));
      expect((await store.list('things', merchantA, { offset: 1 })).map((r) => r.id)).toEqual(['3', '2', '1']);
      expect(
        (await store.list('things', merchantA, { order: 'oldest', offset: 1, limit: 2 })).map((r) => r.id),
      ).toEqual(['2', '3']);
      expect((await store.findBy('things', merchantA, 'state', 'open', { offset: 3 })).map((r) => r.id)).toEqual(['1']);
      expect(await store.list('things', merchantA, { offset: 4 })).toEqual([]);
    });

    it('finds a page of a lookup, either way, and reads and writes on after it in the same transaction', async () => {
      const store = await open();
      for (const id of ['1', '2', '3', '4', '5']) await store.insert('things', merchantA, thing(id));
      const ids = (records: JsonRecord[]): string[] => records.map((r) => r.id);
      await store.transaction(async (tx) => {
        expect(ids(await tx.findBy('things', merchantA, 'state', 'open', { limit: 2 }))).toEqual(['5', '4']);
        expect(ids(await tx.findBy('things', merchantA, 'state', 'open', { offset: 2, limit: 2 }))).toEqual(['3', '2']);
        expect(
          ids(await tx.findBy('things', merchantA, 'state', 'open', { order: 'oldest', offset: 1, limit: 3 })),
        ).toEqual(['2', '3', '4']);
        expect(await tx.findBy('things', merchantA, 'state', 'open', { limit: 0 })).toEqual([]);
        // A lookup stopped at its page has let go of what it read: the same transaction goes on.
        await tx.insert('things', merchantA, thing('6'));
        expect(ids(await tx.findBy('things', merchantA, 'state', 'open', { limit: 2 }))).toEqual(['6', '5']);
      });
    });

    it('refuses an update that would duplicate a unique value, and keeps the record as it was', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      await store.insert('things', merchantA, thing('2'));
      await expect(
        store.update('things', merchantA, thing('2', { external_id: 'ext-1', state: 'closed' })),
      ).rejects.toEqual(new DuplicateKeyError('things', 'external_id', 'ext-1'));
      expect(await store.get('things', merchantA, '2')).toEqual(thing('2'));
    });

    it('lets a record leave a unique field out or null, any number of times', async () => {
      const store = await open();
      await store.insert('things', merchantA, { id: '1', state: 'open' });
      await store.insert('things', merchantA, { id: '2', state: 'open', external_id: null });
      await store.insert('things', merchantA, { id: '3', state: 'open', external_id: null });
      expect(await store.list('things', merchantA, { order: 'oldest' })).toHaveLength(3);
    });

    it('lists a scope in insertion order, either way, with a limit', async () => {
      const store = await open();
      for (const id of ['b', 'c', 'a']) await store.insert('things', merchantA, thing(id));
      await store.insert('things', merchantB, thing('z'));
      expect((await store.list('things', merchantA)).map((r) => r.id)).toEqual(['a', 'c', 'b']);
      expect((await store.list('things', merchantA, { order: 'oldest', limit: 2 })).map((r) => r.id)).toEqual([
        'b',
        'c',
      ]);
    });

    it('says so when asked to look up a field its collection does not index, or an unknown collection', async () => {
      const store = await open();
      await expect(store.findBy('things', merchantA, 'name', 'x')).rejects.toThrow(
        'things.name is not an indexed field',
      );
      await expect(store.get('nothings', merchantA, '1')).rejects.toThrow('unknown collection nothings');
    });

    if (options.sharedData) {
      it('shares the data with a second store opened on it, each seeing what the other committed', async () => {
        const dir = tempDir();
        const first = await open(dir);
        const second = await open(dir);
        await first.insert('things', merchantA, thing('1'));
        expect(await second.get('things', merchantA, '1')).toEqual(thing('1'));
        await expect(second.insert('things', merchantA, thing('2', { external_id: 'ext-1' }))).rejects.toBeInstanceOf(
          DuplicateKeyError,
        );
        await close(first);
        expect(await (await open(dir)).get('things', merchantA, '1')).toEqual(thing('1'));
      });
    } else {
      it('refuses a second store on the same data directory while the first has it open', async () => {
        const dir = tempDir();
        const first = await open(dir);
        await first.insert('things', merchantA, thing('1'));
        expect(() => open(dir)).toThrow(DataDirInUseError);
        await close(first);
        expect(await (await open(dir)).get('things', merchantA, '1')).toEqual(thing('1'));
      });
    }

    if (options.sharedData) {
      it('answers a read by id with committed data only: not what an open transaction wrote, and not what was undone', async () => {
        const store = await open();
        await store.insert('things', merchantA, thing('1'));
        let wrote!: () => void;
        let finish!: () => void;
        const written = new Promise<void>((resolve) => (wrote = resolve));
        const finished = new Promise<void>((resolve) => (finish = resolve));
        // Reads do not wait for a transaction of another process, so this one stays open while the store is read.
        const update = store.transaction(async (tx) => {
          await tx.update('things', merchantA, thing('1', { state: 'closed' }));
          wrote();
          await finished;
        });
        await written;
        expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
        finish();
        await update;
        expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'closed' }));

        await expectUndoneUpdateUnread(store);
      });
    } else {
      it('answers a read by id with committed data only: not what an open group wrote, and not what was undone', async () => {
        const store = await open();
        await store.insert('things', merchantA, thing('1'));
        expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
        const update = store.update('things', merchantA, thing('1', { state: 'closed' }));
        // The update is done but not committed yet (the group commits at the end of this turn of the event loop).
        await Promise.resolve();
        expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
        await update;
        expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'closed' }));

        await expectUndoneUpdateUnread(store);
      });
    }

    it('never answers a read by id with a delete that is then undone', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      let read: Promise<JsonRecord | undefined> | undefined;
      await expect(
        store.transaction(async (tx) => {
          await tx.delete('things', merchantA, '1');
          read = store.get('things', merchantA, '1');
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await read).toEqual(thing('1'));
    });

    it('gives a read by id the record frozen at every depth, so no reader changes what the next one reads', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1', { tags: ['a'], owner: { name: 'A' } }));
      // Read again and again: a store may hand every read the same object once it has been read before.
      for (let read = 0; read < 3; read++) {
        const record = (await store.get('things', merchantA, '1')) as JsonRecord & {
          tags: string[];
          owner: JsonRecord;
        };
        expect(() => (record.state = 'scribbled on')).toThrow(TypeError);
        expect(() => record.tags.push('b')).toThrow(TypeError);
        expect(() => (record.owner.name = 'B')).toThrow(TypeError);
        expect(record).toEqual(thing('1', { tags: ['a'], owner: { name: 'A' } }));
      }
      // Inside a transaction each read is the transaction's own copy, to change and write back.
      await store.transaction(async (tx) => {
        const record = await tx.get('things', merchantA, '1');
        if (record) record.state = 'changed in a transaction';
        expect(record?.state).toBe('changed in a transaction');
      });
      expect((await store.get('things', merchantA, '1'))?.state).toBe('open');
    });

    it('gives a read by id the record as last committed, however often it was read before', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      for (let read = 0; read < 3; read++) expect(await store.get('things', merchantA, '1')).toEqual(thing('1'));
      await store.update('things', merchantA, thing('1', { state: 'closed' }));
      expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'closed' }));
      // An update undone leaves the committed record as it was.
      await expect(
        store.transaction(async (tx) => {
          await tx.update('things', merchantA, thing('1', { state: 'reopened' }));
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      for (let read = 0; read < 3; read++)
        expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'closed' }));
      await store.delete('things', merchantA, '1');
      expect(await store.get('things', merchantA, '1')).toBeUndefined();
      await store.insert('things', merchantA, thing('1', { state: 'new' }));
      expect(await store.get('things', merchantA, '1')).toEqual(thing('1', { state: 'new' }));
    });

    it('forgets a cleared scope in reads by id, and only that scope', async () => {
      const store = await open();
      await store.insert('things', merchantA, thing('1'));
      await store.insert('things', merchantB, thing('1'));
      expect(await store.get('things', merchantA, '1')).toBeDefined();
      expect(await store.get('things', merchantB, '1')).toBeDefined();
      await store.clearScope(merchantA);
      expect(await store.get('things', merchantA, '1')).toBeUndefined();
      expect(await store.get('things', merchantB, '1')).toEqual(thing('1'));
    });

    it('claims each due job for one holder at a time, until its hold lapses; a job not yet due for none', async () => {
      const store = await open();
      await store.insert(JOBS_COLLECTION, merchantA, job('due', 1000));
      await store.insert(JOBS_COLLECTION, merchantB, job('later', 5000));
      const claim = (holder: string, nowMs: number) => store.claim({ holder, nowMs, leaseMs: 100, which: anyDue });
      const first = await claim('a', 1000);
      expect(first).toMatchObject([{ scope: merchantA, job: { id: 'due', locked_by: 'a', locked_until_ms: 1100 } }]);
      expect(await claim('b', 1050)).toEqual([]);
      // The holder itself takes it again (its timer, or its sweep, meets it once more).
      expect(ids(await claim('a', 1060))).toEqual(['due']);
      // Lapsed: another takes it over.
      expect(ids(await claim('b', 1200))).toEqual(['due']);
      expect(ids(await claim('b', 5000))).toEqual(['due', 'later']);
    });

    it('claims fairly between merchants and modes: at most perScope of each, from at most `scopes` of them', async () => {
      const store = await open();
      for (let n = 0; n < 10; n++) await store.insert(JOBS_COLLECTION, merchantA, job(`busy-${n}`, 100 + n));
      await store.insert(JOBS_COLLECTION, merchantALive, job('live', 500));
      await store.insert(JOBS_COLLECTION, merchantB, job('quiet', 900));
      const claimed = await store.claim({
        holder: 'a',
        nowMs: 1000,
        leaseMs: 100,
        which: { due: 'any', perScope: 2, scopes: 10 },
      });
      // The busy merchant's oldest two, and the other mode's and merchant's one each, though they are younger.
      expect(ids(claimed)).toEqual(['busy-0', 'busy-1', 'live', 'quiet']);
      const fewer = await store.claim({
        holder: 'b',
        nowMs: 1000,
        leaseMs: 100,
        which: { due: 'any', perScope: 1, scopes: 1 },
      });
      expect(fewer).toHaveLength(1);
    });

    it('claims one merchant and mode by its own clock, named jobs by real time, and each job once when claimed at once', async () => {
      const store = await open();
      // Due at 2000 in the scope's time, at the latest at 9000 in real time (its clock was ahead).
      await store.insert(JOBS_COLLECTION, merchantA, job('ahead', 2000, 9000));
      await store.insert(JOBS_COLLECTION, merchantB, job('other', 2000, 9000));
      const byScope = (holder: string) =>
        store.claim({
          holder,
          nowMs: 1000,
          leaseMs: 100,
          which: { due: 'scope', scope: merchantA, dueByMs: 2000, limit: 10 },
        });
      expect(ids(await byScope('a'))).toEqual(['ahead']);
      expect(await byScope('b')).toEqual([]);
      const named = (nowMs: number) =>
        store.claim({
          holder: 'c',
          nowMs,
          leaseMs: 100,
          which: { due: 'named', jobs: [{ scope: merchantB, id: 'other' }] },
        });
      expect(await named(8999)).toEqual([]);
      expect(ids(await named(9000))).toEqual(['other']);

      for (let n = 0; n < 40; n++) await store.insert(JOBS_COLLECTION, merchantA, job(`many-${n}`, 100));
      const racing = await Promise.all(
        ['x', 'y', 'z'].map((holder) =>
          store.claim({ holder, nowMs: 100, leaseMs: 1000, which: { due: 'any', perScope: 100, scopes: 10 } }),
        ),
      );
      const taken = racing.flatMap(ids);
      expect(taken).toHaveLength(40);
      expect(new Set(taken).size).toBe(40);
    });

    it('keeps every acknowledged write when the process is killed (SIGKILL) right after', async () => {
      const dir = tempDir();
      const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
      // Node itself runs the writer (tsx as a loader, not a wrapper process), so the SIGKILL hits the writer.
      const child = spawn(process.execPath, ['--import', 'tsx', writer, kind, dir], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
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
      const store = await open(dir);
      const stored = await store.list('things', merchantA);
      expect(stored.length).toBeGreaterThanOrEqual(acknowledged);
    }, 60_000);
  });
}
