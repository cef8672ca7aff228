// The committed state of records read lately (JSON text), kept current by the commits that change them, for
// reads by id outside a transaction: they are answered from memory instead of SQLite, and need not wait for
// an open group of transactions to commit (what the group wrote is not committed yet, so such a read must
// not see it, and the database connection would show it). Writes reach it only when their COMMIT succeeds.
// A record is parsed (and frozen, as Store.get gives it) at its first read from here, then handed out as it is
// until a commit changes it.
import { frozenRecord, type JsonRecord } from '../store.js';

/** The cache key of a record: its collection, scope and id. */
export const recordKey = (collection: string, merchantId: string, mode: string, id: string): string =>
  `${collection}\u0000${merchantId}\u0000${mode}\u0000${id}`;

/** A write as the cache applies it: a record's new text (undefined: deleted), or every record of a scope gone. */
type Change = { kind: 'record'; key: string; text: string | undefined } | { kind: 'clear-scope'; prefix: string };

/** A record's committed text, and the record parsed from it once read. */
interface Committed {
  text: string;
  record?: JsonRecord;
}

export class CommittedRecords {
  readonly #records = new Map<string, Committed>();
  /** Writes of the transaction under way. */
  #working: Change[] = [];
  /** Writes of the transactions done in the open SQLite transaction, applied when it commits. */
  #grouped: Change[] = [];

  constructor(private readonly capacity: number) {}

  /**
   * The committed record, frozen (Store.get), if known: parsed at its first read, the same object after it. A
   * record read is kept longest (it moves to the back of the line).
   */
  record<T extends JsonRecord>(key: string): T | undefined {
    const committed = this.#records.get(key);
    if (committed === undefined) return undefined;
    this.#records.delete(key);
    this.#records.set(key, committed);
    return (committed.record ??= frozenRecord(committed.text)) as T;
  }

  /** What a read of committed data found (never called inside a transaction). */
  remember(key: string, text: string): void {
    this.#set(key, text);
  }

  /** A record written by the transaction under way. */
  written(key: string, text: string): void {
    this.#working.push({ kind: 'record', key, text });
  }

  /** A record deleted by the transaction under way. */
  deleted(key: string): void {
    this.#working.push({ kind: 'record', key, text: undefined });
  }

  /** A scope cleared by the transaction under way. */
  scopeCleared(merchantId: string, mode: string): void {
    this.#working.push({ kind: 'clear-scope', prefix: `\u0000${merchantId}\u0000${mode}\u0000` });
  }

  /** The transaction under way ended well: its writes join the group's. */
  workDone(): void {
    this.#grouped.push(...this.#working);
    this.#working = [];
  }

  /** The transaction under way was undone. */
  workUndone(): void {
    this.#working = [];
  }

  /**
   * The group committed: its writes are the committed state now. Only records already cached are refreshed;
   * a record written but never read by id (an idempotency key, most new resources) is not worth the memory.
   */
  committed(): void {
    for (const change of this.#grouped) {
      if (change.kind === 'record') {
        if (change.text === undefined) this.#records.delete(change.key);
        else if (this.#records.has(change.key)) this.#records.set(change.key, { text: change.text });
      } else {
        for (const key of [...this.#records.keys()]) if (key.includes(change.prefix)) this.#records.delete(key);
      }
    }
    this.#grouped = [];
  }

  /** The open SQLite transaction was rolled back: nothing of it happened. */
  abandoned(): void {
    this.#working = [];
    this.#grouped = [];
  }

  #set(key: string, text: string): void {
    // The least recently read or remembered go first when the cache is full (Map order: oldest first).
    this.#records.set(key, { text });
    if (this.#records.size > this.capacity) this.#records.delete(this.#records.keys().next().value as string);
  }
}
