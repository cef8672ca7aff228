// Transactions committed in groups, for a store whose writes are synchronous (better-sqlite3, or records in
// memory with a journal). A transaction cannot span an await that lets another request in, so transactions
// run one after another, each as a unit of work inside one open group. The group commits once the event loop
// has run what was ready (setImmediate), so requests that arrived together share one commit: one write of the
// pages, or of the journal, they all touch. A transaction's promise settles only after that commit, so
// nothing is acknowledged before it is durable, and a transaction that throws is undone without touching the
// others of its group. What a commit, an undo or a group is, the store says (CommitSteps); when they happen,
// this module decides.

import { createLocalClaims } from './local-claims.js';
import type { Store, Transaction } from './store.js';

/** The store's side of group commit. Each step runs synchronously between awaits. */
export interface CommitSteps {
  /** True while a group is open: begun, and neither committed nor abandoned. */
  isOpen(): boolean;
  /** Opens a group, before its first transaction. */
  begin(): void;
  /** A transaction of the open group starts. */
  startWork(): void;
  /** The transaction under way ended well: its writes join the group's. */
  keepWork(): void;
  /** Undoes the writes of the transaction under way, alone. Throws if it cannot; the group is then abandoned. */
  undoWork(): void;
  /** Makes the group's writes durable and closes it. Throws if it cannot; the group is then abandoned. */
  commit(): void;
  /** Undoes the whole group (after a failed commit or undo) and closes it. Never throws. */
  abandon(): void;
}

export interface GroupCommit {
  /** Runs `work` as one transaction; resolves with its result once it is committed. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** True when no transaction is running, waiting its turn or waiting for its commit. */
  idle(): boolean;
  /** Resolves when every transaction asked for so far has settled. */
  drained(): Promise<void>;
}

/** A transaction waiting for its group's commit. */
interface Settling {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * One transaction until it settles (once): its result waits here for the group's commit. A class rather than
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

export function createGroupCommit(steps: CommitSteps): GroupCommit {
  /** The turn of the next transaction: each waits for the one before it (and for a commit between them). */
  let turn: Promise<void> = Promise.resolve();
  /** Transactions asked for and not yet settled. */
  let pending = 0;
  /** Transactions done in the open group, settled by its commit. */
  let group: Settling[] = [];

  /** Settles the group with `error`: its work is gone. */
  const failGroup = (error: unknown): void => {
    for (const member of group.splice(0)) member.reject(error);
  };
  const commit = (): void => {
    // Nothing open: the group (if any) was already failed when its work was undone.
    if (!steps.isOpen()) return;
    try {
      steps.commit();
    } catch (error) {
      steps.abandon();
      failGroup(error);
      return;
    }
    for (const member of group.splice(0)) member.resolve();
  };
  // Queued as a turn of its own, so it never lands in the middle of a transaction awaiting something.
  const scheduleCommit = (): void => void setImmediate(() => (turn = turn.then(commit)));

  /** Undoes the work of the transaction that failed, or, if it cannot be undone alone, the whole group. */
  const undo = (error: unknown): void => {
    try {
      steps.undoWork();
    } catch {
      steps.abandon();
      failGroup(error);
    }
  };

  const run = <T>(work: () => Promise<T>): Promise<T> => {
    pending += 1;
    return new Promise<T>((resolve, reject) => {
      const member = new Member<T>(resolve, reject, () => (pending -= 1));
      turn = turn
        .then(async () => {
          if (!steps.isOpen()) {
            steps.begin();
            scheduleCommit();
          }
          steps.startWork();
          try {
            const result = await work();
            steps.keepWork();
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
    idle: () => pending === 0 && !steps.isOpen(),
    drained: async () => {
      while (pending > 0) {
        await turn;
        // The commit is queued from setImmediate: let it join the turns first.
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

/** What a store adds to its transaction operations to make the whole Store (see `storeOver`). */
export interface StoreParts {
  /** A read by id outside a transaction: committed data only. */
  getCommitted: Store['get'];
  /** Run at once when no transaction is under way, otherwise in turn. */
  findAcrossScopes: Store['findAcrossScopes'];
  /** Releases the store's files once every transaction has settled. */
  release(): void;
}

/**
 * A store from its operations inside a transaction (`tx`) and its own parts. Outside a transaction, each
 * write is a transaction of its own, so it never joins or reads into one that is waiting on an await. A
 * read needs no transaction of its own when none is open, running or waiting for its commit: it then runs
 * at once and sees only committed data. Otherwise it takes its turn, and its answer waits for the commit
 * like a write's, so nothing is seen before it is durable.
 */
export function storeOver(commits: GroupCommit, tx: Transaction, parts: StoreParts): Store {
  const transaction = <T>(work: (inner: Transaction) => Promise<T>): Promise<T> => commits.run(() => work(tx));
  const single =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      transaction(() => operation(...args));
  const read =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      commits.idle() ? operation(...args) : transaction(() => operation(...args));
  const findBy = read(tx.findBy) as Transaction['findBy'];
  const findAcrossScopes = read(parts.findAcrossScopes) as Store['findAcrossScopes'];
  return {
    transaction,
    get: parts.getCommitted,
    findBy,
    list: read(tx.list) as Transaction['list'],
    insert: single(tx.insert) as Transaction['insert'],
    update: single(tx.update) as Transaction['update'],
    delete: single(tx.delete),
    discard: single(tx.discard),
    clearScope: single(tx.clearScope),
    findAcrossScopes,
    claim: createLocalClaims({ get: parts.getCommitted, findBy, findAcrossScopes }),
    close: async () => {
      await commits.drained();
      parts.release();
    },
  };
}
