// Group commit (group-commit.ts) over one better-sqlite3 connection: a group is one SQLite transaction and
// each unit of work a SAVEPOINT in it, so a failed transaction rolls back to its savepoint alone.
import type Database from 'better-sqlite3';
import type { CommitSteps } from '../group-commit.js';

/** Told what became of the writes made since the last call (the store's cache of committed records follows them). */
export interface CommitObserver {
  /** The transaction under way is done; its writes wait for the group's COMMIT. */
  workDone(): void;
  /** The transaction under way was undone alone. */
  workUndone(): void;
  /** The group committed. */
  committed(): void;
  /** The whole SQLite transaction was rolled back, the group with it. */
  abandoned(): void;
}

const NO_OBSERVER: CommitObserver = { workDone() {}, workUndone() {}, committed() {}, abandoned() {} };

export function sqliteCommitSteps(db: Database.Database, observer: CommitObserver = NO_OBSERVER): CommitSteps {
  // Prepared once: `exec` would parse each of these again on every transaction.
  const sql = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    savepoint: db.prepare('SAVEPOINT work'),
    release: db.prepare('RELEASE work'),
    rollbackTo: db.prepare('ROLLBACK TO work'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
  };
  return {
    isOpen: () => db.inTransaction,
    begin: () => void sql.begin.run(),
    startWork: () => void sql.savepoint.run(),
    keepWork: () => {
      sql.release.run();
      observer.workDone();
    },
    undoWork: () => {
      // Some failures (a full disk) make SQLite roll back the whole transaction itself: nothing to undo alone.
      if (!db.inTransaction) throw new Error('SQLite rolled back the whole transaction');
      sql.rollbackTo.run();
      sql.release.run();
      observer.workUndone();
    },
    commit: () => {
      sql.commit.run();
      observer.committed();
    },
    abandon: () => {
      try {
        if (db.inTransaction) sql.rollback.run();
      } catch {
        // Nothing more to undo: SQLite has ended the transaction itself.
      }
      observer.abandoned();
    },
  };
}
