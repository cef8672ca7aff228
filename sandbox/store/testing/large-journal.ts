// A journal far larger than its live data, as a long-running sandbox leaves one: a few records updated over
// and over, each update a line. Written straight to the file (through the store it would take minutes), for
// the reopening test (journal/store.large.test.ts) and benchmark (sandbox/bench/reopen.ts).
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { JOURNAL_FILE, JOURNAL_HEADER, journalLine, putOperation } from '../journal/journal-file.js';
import type { CollectionDefinition, JsonRecord, Scope, Store } from '../store.js';

export const LARGE_JOURNAL_COLLECTION = 'updated_things';
export const largeJournalCollections: CollectionDefinition[] = [
  { name: LARGE_JOURNAL_COLLECTION, unique: ['external_id'], indexed: ['round'] },
];
export const largeJournalScope: Scope = { merchantId: 'm-large', mode: 'test' };

/** `LARGE_JOURNAL_BYTES` from the environment, or `fallback`. */
export function largeJournalBytes(fallback: number): number {
  const given = process.env.LARGE_JOURNAL_BYTES;
  const bytes = given === undefined ? fallback : Number(given);
  if (!Number.isSafeInteger(bytes) || bytes < 1)
    throw new Error(`LARGE_JOURNAL_BYTES must be a whole number of bytes, not ${given ?? ''}`);
  return bytes;
}

export interface HistoryOptions {
  /** Records updated in turn (default 1,000). */
  liveRecords?: number;
  /** Characters of filler per record, which sets the size of a line (default 1,000). */
  fillerChars?: number;
}

export interface LargeJournalOptions extends HistoryOptions {
  /** The journal grows until it holds at least this many bytes. */
  bytes: number;
}

/** Bytes gathered before each write. */
const WRITE_BYTES = 8 << 20;

/** The history's `n`th write (from 0): record `n % liveRecords`, as round `n / liveRecords` leaves it. */
function historyOf(options: HistoryOptions): { liveRecords: number; write: (n: number) => JsonRecord } {
  const liveRecords = options.liveRecords ?? 1000;
  const fillerChars = options.fillerChars ?? 1000;
  if (fillerChars > WRITE_BYTES / 2) throw new Error(`a record's filler is at most ${WRITE_BYTES / 2} characters`);
  const filler = 'x'.repeat(fillerChars);
  return {
    liveRecords,
    write: (n) => ({
      id: `thing-${n % liveRecords}`,
      external_id: `ext-${n % liveRecords}`,
      round: Math.floor(n / liveRecords),
      filler,
    }),
  };
}

export interface LargeJournal {
  path: string;
  bytes: number;
  lines: number;
  /** Each record as its last line left it, in insertion order. */
  live: JsonRecord[];
}

export function writeLargeJournal(dataDir: string, options: LargeJournalOptions): LargeJournal {
  const path = join(dataDir, JOURNAL_FILE);
  const { liveRecords, write: historyWrite } = historyOf(options);
  const live: JsonRecord[] = [];
  const fd = openSync(path, 'w');
  // Lines are gathered in one buffer and written together; a line never nears the slack left after WRITE_BYTES.
  const buffer = Buffer.allocUnsafe(2 * WRITE_BYTES);
  let used = 0;
  let bytes = 0;
  let lines = 0;
  const write = (): void => {
    for (let written = 0; written < used; ) written += writeSync(fd, buffer, written, used - written);
    bytes += used;
    used = 0;
  };
  try {
    used += buffer.write(JOURNAL_HEADER, used);
    for (let n = 0; bytes + used < options.bytes; n++) {
      const record = historyWrite(n);
      live[n % liveRecords] = record;
      used += buffer.write(
        journalLine([
          putOperation(
            LARGE_JOURNAL_COLLECTION,
            largeJournalScope.merchantId,
            largeJournalScope.mode,
            JSON.stringify(record),
          ),
        ]),
        used,
      );
      lines += 1;
      if (used >= WRITE_BYTES) write();
    }
    write();
  } finally {
    closeSync(fd);
  }
  return { path, bytes, lines, live };
}

/** The same history as a journal of `writes` lines, written through `store` (another kind, to compare), 10,000 writes to a transaction. */
export async function writeHistory(store: Store, writes: number, options: HistoryOptions = {}): Promise<void> {
  const { liveRecords, write } = historyOf(options);
  for (let first = 0; first < writes; first += 10_000) {
    await store.transaction(async (tx) => {
      for (let n = first; n < Math.min(first + 10_000, writes); n++) {
        if (n < liveRecords) await tx.insert(LARGE_JOURNAL_COLLECTION, largeJournalScope, write(n));
        else await tx.update(LARGE_JOURNAL_COLLECTION, largeJournalScope, write(n));
      }
    });
  }
}

let collectGarbage: (() => void) | undefined;

/** Bytes of heap in use once garbage is collected: what the live objects take. */
export function liveHeapBytes(): number {
  if (!collectGarbage) {
    // Lets this process ask for a full collection without starting node with --expose-gc.
    setFlagsFromString('--expose-gc');
    collectGarbage = runInNewContext('gc') as () => void;
  }
  collectGarbage();
  return process.memoryUsage().heapUsed;
}
