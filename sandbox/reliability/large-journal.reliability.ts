// Restart of a large journal: a sandbox process opens a journal past 1 GiB (at full scale) that ends with a
// working sandbox's records, as a long-running sandbox leaves one, and must start, serve every one of those
// records, keep its memory to what the live records need (not the file's size), and keep them through the
// next restart. The history is written straight to the file by the store's own large-journal helper
// (sandbox/store/testing/large-journal.ts: superseded updates of a thousand records); the sandbox's records
// are made over HTTP by the write load and follow it in the file.
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UniqueValues } from '@payments-contract/conformance/testing';
import { JOURNAL_FILE } from '../store/journal/journal-file.js';
import { writeLargeJournal } from '../store/testing/large-journal.js';
import { serviceContract } from './live-conformance.js';
import { figures, summaryLine } from './scale.js';
import { useTempDir } from './fixtures.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { isPresent, load, writableOperations, type Write } from './writes.js';

const MiB = 1024 * 1024;
/** What reopening may add to a fresh sandbox's peak memory: the live records and their indexes, never the file. */
const MEMORY_ALLOWANCE = 128 * MiB;
/** How long the write load runs to make the sandbox's own records. */
const LOAD_MS = 3_000;

/** The journal's lines after its first (the header): what a journal of the same version can take as its own. */
function linesAfterHeader(path: string): Buffer {
  const content = readFileSync(path);
  return content.subarray(content.indexOf(0x0a) + 1);
}

describe('restart of a large journal', () => {
  const made = useTempDir('journal-made');
  const large = useTempDir('journal-large');
  const running: SandboxProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((sandbox) => sandbox.remove()));
  });
  const start = async (dataDir: string): Promise<SandboxProcess> => {
    const sandbox = await startSandboxProcess({ dataDir });
    running.push(sandbox);
    return sandbox;
  };

  it(`reopens a journal of ${Math.round(figures.journalBytes / MiB)} MiB in a sandbox process with every record, in the memory its live records need`, async () => {
    // A working sandbox's records, made over HTTP; its peak memory is the measure for the reopened one.
    const fresh = await start(made.path);
    const writes: Write[] = [];
    const loading = load(
      fresh.url,
      writableOperations(),
      new UniqueValues(serviceContract),
      writes,
      figures.writersInFlight,
    );
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
    await loading.stop();
    const freshPeak = fresh.peakRssBytes() ?? Number.NaN;
    expect(await fresh.stop()).toBe(0);
    const acknowledged = writes.filter((write) => write.id !== undefined);

    // The long history first, then the sandbox's records after it.
    const history = writeLargeJournal(large.path, { bytes: figures.journalBytes });
    appendFileSync(history.path, linesAfterHeader(join(made.path, JOURNAL_FILE)));
    const journalBytes = statSync(history.path).size;

    const reopened = await start(large.path);
    const reopenedPeak = reopened.peakRssBytes() ?? Number.NaN;
    let missing = 0;
    for (const write of acknowledged) if (!(await isPresent(reopened.url, write))) missing++;
    const afterOpening = statSync(history.path).size;
    expect(await reopened.stop()).toBe(0);

    // Whatever the reopening did to the file (a rewrite without the superseded lines), the next start has it all.
    const again = await start(large.path);
    let missingAgain = 0;
    for (const write of acknowledged) if (!(await isPresent(again.url, write))) missingAgain++;
    expect(await again.stop()).toBe(0);

    console.log(
      summaryLine('restart of a large journal', {
        'journal MiB': (journalBytes / MiB).toFixed(0),
        'history lines': history.lines,
        'sandbox records': acknowledged.length,
        'reopened in s': (reopened.startMs / 1000).toFixed(1),
        'peak MiB fresh': (freshPeak / MiB).toFixed(0),
        'peak MiB reopened': (reopenedPeak / MiB).toFixed(0),
        'journal MiB after opening': (afterOpening / MiB).toFixed(1),
        missing,
        'missing after the next restart': missingAgain,
        'next start s': (again.startMs / 1000).toFixed(1),
      }),
    );
    expect(journalBytes).toBeGreaterThanOrEqual(figures.journalBytes);
    expect(acknowledged.length, 'records made before the history was added').toBeGreaterThan(0);
    expect(missing, 'records missing after reopening').toBe(0);
    expect(missingAgain, 'records missing after the next restart').toBe(0);
    expect(reopenedPeak - freshPeak, 'memory the reopening added to a fresh sandbox (bytes)').toBeLessThan(
      MEMORY_ALLOWANCE,
    );
  });
});
