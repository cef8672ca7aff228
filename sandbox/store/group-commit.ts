// Transactions over one better-sqlite3 connection, committed in groups.
// better-sqlite3 is synchronous and a transaction cannot span an await that lets another request in, so
// transactions run one after another. Each runs inside a SAVEPOINT of one open SQLite transaction; the COMMIT
// comes once the event loop has run what was ready (setImmediate), so requests that arrived together share
// one commit: the pages they all touch (table ends, index pages, the file header) are written once. A
// transaction's promise settles only after that COMMIT, so nothing is acknowledged before it is durable,
// and a transaction that throws is rolled back to its savepoint without touching the others of its group.
import type Database from 'better-sqlite3';

export interface GroupCommit {
  /** Runs `work` as one transaction; resolves with its result once it is committed. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** True when no transaction is running, waiting its turn or waiting for its commit. */
  idle(): boolean;
  /** Resolves when every transaction asked for so far has settled. */
  drained(): Promise<void>;
}

/** A transaction waiting for its group's COMMIT. */
interface Settling {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * One transaction until it settles (once): its result waits here for the group's COMMIT. A class rather than
 * closures made per transaction, which cost more under tsx (it names each one at run time).
 */
class Member<T> implements Settling {
  #settled = false;
  #result: T | undefined;

  constructor(
    private readonly resolveWith: (value: T) => void,
    private readonly rejectWith: (error: unknown) => void,
    private readonly onSettled: () => void,
  ) {}

  /** Its work is done; it resolves with `result` when the group commits. */
  done(result: T): void {
    this.#result = result;
  }

  resolve(): void {
    if (this.#settle()) this.resolveWith(this.#result as T);
  }

  reject(error: unknown): void {
    if (this.#settle()) this.rejectWith(error);
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.onSettled();
    return true;
  }
}

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

export function createGroupCommit(db: Database.Database, observer: CommitObserver = NO_OBSERVER): GroupCommit {
  // Prepared once: `exec` would parse each of these again on every transaction.
  const sql = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    savepoint: db.prepare('SAVEPOINT work'),
    release: db.prepare('RELEASE work'),
    rollbackTo: db.prepare('ROLLBACK TO work'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
  };
  /** The turn of the next transaction: each waits for the one before it (and for a commit between them). */
  let turn: Promise<void> = Promise.resolve();
  /** Transactions asked for and not yet settled. */
  let pending = 0;
  /** Transactions done in the open SQLite transaction, settled by its COMMIT. */
  let group: Settling[] = [];

  const rollBackAll = (): void => {
    try {
      if (db.inTransaction) sql.rollback.run();
    } catch {
      // Nothing more to undo: SQLite has ended the transaction itself.
    }
  };
  /** Settles the group with `error`: its work is gone with the SQLite transaction. */
  const failGroup = (error: unknown): void => {
    for (const member of group.splice(0)) member.reject(error);
  };
  const commit = (): void => {
    // Nothing open: the group (if any) was already failed when its transaction went.
    if (!db.inTransaction) return;
    try {
      sql.commit.run();
    } catch (error) {
      rollBackAll();
      observer.abandoned();
      failGroup(error);
      return;
    }
    observer.committed();
    for (const member of group.splice(0)) member.resolve();
  };
  // Queued as a turn of its own, so it never lands in the middle of a transaction awaiting something.
  const scheduleCommit = (): void => void setImmediate(() => (turn = turn.then(commit)));

  /** Undoes the work of the transaction that failed, or, if SQLite already rolled everything back, fails the group. */
  const undo = (error: unknown): void => {
    try {
      if (db.inTransaction) {
        sql.rollbackTo.run();
        sql.release.run();
        observer.workUndone();
        return;
      }
    } catch {
      // The savepoint could not be undone alone: the whole transaction goes, and the group with it.
      rollBackAll();
    }
    // Some failures (a full disk) make SQLite roll back the whole transaction itself.
    observer.abandoned();
    failGroup(error);
  };

  const run = <T>(work: () => Promise<T>): Promise<T> => {
    pending += 1;
    return new Promise<T>((resolve, reject) => {
      const member = new Member<T>(resolve, reject, () => (pending -= 1));
      turn = turn
        .then(async () => {
          if (!db.inTransaction) {
            sql.begin.run();
            scheduleCommit();
          }
          sql.savepoint.run();
          try {
            const result = await work();
            sql.release.run();
            observer.workDone();
            member.done(result);
            group.push(member);
          } catch (error) {
            undo(error);
            throw error;
          }
        })
        // Every turn settles its transaction and leaves the chain resolved, so one failure never stalls the rest.
        .catch((error: unknown) => member.reject(error));
    });
  };

  return {
    run,
    idle: () => pending === 0 && !db.inTransaction,
    drained: async () => {
      while (pending > 0) {
        await turn;
        // The commit is queued from setImmediate: let it join the turns first.
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}
