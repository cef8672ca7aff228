// The journal store reopens a journal of any size within the memory its live records need. The journal here
// passes 1 GiB (LARGE_JOURNAL_BYTES sets another size): twice the longest string V8 makes, so reading it as
// one string could not work, and far more than the thousand records it leaves.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJournalStore } from './store.js';
import {
  largeJournalBytes,
  largeJournalCollections,
  largeJournalScope,
  LARGE_JOURNAL_COLLECTION,
  liveHeapBytes,
  writeLargeJournal,
} from '../testing/large-journal.js';

const MiB = 1024 * 1024;
const bytes = largeJournalBytes(1024 * MiB + 64 * MiB);

/**
 * Starts the process's peak resident memory again from what it holds now (Linux: 5 to /proc/self/clear_refs), so
 * the bound judges the reopening alone, not writing the journal beforehand or another test file the same worker
 * ran first (both pushed the lifetime peak over it on a fresh clone). False where the kernel does not allow it.
 */
function resetPeakMemory(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** The peak resident memory since the last reset (VmHWM). */
function peakResidentBytes(): number {
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  if (kib === undefined) throw new Error('no VmHWM in /proc/self/status');
  return Number(kib) * 1024;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the journal store, reopening a large journal', () => {
  it(`reads a journal of ${(bytes / MiB).toFixed(0)} MiB made mostly of superseded updates back, a chunk at a time, and keeps only its live records in memory`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-large-journal-'));
    dirs.push(dir);
    const journal = writeLargeJournal(dir, { bytes });
    expect(journal.bytes).toBeGreaterThanOrEqual(bytes);

    const heapBefore = liveHeapBytes();
    const peakFromHere = resetPeakMemory();
    const started = performance.now();
    const store = openJournalStore({ dataDir: dir, collections: largeJournalCollections });
    const seconds = (performance.now() - started) / 1000;
    const heapGrowth = liveHeapBytes() - heapBefore;
    /** The most memory this process has held while reopening (or, where the peak cannot be reset, ever). */
    const peak = peakFromHere ? peakResidentBytes() : process.resourceUsage().maxRSS * 1024;
    try {
      console.log(
        `reopened a ${(journal.bytes / MiB).toFixed(0)} MiB journal of ${journal.lines} lines in ${seconds.toFixed(1)} s; heap in use grew ${(heapGrowth / MiB).toFixed(1)} MiB; the process's peak memory is ${(peak / MiB).toFixed(0)} MiB`,
      );
      const records = await store.list(LARGE_JOURNAL_COLLECTION, largeJournalScope, { order: 'oldest' });
      expect(records).toEqual(journal.live);
      const lastRound = Math.max(...journal.live.map((record) => Number(record.round)));
      expect((await store.findBy(LARGE_JOURNAL_COLLECTION, largeJournalScope, 'round', lastRound)).length).toBe(
        journal.lines % journal.live.length || journal.live.length,
      );
      // What stays in memory is the live records' (a thousand of about 1 KB, their indexes and the store), not the file's.
      expect(heapGrowth).toBeLessThan(32 * MiB);
      // Reading needs a chunk and the garbage of a few lines at a time, never the file (a quarter of 1 GiB here).
      expect(peak).toBeLessThan(256 * MiB);
      // Superseded lines made up nearly all of it, so it was rewritten with a line per live record.
      expect(statSync(journal.path).size).toBeLessThan(4 * MiB);
    } finally {
      await store.close();
    }
  }, 120_000);
});
