// The default embedded store: every record in memory (memory-records.ts), every committed transaction
// appended as a line to a journal file under DATA_DIR (journal-file.ts), read back in order at start-up.
// Transactions commit in groups (group-commit.ts): one write of the journal per group, before any of its
// transactions is acknowledged. A write is then in the operating system's hands, so a crash or kill of the
// process loses no acknowledged write; a crash of the machine itself could lose the last ones unless
// synchronous is 'FULL' (an fdatasync per group).
// Why not SQLite (../sqlite/store.ts, still available): a SQLite commit writes every B-tree page the
// transaction touched (a disbursement touched about twelve 4 KiB pages), while here it writes the
// transaction's records once; and lookups are map reads instead of statements. The price is memory: the
// whole data set is held in it, which suits a sandbox's data.
import { createGroupCommit, storeOver, type CommitSteps } from '../group-commit.js';
import {
  clearOperation,
  deleteOperation,
  JournalFile,
  journalLine,
  JOURNAL_VERSION,
  putOperation,
  type JournalOperation,
  type LiveRecord,
} from './journal-file.js';
import { MemoryRecords, type StoredRecord, type Undo } from './memory-records.js';
import {
  deepFreeze,
  frozenRecord,
  recordText,
  type CollectionDefinition,
  type FindOptions,
  type JsonRecord,
  type Scope,
  type Store,
  type Transaction,
} from '../store.js';

export interface JournalStoreOptions {
  /** A directory (the journal is `sandbox.journal` inside it) or `:memory:` (no journal: nothing outlives the process). */
  dataDir: string;
  collections: CollectionDefinition[];
  /** NORMAL (default): survives a process crash. FULL: also a machine crash, at an fdatasync per group. */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * The journal is rewritten without superseded lines once it is this large (default 64 MiB), over twice its
   * live data, and twice the size its last rewrite (or failed rewrite) left.
   */
  rewriteAfterBytes?: number;
}

const DEFAULT_REWRITE_AFTER_BYTES = 64 * 1024 * 1024;

const parse = <T>(record: StoredRecord): T => JSON.parse(record.text) as T;

export function openJournalStore(options: JournalStoreOptions): Store {
  const records = new MemoryRecords(options.collections);
  const replay = (operations: JournalOperation[]): void => {
    for (const operation of operations) {
      if (operation[0] === 'clear') {
        records.clearScope(operation[1], operation[2]);
        continue;
      }
      // A collection this version no longer defines keeps its records (unindexed), so a rewrite keeps them too.
      if (!records.has(operation[1])) records.define({ name: operation[1] });
      if (operation[0] === 'delete') {
        records.delete(operation[1], operation[2], operation[3], operation[4]);
        continue;
      }
      const [, collection, merchantId, mode, record] = operation;
      const change = records.put(collection, merchantId, mode, record, JSON.stringify(record));
      if (change.kind !== 'clear-scope') change.record.committed();
    }
  };
  const journal =
    options.dataDir === ':memory:'
      ? undefined
      : new JournalFile({ dataDir: options.dataDir, synchronous: options.synchronous ?? 'NORMAL' }, replay);
  const smallestRewritten = options.rewriteAfterBytes ?? DEFAULT_REWRITE_AFTER_BYTES;
  /**
   * The size from which the journal is rewritten. After each rewrite, tried or done, it waits for the journal
   * to double: a rewrite then costs at most what was appended since the last, even where the live data's
   * estimate (its records' text, not their lines) is low, and a failing one is not retried at every commit.
   */
  let rewriteAfterBytes = smallestRewritten;
  const rewritten = (): void => {
    if (journal) rewriteAfterBytes = Math.max(smallestRewritten, 2 * journal.size);
  };
  const warnNotRewritten = (error: unknown): void =>
    process.emitWarning(
      `the journal could not be rewritten (it stays as it is; next try at twice its size): ${String(error)}`,
    );
  /** The live records as they are now, oldest first: each record's text as it is now, whatever changes later. */
  const liveRecords = (): LiveRecord[] => records.all();
  /** At once: on opening, before anything is served. */
  const rewrite = (): void => {
    if (!journal) return;
    try {
      journal.rewrite(liveRecords());
    } finally {
      rewritten();
    }
  };
  /**
   * The rewrite begun as `generation`, a step in each turn of the event loop between the commits, then synced
   * off the event loop and put in place. Stops if it is no longer under way (closing the store finishes it).
   */
  const rewriteInSteps = async (generation: number): Promise<void> => {
    if (!journal) return;
    const underWay = (): boolean => journal.rewriting && journal.rewriteGeneration === generation;
    // Its first step was taken in the commit that began it: the next waits for the next turn.
    do await new Promise((resolve) => setImmediate(resolve));
    while (underWay() && !journal.rewriteStep());
    if (!underWay()) return;
    await journal.syncRewrite();
    if (underWay()) journal.finishRewrite();
  };
  const mostlySuperseded = (): boolean =>
    journal !== undefined && journal.size >= rewriteAfterBytes && journal.size >= 2 * records.liveChars;
  /** A failed rewrite leaves the journal as it was, and fails neither the opening nor a transaction. */
  const rewriteIfMostlySuperseded = (): void => {
    if (!mostlySuperseded()) return;
    try {
      rewrite();
    } catch (error) {
      warnNotRewritten(error);
    }
  };
  /** After a commit: begun now, with the records as this commit left them, and written in steps. */
  const beginRewriteIfMostlySuperseded = (): void => {
    if (!journal || journal.rewriting || !mostlySuperseded()) return;
    let generation: number;
    try {
      generation = journal.beginRewrite(liveRecords());
      // Records that fit in one step are finished at once, as every rewrite was before: a small rewrite holds
      // the event loop for a few milliseconds, and the journal then never outgrows its threshold by more than a
      // commit.
      if (journal.rewriteStep()) {
        journal.finishRewrite();
        rewritten();
        return;
      }
    } catch (error) {
      warnNotRewritten(error);
      rewritten();
      return;
    }
    rewriteInSteps(generation).then(rewritten, (error: unknown) => {
      warnNotRewritten(error);
      rewritten();
    });
  };
  if (journal && journal.version < JOURNAL_VERSION) {
    // A journal of an earlier version is brought to this one before a line of this version joins it; if it
    // cannot be, the sandbox does not start on it.
    try {
      rewrite();
    } catch (error) {
      journal.close();
      throw error;
    }
  } else rewriteIfMostlySuperseded();

  /** Changes of the transaction under way, and its journal operations. */
  let work: Undo[] = [];
  let workOperations: string[] = [];
  /** Changes of the transactions kept in the open group, and their journal lines. */
  let group: Undo[] = [];
  let groupLines = '';
  let groupOpen = false;
  /**
   * Records deleted in the open group (kept or under way), by collection, scope and id: their committed text
   * (undefined: inserted since), which reads by id outside a transaction see until the commit. Automatic
   * outcomes delete as they end, so most groups under load hold a delete: such reads used to take their turn
   * behind every queued transaction and the group's commit instead.
   */
  const removed = new Map<string, string | undefined>();
  /** A scope cleared, not committed yet (a reset, rare): reads by id of committed data then take their turn. */
  let clearing = false;
  const removedKey = (collection: string, merchantId: string, mode: string, id: string): string =>
    `${collection}\u0000${merchantId}\u0000${mode}\u0000${id}`;

  const undoAll = (changes: Undo[]): void => {
    for (let i = changes.length - 1; i >= 0; i--) records.undo(changes[i]!);
  };
  const closeGroup = (): void => {
    work = [];
    workOperations = [];
    group = [];
    groupLines = '';
    groupOpen = false;
    removed.clear();
    clearing = false;
  };

  const steps: CommitSteps = {
    isOpen: () => groupOpen,
    begin: () => {
      groupOpen = true;
    },
    startWork: () => {
      work = [];
      workOperations = [];
    },
    keepWork: () => {
      for (const change of work) group.push(change);
      if (workOperations.length > 0) groupLines += journalLine(workOperations);
      work = [];
      workOperations = [];
    },
    undoWork: () => {
      undoAll(work);
      work = [];
      workOperations = [];
      // A delete undone leaves its entry in `removed`: the record is back with the same committed text.
      clearing = group.some((change) => change.kind === 'clear-scope');
    },
    commit: () => {
      if (journal && groupLines !== '') journal.append(groupLines);
      for (const change of group) if (change.kind === 'insert' || change.kind === 'update') change.record.committed();
      closeGroup();
      beginRewriteIfMostlySuperseded();
    },
    abandon: () => {
      undoAll(work);
      undoAll(group);
      closeGroup();
    },
  };

  const tx: Transaction = {
    get: async <T extends JsonRecord>(collection: string, scope: Scope, id: string) => {
      const stored = records.stored(collection, scope, id);
      return stored ? parse<T>(stored) : undefined;
    },
    findBy: async <T extends JsonRecord>(
      collection: string,
      scope: Scope,
      field: string,
      value: string | number | boolean,
      findOptions?: FindOptions,
    ) => records.findBy(collection, scope, field, value, findOptions).map(parse<T>),
    list: async <T extends JsonRecord>(collection: string, scope: Scope, findOptions?: FindOptions) =>
      records.list(collection, scope, findOptions).map(parse<T>),
    insert: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
      const text = recordText(collection, record);
      work.push(records.insert(collection, scope, record, text));
      workOperations.push(putOperation(collection, scope.merchantId, scope.mode, text));
      return record;
    },
    update: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
      const text = recordText(collection, record);
      work.push(records.update(collection, scope, record, text));
      workOperations.push(putOperation(collection, scope.merchantId, scope.mode, text));
      return record;
    },
    delete: async (collection: string, scope: Scope, id: string) => {
      const change = records.delete(collection, scope.merchantId, scope.mode, id);
      if (!change) return false;
      work.push(change);
      workOperations.push(deleteOperation(collection, scope.merchantId, scope.mode, id));
      const key = removedKey(collection, scope.merchantId, scope.mode, id);
      // Deleted again after an insert in the same group: the first delete knew the committed text.
      if (change.kind === 'delete' && !removed.has(key)) removed.set(key, change.record.committedText);
      return true;
    },
    // Nothing waits on a write in memory: a discard is a delete.
    discard: async (collection: string, scope: Scope, id: string) => void (await tx.delete(collection, scope, id)),
    clearScope: async (scope: Scope) => {
      work.push(records.clearScope(scope.merchantId, scope.mode));
      workOperations.push(clearOperation(scope.merchantId, scope.mode));
      clearing = true;
    },
  };

  const commits = createGroupCommit(steps);
  /**
   * A read by id outside a transaction: the record's committed text, without waiting for an open group to
   * commit (what the group wrote is not committed yet, so such a read must not see it), a record deleted in
   * the group included. A cleared scope not committed yet hides records that are still committed, so then the
   * read takes its turn.
   */
  const getCommitted = async <T extends JsonRecord>(
    collection: string,
    scope: Scope,
    id: string,
  ): Promise<T | undefined> => {
    if (clearing) return commits.run(async () => deepFreeze(await tx.get<T>(collection, scope, id)));
    const key = removed.size === 0 ? undefined : removedKey(collection, scope.merchantId, scope.mode, id);
    if (key !== undefined && removed.has(key)) {
      const text = removed.get(key);
      return text === undefined ? undefined : frozenRecord<T>(text);
    }
    return records.stored(collection, scope, id)?.committedRecord<T>();
  };
  const findAcrossScopes = async <T extends JsonRecord>(
    collection: string,
    field: string,
    value: string | number | boolean,
  ) =>
    records
      .findAcross(collection, field, value)
      .map((record) => ({ scope: { merchantId: record.merchantId, mode: record.mode }, record: parse<T>(record) }));
  return storeOver(commits, tx, { getCommitted, findAcrossScopes, release: () => journal?.close() });
}
