import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGroupCommit } from './group-commit.js';
import { sqliteCommitSteps } from './sqlite/commit-steps.js';

const open = () => {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE things (id TEXT PRIMARY KEY)');
  db.exec('CREATE TABLE parents (id TEXT PRIMARY KEY)');
  db.exec(
    'CREATE TABLE children (id TEXT PRIMARY KEY, parent TEXT REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)',
  );
  db.pragma('foreign_keys = ON');
  const insert = (table: string, id: string, parent?: string) =>
    parent === undefined
      ? db.prepare(`INSERT INTO ${table} (id) VALUES (?)`).run(id)
      : db.prepare(`INSERT INTO ${table} (id, parent) VALUES (?, ?)`).run(id, parent);
  const ids = (table: string) =>
    db
      .prepare<[], { id: string }>(`SELECT id FROM ${table} ORDER BY id`)
      .all()
      .map((row) => row.id);
  const prepare = vi.spyOn(db, 'prepare');
  const commits = createGroupCommit(sqliteCommitSteps(db));
  const commit = prepare.mock.results
    .map((result) => result.value as Database.Statement)
    .find((statement) => statement.source === 'COMMIT');
  prepare.mockRestore();
  if (!commit) throw new Error('no COMMIT statement was prepared');
  return { db, insert, ids, commits, commitRuns: vi.spyOn(commit, 'run') };
};
const nextTurnOfTheEventLoop = () => new Promise((resolve) => setImmediate(resolve));
const dbs: Database.Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

describe('group commit', () => {
  it('commits transactions that arrive together once, and settles none before that commit', async () => {
    const { db, insert, ids, commits, commitRuns } = open();
    dbs.push(db);
    const settled: string[] = [];
    const first = commits.run(async () => insert('things', 'a')).then(() => settled.push('a'));
    const second = commits.run(async () => insert('things', 'b')).then(() => settled.push('b'));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toEqual([]);
    expect(commits.idle()).toBe(false);
    await Promise.all([first, second]);
    expect(settled).toEqual(['a', 'b']);
    expect(commitRuns).toHaveBeenCalledTimes(1);
    expect(ids('things')).toEqual(['a', 'b']);
    expect(commits.idle()).toBe(true);
  });

  it('undoes only the transaction that throws; the rest of its group commits', async () => {
    const { db, insert, ids, commits } = open();
    dbs.push(db);
    const results = await Promise.allSettled([
      commits.run(async () => insert('things', 'a')),
      commits.run(async () => {
        insert('things', 'b');
        throw new Error('changed my mind');
      }),
      commits.run(async () => insert('things', 'c')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(ids('things')).toEqual(['a', 'c']);
  });

  it('never commits in the middle of a transaction that awaits something slow', async () => {
    const { db, insert, ids, commits } = open();
    dbs.push(db);
    let seenInTheMiddle: string[] | undefined;
    const slow = commits.run(async () => {
      insert('things', 'a');
      await new Promise((resolve) => setTimeout(resolve, 20));
      insert('things', 'b');
    });
    const watcher = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seenInTheMiddle = db.inTransaction ? ['still open'] : ids('things');
    })();
    const queued = commits.run(async () => insert('things', 'c'));
    await Promise.all([slow, queued, watcher]);
    expect(seenInTheMiddle).toEqual(['still open']);
    expect(ids('things')).toEqual(['a', 'b', 'c']);
  });

  it('fails every transaction of a group whose COMMIT fails, and stores none of them', async () => {
    const { db, insert, ids, commits } = open();
    dbs.push(db);
    // A deferred foreign key is checked at COMMIT: the orphan child makes the whole commit fail.
    const results = await Promise.allSettled([
      commits.run(async () => insert('things', 'a')),
      commits.run(async () => insert('children', 'orphan', 'nobody')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(ids('things')).toEqual([]);
    expect(ids('children')).toEqual([]);
    expect(db.inTransaction).toBe(false);
    // And the next transaction starts afresh.
    await commits.run(async () => insert('things', 'b'));
    expect(ids('things')).toEqual(['b']);
  });

  it('drains: resolves once everything asked for has settled', async () => {
    const { db, insert, ids, commits } = open();
    dbs.push(db);
    void commits.run(async () => insert('things', 'a'));
    void commits.run(async () => insert('things', 'b'));
    await commits.drained();
    expect(commits.idle()).toBe(true);
    expect(ids('things')).toEqual(['a', 'b']);
    await nextTurnOfTheEventLoop();
  });
});
