// The benchmark behind `npm run bench:reopen` (reopen.ts reads its command line and loads this only to run it): how
// long a store takes to open again over a large data directory, and the memory that takes. The journal is written as
// a long-running sandbox leaves one (a thousand records of about 1 KB, each updated over and over: about 1 GiB by
// default), and the SQLite store is given the same history of writes. Each store is opened in a process of its own,
// so its peak memory is its own. Figures only.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FILE_OF, openStore, type StoreKind } from '../store/open-store.js';
import {
  largeJournalCollections,
  largeJournalScope,
  LARGE_JOURNAL_COLLECTION,
  liveHeapBytes,
  writeHistory,
  writeLargeJournal,
} from '../store/testing/large-journal.js';

const MiB = 1024 * 1024;
/** The command (reopen.ts), which runs each opening in a process of its own with --child. */
const REOPEN = fileURLToPath(new URL('./reopen.ts', import.meta.url));

/** What one opening measured (printed as JSON by the child process). */
interface Opened {
  seconds: number;
  /** Reading every live record once, after opening. */
  readSeconds: number;
  records: number;
  heapBefore: number;
  heapAfter: number;
  rssBefore: number;
  peakRss: number;
}

/** In the child: opens the store of `kind` in `dataDir` and measures. */
export async function measureOpening(kind: StoreKind, dataDir: string): Promise<Opened> {
  const heapBefore = liveHeapBytes();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const store = openStore({ kind, dataDir, collections: largeJournalCollections });
  const opened = performance.now();
  const records = (await store.list(LARGE_JOURNAL_COLLECTION, largeJournalScope)).length;
  const read = performance.now();
  const heapAfter = liveHeapBytes();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  await store.close();
  return {
    seconds: (opened - started) / 1000,
    readSeconds: (read - opened) / 1000,
    records,
    heapBefore,
    heapAfter,
    rssBefore,
    peakRss,
  };
}

const mib = (bytes: number): string => (bytes / MiB).toFixed(1);

function formatRows(rows: { store: StoreKind; sizeBefore: number; sizeAfter: number; opened: Opened }[]): string {
  const header = [
    'store',
    'file MiB',
    'after MiB',
    'open s',
    'read s',
    'records',
    'heap before MiB',
    'heap after MiB',
    'rss before MiB',
    'peak rss MiB',
  ];
  const lines = rows.map(({ store, sizeBefore, sizeAfter, opened }) => [
    store,
    mib(sizeBefore),
    mib(sizeAfter),
    opened.seconds.toFixed(2),
    opened.readSeconds.toFixed(3),
    String(opened.records),
    mib(opened.heapBefore),
    mib(opened.heapAfter),
    mib(opened.rssBefore),
    mib(opened.peakRss),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((cells) => cells[column]!.length)));
  const format = (cells: string[]): string =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(format)].join('\n');
}

/** Writes the large data directory of each of `stores`, opens each in a process of its own; prints the table. */
export async function benchReopen(bytes: number, stores: readonly StoreKind[]): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'sandbox-bench-reopen-'));
  try {
    console.error(`writing a journal of ${mib(bytes)} MiB...`);
    const journalDir = join(root, 'journal');
    mkdirSync(journalDir);
    const journal = writeLargeJournal(journalDir, { bytes });
    const dirs: Record<StoreKind, string> = { journal: journalDir, sqlite: join(root, 'sqlite') };
    if (stores.includes('sqlite')) {
      console.error(`writing the same ${journal.lines} writes to a SQLite store...`);
      const store = openStore({ kind: 'sqlite', dataDir: dirs.sqlite, collections: largeJournalCollections });
      await writeHistory(store, journal.lines);
      await store.close();
    }
    const rows = [];
    for (const store of stores) {
      const file = join(dirs[store], FILE_OF[store]);
      const sizeBefore = statSync(file).size;
      console.error(`opening the ${store} store...`);
      const child = spawnSync(process.execPath, ['--import', 'tsx', REOPEN, '--child', store, dirs[store]], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (child.status !== 0) throw new Error(`opening the ${store} store failed (exit ${String(child.status)})`);
      rows.push({ store, sizeBefore, sizeAfter: statSync(file).size, opened: JSON.parse(child.stdout) as Opened });
    }
    console.log(
      `\n${journal.lines} writes of 1,000 records of about 1 KB (a journal line each); each store opened in a process of its own, heap measured after a full collection.\n`,
    );
    console.log(formatRows(rows));
    return 0;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
