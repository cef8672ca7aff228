import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  deleteOperation,
  JournalFile,
  JOURNAL_FILE,
  JOURNAL_HEADER,
  JOURNAL_VERSION,
  journalLine,
  putOperation,
} from './journal-file.js';
import { DataDirInUseError } from '../store.js';
import { openJournalStore } from './store.js';
import {
  collections,
  describeStoreContract,
  merchantA,
  merchantB,
  storeFixtures,
  thing,
} from '../testing/store-contract.js';

describeStoreContract('journal', (dataDir) => openJournalStore({ dataDir, collections }));

describe('the journal store, its own file', () => {
  const { open, close, tempDir } = storeFixtures((dataDir) => openJournalStore({ dataDir, collections }));
  const journalOf = (dir: string): string => join(dir, JOURNAL_FILE);
  /** The journal's lines after its header (which is checked). */
  const linesOf = (dir: string): string[] => {
    const [header, ...lines] = readFileSync(journalOf(dir), 'utf8').split('\n').filter(Boolean);
    expect(`${header}\n`).toBe(JOURNAL_HEADER);
    return lines;
  };

  it('writes one line per committed transaction, with its writes in order', async () => {
    const dir = tempDir();
    const store = open(dir);
    await store.transaction(async (tx) => {
      await tx.insert('things', merchantA, thing('1'));
      await tx.update('things', merchantA, thing('1', { state: 'closed' }));
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.insert('things', merchantA, thing('2'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await store.clearScope(merchantB);
    expect(linesOf(dir).map((line) => JSON.parse(line) as unknown)).toEqual([
      [
        ['put', 'things', 'm-a', 'test', thing('1')],
        ['put', 'things', 'm-a', 'test', thing('1', { state: 'closed' })],
      ],
      [['clear', 'm-b', 'test']],
    ]);
  });

  it('reads everything back in order on opening: records, lookups, uniqueness and cleared scopes', async () => {
    const dir = tempDir();
    const first = open(dir);
    for (const id of ['b', 'c', 'a']) await first.insert('things', merchantA, thing(id));
    await first.update('things', merchantA, thing('c', { state: 'closed' }));
    await first.insert('things', merchantB, thing('z'));
    await first.clearScope(merchantB);
    await close(first);

    const again = open(dir);
    expect((await again.list('things', merchantA)).map((r) => r.id)).toEqual(['a', 'c', 'b']);
    expect((await again.findBy('things', merchantA, 'state', 'closed')).map((r) => r.id)).toEqual(['c']);
    expect(await again.list('things', merchantB)).toEqual([]);
    await expect(again.insert('things', merchantA, thing('d', { external_id: 'ext-a' }))).rejects.toThrow(
      'things.external_id ext-a already exists',
    );
  });

  it('writes a delete as an operation of its line, and reads it back on opening', async () => {
    const dir = tempDir();
    const first = open(dir);
    for (const id of ['1', '2', '3']) await first.insert('things', merchantA, thing(id));
    await first.delete('things', merchantA, '2');
    await close(first);
    expect(JSON.parse(linesOf(dir).at(-1)!)).toEqual([['delete', 'things', 'm-a', 'test', '2']]);

    const again = open(dir);
    expect((await again.list('things', merchantA)).map((r) => r.id)).toEqual(['3', '1']);
    await again.insert('things', merchantA, thing('4', { external_id: 'ext-2' }));
  });

  it('reads a journal of the first version (no deletes), and rewrites it under its own header before adding to it', async () => {
    const dir = tempDir();
    const versionOne = `${JSON.stringify({ format: 'payments-sandbox journal', version: 1 })}\n`;
    writeFileSync(
      journalOf(dir),
      `${versionOne}${JSON.stringify([['put', 'things', 'm-a', 'test', thing('1')]])}\n${JSON.stringify([['put', 'things', 'm-a', 'test', thing('1', { state: 'closed' })]])}\n`,
    );
    const store = open(dir);
    expect(linesOf(dir).map((line) => JSON.parse(line) as unknown)).toEqual([
      [['put', 'things', 'm-a', 'test', thing('1', { state: 'closed' })]],
    ]);
    await store.delete('things', merchantA, '1');
    await close(store);
    expect(await open(dir).get('things', merchantA, '1')).toBeUndefined();
  });

  it('cuts off a last line torn by a kill in the middle of a write (never acknowledged), and goes on from there', async () => {
    const dir = tempDir();
    const first = open(dir);
    await first.insert('things', merchantA, thing('1'));
    await close(first);
    const intact = statSync(journalOf(dir)).size;
    appendFileSync(journalOf(dir), '[["put","things","m-a","test",{"id":"2","ext');

    const again = open(dir);
    expect(statSync(journalOf(dir)).size).toBe(intact);
    expect((await again.list('things', merchantA)).map((r) => r.id)).toEqual(['1']);
    await again.insert('things', merchantA, thing('3'));
    await close(again);
    expect((await open(dir).list('things', merchantA)).map((r) => r.id)).toEqual(['3', '1']);
  });

  it('refuses to open a journal with a damaged line before its end, rather than skip what it held', async () => {
    const dir = tempDir();
    writeFileSync(
      journalOf(dir),
      `${JOURNAL_HEADER}${JSON.stringify([['put', 'things', 'm-a', 'test', thing('1')]])}\n{damaged\n${JSON.stringify([['put', 'things', 'm-a', 'test', thing('2')]])}\n`,
    );
    expect(() => open(dir)).toThrow(/line 3 is damaged/);
  });

  it('names the line it cannot apply on opening, such as a value a newly unique field finds twice', async () => {
    const dir = tempDir();
    const loose = openJournalStore({ dataDir: dir, collections: [{ name: 'things' }] });
    await loose.insert('things', merchantA, thing('1', { external_id: 'same' }));
    await loose.insert('things', merchantA, thing('2', { external_id: 'same' }));
    await loose.close();
    expect(() => open(dir)).toThrow(/line 3 cannot be applied: things.external_id same already exists/);
    // The failed opening let go of the directory.
    await openJournalStore({ dataDir: dir, collections: [{ name: 'things' }] }).close();
  });

  it('refuses a journal written by a newer sandbox, and a file that is no journal', () => {
    const dir = tempDir();
    writeFileSync(
      journalOf(dir),
      `${JSON.stringify({ format: 'payments-sandbox journal', version: JOURNAL_VERSION + 1 })}\n`,
    );
    expect(() => open(dir)).toThrow(/written by a newer sandbox/);
    writeFileSync(journalOf(dir), `${JSON.stringify([['put', 'things', 'm-a', 'test', thing('1')]])}\n`);
    expect(() => open(dir)).toThrow(/is not a sandbox journal/);
  });

  it('rewrites a journal made mostly of superseded lines with one line per live record, and loses nothing', async () => {
    const dir = tempDir();
    const store = openJournalStore({ dataDir: dir, collections, rewriteAfterBytes: 4096 });
    await store.insert('things', merchantA, thing('kept'));
    await store.insert('things', merchantB, thing('cleared'));
    await store.clearScope(merchantB);
    await store.insert('things', merchantA, thing('busy'));
    for (let n = 0; n < 100; n++) await store.update('things', merchantA, thing('busy', { state: `state-${n}` }));
    await store.close();
    // Rewritten (the cleared scope and the early states are gone), and never let grow far past the threshold.
    const lines = linesOf(dir);
    expect(JSON.parse(lines[0]!)).toEqual([['put', 'things', 'm-a', 'test', thing('kept')]]);
    expect(lines.some((line) => line.includes('cleared') || line.includes('state-0"'))).toBe(false);
    expect(statSync(journalOf(dir)).size).toBeLessThan(4096 + 200);

    const again = open(dir);
    expect((await again.list('things', merchantA, { order: 'oldest' })).map((r) => [r.id, r.state])).toEqual([
      ['kept', 'open'],
      ['busy', 'state-99'],
    ]);
    expect((await again.findBy('things', merchantA, 'state', 'state-99')).map((r) => r.id)).toEqual(['busy']);
    expect(await again.list('things', merchantB)).toEqual([]);
  });

  it('rewrites each live record as the line a transaction of that put alone appends, multi-byte and outsized text included', async () => {
    const dir = tempDir();
    const store = openJournalStore({ dataDir: dir, collections });
    // Past the rewrite's 1 MiB buffer once encoded (three bytes per character), and text of every UTF-8 length.
    const large = thing('large', { note: '€'.repeat(400_000) });
    const records = [
      [merchantA, thing('a1', { note: 'Grüße, ☕ and 🧾' })],
      [merchantB, thing('b1')],
      [merchantA, large],
      [merchantB, thing('b2', { note: 'ü'.repeat(1000) })],
    ] as const;
    for (const [scope, record] of records) await store.insert('things', scope, record);
    const appended = linesOf(dir);
    await store.close();

    const file = new JournalFile({ dataDir: dir, synchronous: 'NORMAL' }, () => undefined);
    file.rewrite(
      records.map(([scope, record]) => ({
        collection: 'things',
        merchantId: scope.merchantId,
        mode: scope.mode,
        text: JSON.stringify(record),
      })),
    );
    file.close();
    expect(linesOf(dir)).toEqual(appended);
    expect(statSync(journalOf(dir)).size).toBe(file.size);
    const again = open(dir);
    expect(await again.get('things', merchantA, 'large')).toEqual(large);
    expect((await again.list('things', merchantB, { order: 'oldest' })).map((r) => r.id)).toEqual(['b1', 'b2']);
  });

  it('rewrites in steps of about a megabyte, keeping the lines appended meanwhile after the records, and finishes a rewrite under way when closed', async () => {
    const dir = tempDir();
    const file = new JournalFile({ dataDir: dir, synchronous: 'NORMAL' }, () => undefined);
    // 30 records of 100 kB: three steps at least.
    const live = Array.from({ length: 30 }, (_, n) => ({
      collection: 'things',
      merchantId: merchantA.merchantId,
      mode: merchantA.mode,
      text: JSON.stringify(thing(String(n), { note: 'x'.repeat(100_000) })),
    }));
    file.beginRewrite(live);
    expect(file.rewriting).toBe(true);
    expect(file.rewriteStep()).toBe(false);
    // Committed while the rewrite is under way: after the records it took, in the replacement too.
    const appended = [
      journalLine([
        putOperation('things', merchantA.merchantId, merchantA.mode, JSON.stringify(thing('0', { state: 'closed' }))),
      ]),
      journalLine([deleteOperation('things', merchantA.merchantId, merchantA.mode, '1')]),
    ];
    for (const line of appended) file.append(line);
    expect(file.rewriteStep()).toBe(false);
    expect(linesOf(dir)).toEqual(appended.map((line) => line.trimEnd()));
    file.close();

    expect(linesOf(dir)).toEqual([
      ...live.map(({ text }) =>
        journalLine([putOperation('things', merchantA.merchantId, merchantA.mode, text)]).trimEnd(),
      ),
      ...appended.map((line) => line.trimEnd()),
    ]);
    expect(statSync(journalOf(dir)).size).toBe(file.size);
    const again = open(dir);
    expect(await again.get('things', merchantA, '0')).toEqual(thing('0', { state: 'closed' }));
    expect(await again.get('things', merchantA, '1')).toBeUndefined();
    expect((await again.list('things', merchantA)).length).toBe(29);
  });

  it('goes on committing while it rewrites the journal, a step per turn, and loses none of those commits', async () => {
    const dir = tempDir();
    const append = JournalFile.prototype.append;
    const committedWhileRewriting: boolean[] = [];
    const spy = vi.spyOn(JournalFile.prototype, 'append').mockImplementation(function (this: JournalFile, text) {
      committedWhileRewriting.push(this.rewriting);
      append.call(this, text);
    });
    const step = vi.spyOn(JournalFile.prototype, 'rewriteStep');
    const store = openJournalStore({ dataDir: dir, collections, rewriteAfterBytes: 1024 });
    const note = 'y'.repeat(100_000);
    for (let n = 0; n < 40; n++) await store.insert('things', merchantA, thing(String(n), { note }));
    // Each update supersedes a line of 100 kB: past twice the live data, a rewrite of 4 MB begins.
    for (let round = 1; round <= 3; round++)
      for (let n = 0; n < 40; n++)
        await store.update('things', merchantA, thing(String(n), { note, state: `s${round}` }));
    await store.close();
    spy.mockRestore();
    expect(committedWhileRewriting.filter(Boolean).length).toBeGreaterThan(0);
    expect(step.mock.calls.length).toBeGreaterThan(3);
    step.mockRestore();

    const again = open(dir);
    const states = (await again.list('things', merchantA, { order: 'oldest' })).map((record) => [
      record.id,
      record.state,
    ]);
    expect(states).toEqual(Array.from({ length: 40 }, (_, n) => [String(n), 's3']));
    // 16 MB were appended in all; a rewrite left the live 4 MB and what was committed while it was under way.
    expect(statSync(journalOf(dir)).size).toBeLessThan(4 * 40 * 100_000);
  });

  it('rewrites a journal once deleted records make up most of it', async () => {
    const dir = tempDir();
    const store = openJournalStore({ dataDir: dir, collections, rewriteAfterBytes: 4096 });
    await store.insert('things', merchantA, thing('kept'));
    for (let n = 0; n < 100; n++) {
      await store.insert('things', merchantA, thing(`gone-${n}`));
      await store.delete('things', merchantA, `gone-${n}`);
    }
    await store.close();
    expect(linesOf(dir).some((line) => line.includes('gone-0"'))).toBe(false);
    expect(statSync(journalOf(dir)).size).toBeLessThan(4096 + 200);
    expect((await open(dir).list('things', merchantA)).map((r) => r.id)).toEqual(['kept']);
  });

  it('rewrites again only once the journal has doubled since its last rewrite, even where records are small beside their lines', async () => {
    const dir = tempDir();
    const rewrite = vi.spyOn(JournalFile.prototype, 'beginRewrite');
    const store = openJournalStore({ dataDir: dir, collections: [{ name: 'tiny' }], rewriteAfterBytes: 1024 });
    // Each record's text is a fraction of its line, so the live data alone would call for a rewrite at every commit.
    for (let n = 0; n < 100; n++) await store.insert('tiny', merchantA, { id: String(n) });
    await store.close();
    // From 1 KiB to about 4 KiB, doubling each time: two or three rewrites, not one per commit past 1 KiB.
    expect(rewrite.mock.calls.length).toBeGreaterThan(0);
    expect(rewrite.mock.calls.length).toBeLessThanOrEqual(3);
    rewrite.mockRestore();
    expect(await open(dir).list('tiny', merchantA)).toHaveLength(100);
  });

  it('keeps the records of a collection it no longer defines, through a rewrite', async () => {
    const dir = tempDir();
    const wider = openJournalStore({ dataDir: dir, collections: [...collections, { name: 'retired' }] });
    await wider.insert('retired', merchantA, { id: 'old' });
    await wider.close();
    const narrower = openJournalStore({ dataDir: dir, collections, rewriteAfterBytes: 0 });
    await narrower.insert('things', merchantA, thing('1'));
    await narrower.close();
    const back = openJournalStore({ dataDir: dir, collections: [...collections, { name: 'retired' }] });
    expect(await back.get('retired', merchantA, 'old')).toEqual({ id: 'old' });
    await back.close();
  });

  it('answers reads by id while a group that deleted records waits for its commit, with committed data and without waiting for that commit', async () => {
    const store = open(tempDir());
    await store.insert('things', merchantA, thing('kept'));
    await store.insert('things', merchantA, thing('deleted'));
    await store.insert('things', merchantA, thing('replaced'));
    const order: string[] = [];
    let done!: () => void;
    const workDone = new Promise<void>((resolve) => (done = resolve));
    const deletion = store
      .transaction(async (tx) => {
        await tx.delete('things', merchantA, 'deleted');
        await tx.delete('things', merchantA, 'replaced');
        await tx.insert('things', merchantA, thing('replaced', { state: 'new' }));
        await tx.insert('things', merchantA, thing('fleeting'));
        await tx.delete('things', merchantA, 'fleeting');
        done();
      })
      .then(() => order.push('committed'));
    // Its work is done; its group commits once this turn of the event loop is over.
    await workDone;
    const reads = Promise.all(
      ['kept', 'deleted', 'replaced', 'fleeting'].map((id) => store.get('things', merchantA, id)),
    ).then((found) => (order.push('read'), found));
    expect(await reads).toEqual([thing('kept'), thing('deleted'), thing('replaced'), undefined]);
    await deletion;
    expect(order).toEqual(['read', 'committed']);
    expect(await store.get('things', merchantA, 'deleted')).toBeUndefined();
    expect(await store.get('things', merchantA, 'replaced')).toEqual(thing('replaced', { state: 'new' }));
  });

  it('takes over the lock of a sandbox that died without releasing it', async () => {
    const dir = tempDir();
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(`${journalOf(dir)}.lock`, `${gone}\n`);
    const store = open(dir);
    await store.insert('things', merchantA, thing('1'));
    expect(readFileSync(`${journalOf(dir)}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid} \\d+\n$`));
  });

  it('takes over a lock left under its own process id by an earlier process (a restarted container)', async () => {
    const dir = tempDir();
    writeFileSync(`${journalOf(dir)}.lock`, `${process.pid} 1\n`);
    const store = open(dir);
    await store.insert('things', merchantA, thing('1'));
    expect(() => open(dir)).toThrow(DataDirInUseError);
  });
});
