// The journal store's file under DATA_DIR: one line of JSON per committed transaction, appended with one
// write per group of transactions. A line is a transaction's writes in order:
//   ["put", collection, merchant id, mode, record]   the record as now stored (new or replaced)
//   ["delete", collection, merchant id, mode, id]   the record gone (version 2 on)
//   ["clear", merchant id, mode]                    every record of that scope gone
// The first line names the format and its version (JOURNAL_HEADER). Reading the lines again in order, a
// chunk of the file at a time (file-lines.ts: a journal may outgrow any string), rebuilds the data. Only the
// end of the file can be torn (a process killed in the middle of a write, which was then never
// acknowledged): a last line without its newline is cut off when the file is opened. A damaged line before
// the end is refused, never skipped. When superseded lines make up most of it, the file is rewritten with
// one line per live record (beside it, then renamed over it; a large rewrite in steps between commits). A
// journal of an earlier version is read as it is, and rewritten before anything is added to it, so that its
// header never claims less than its lines use.
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { lockDataDir } from '../data-dir-lock.js';
import { forEachLine } from './file-lines.js';
import type { JsonRecord, Mode } from '../store.js';

export const JOURNAL_FILE = 'sandbox.journal';
/** The version of the line format this sandbox writes and reads (2: deletes). */
export const JOURNAL_VERSION = 2;
const JOURNAL_FORMAT = 'payments-sandbox journal';
export const JOURNAL_HEADER = `${JSON.stringify({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION })}\n`;

export type JournalOperation =
  | ['put', string, string, Mode, JsonRecord]
  | ['delete', string, string, Mode, string]
  | ['clear', string, Mode];

/** A transaction's line, from its operations already written as JSON (see `putOperation`, `clearOperation`). */
export const journalLine = (operations: readonly string[]): string => `[${operations.join(',')}]\n`;
/** A put operation as JSON; `text` is the record as JSON. */
export const putOperation = (collection: string, merchantId: string, mode: Mode, text: string): string =>
  `["put",${JSON.stringify(collection)},${JSON.stringify(merchantId)},"${mode}",${text}]`;
export const deleteOperation = (collection: string, merchantId: string, mode: Mode, id: string): string =>
  `["delete",${JSON.stringify(collection)},${JSON.stringify(merchantId)},"${mode}",${JSON.stringify(id)}]`;
export const clearOperation = (merchantId: string, mode: Mode): string =>
  `["clear",${JSON.stringify(merchantId)},"${mode}"]`;

export interface JournalFileOptions {
  dataDir: string;
  /** NORMAL: a write is in the operating system's hands before it is acknowledged. FULL: also on disk (fdatasync). */
  synchronous: 'NORMAL' | 'FULL';
}

/** `buffer` written whole at the file's end (a write may take less than it is given). */
function writeAll(fd: number, buffer: Buffer): void {
  for (let written = 0; written < buffer.length; ) written += writeSync(fd, buffer, written);
}

/** A record as a rewrite keeps it: one put line each. */
export interface LiveRecord {
  collection: string;
  merchantId: string;
  mode: Mode;
  /** The record as JSON. */
  text: string;
}

/** Bytes a rewrite gathers before each write, and writes at most in each of its steps. */
const REWRITE_CHUNK_BYTES = 1 << 20;

/** What follows a record's text on its line when the line holds that put alone. */
const LINE_END = ']]\n';

/**
 * The journal's replacement, written beside it: the header, one put line per live record, then the lines
 * appended to the journal since the records were taken. Each line is written straight into a buffer, piece
 * by piece, rather than made as a string and joined into chunks: making, joining and encoding those strings
 * took most of a rewrite (300,000 records, 148 MB, in process: 1.0-1.2 s before, 0.36-0.56 s after).
 */
class RewriteFile {
  readonly #fd: number;
  readonly #buffer = Buffer.allocUnsafe(REWRITE_CHUNK_BYTES);
  #used: number;
  #written = 0;
  /** A line's start, the same for every record of a collection and scope: made once per run of them. */
  #startOf: { collection: string; merchantId: string; mode: Mode; start: string } | undefined;

  constructor(readonly path: string) {
    this.#fd = openSync(path, 'w');
    this.#used = this.#buffer.write(JOURNAL_HEADER, 0, 'utf8');
  }

  /** Bytes written or waiting in the buffer. */
  get size(): number {
    return this.#written + this.#used;
  }

  /** `journalLine([putOperation(...)])` of the record. */
  addRecord(record: LiveRecord): void {
    const known = this.#startOf;
    const start =
      known?.collection === record.collection && known.merchantId === record.merchantId && known.mode === record.mode
        ? known.start
        : this.#newStart(record);
    this.#add(start, record.text, LINE_END);
  }

  /** Whole lines, as they were appended to the journal. */
  addLines(text: string): void {
    this.#add(text, '', '');
  }

  /** Writes out what is buffered, then resolves once the file is on disk: synced in libuv's pool, off the event loop. */
  syncInBackground(): Promise<void> {
    this.#flush();
    return new Promise((resolve, reject) => fsync(this.#fd, (error) => (error ? reject(error) : resolve())));
  }

  /** Writes out what is buffered, syncs and closes the file; returns its size. */
  finish(): number {
    this.#flush();
    fsyncSync(this.#fd);
    closeSync(this.#fd);
    return this.#written;
  }

  /** Closes (if still open) and removes the file. Never throws. */
  abandon(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // Closed already (by finish).
    }
    rmSync(this.path, { force: true });
  }

  #newStart(record: LiveRecord): string {
    const start = `[${putOperation(record.collection, record.merchantId, record.mode, '')}`.slice(0, -1);
    this.#startOf = { collection: record.collection, merchantId: record.merchantId, mode: record.mode, start };
    return start;
  }

  /** `head`, `text` and `tail` one after another, through the buffer: a text larger than it goes out on its own. */
  #add(head: string, text: string, tail: string): void {
    // At most three bytes per UTF-16 unit.
    const most = 3 * (head.length + text.length + tail.length);
    if (this.#used + most > this.#buffer.length) this.#flush();
    if (most > this.#buffer.length) {
      this.#writeOut(Buffer.from(`${head}${text}${tail}`, 'utf8'));
      return;
    }
    this.#used += this.#buffer.write(head, this.#used, 'utf8');
    this.#used += this.#buffer.write(text, this.#used, 'utf8');
    this.#used += this.#buffer.write(tail, this.#used, 'utf8');
  }

  #flush(): void {
    const used = this.#used;
    this.#used = 0;
    this.#writeOut(this.#buffer.subarray(0, used));
  }

  #writeOut(bytes: Buffer): void {
    writeAll(this.#fd, bytes);
    this.#written += bytes.length;
  }
}

/** A rewrite under way in steps: the live records as they were when it began, and the lines appended since. */
interface RewriteInSteps {
  file: RewriteFile;
  live: readonly LiveRecord[];
  next: number;
  appended: string[];
}

export class JournalFile {
  readonly path: string;
  readonly #dataDir: string;
  readonly #synchronous: 'NORMAL' | 'FULL';
  readonly #unlock: () => void;
  #fd: number;
  #size: number;
  /** The line format of the file: its header's version (this sandbox's for a new file or once rewritten). */
  #version = JOURNAL_VERSION;
  /** Set when a failed append could not be cut back off: every later append fails with it. */
  #broken: Error | undefined;
  #rewriting: RewriteInSteps | undefined;
  #rewriteGeneration = 0;

  /**
   * Opens (or creates) the journal in `dataDir`, locking the directory, and hands each stored transaction's
   * operations to `replay` in order.
   */
  constructor(options: JournalFileOptions, replay: (operations: JournalOperation[]) => void) {
    this.#dataDir = options.dataDir;
    this.#synchronous = options.synchronous;
    this.path = join(options.dataDir, JOURNAL_FILE);
    mkdirSync(options.dataDir, { recursive: true });
    this.#unlock = lockDataDir(`${this.path}.lock`);
    let fd: number | undefined;
    try {
      this.#size = existsSync(this.path) ? this.#replay(replay) : 0;
      this.#fd = fd = openSync(this.path, 'a');
      // A new journal (or one whose header was all a killed process wrote) starts with its header.
      if (this.#size === 0) this.append(JOURNAL_HEADER);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      this.#unlock();
      throw error;
    }
  }

  /** Bytes in the file. */
  get size(): number {
    return this.#size;
  }

  /** The version of the line format the file's header names. */
  get version(): number {
    return this.#version;
  }

  /** Appends `text` (whole lines). If the write fails, the file is cut back to what it held and the error thrown. */
  append(text: string): void {
    if (this.#broken) throw this.#broken;
    const buffer = Buffer.from(text, 'utf8');
    try {
      writeAll(this.#fd, buffer);
      if (this.#synchronous === 'FULL') fdatasyncSync(this.#fd);
    } catch (error) {
      try {
        ftruncateSync(this.#fd, this.#size);
      } catch {
        this.#broken = new Error(`${this.path} could not be restored after a failed write; restart the sandbox`, {
          cause: error,
        });
      }
      throw error;
    }
    this.#size += buffer.length;
    // A rewrite under way took the records before this line: it goes into the replacement after them.
    this.#rewriting?.appended.push(text);
  }

  /** Replaces the file's content with one line per record of `live`, in its order, at once (see `beginRewrite`). */
  rewrite(live: readonly LiveRecord[]): void {
    this.beginRewrite(live);
    this.finishRewrite();
  }

  /** True from `beginRewrite` until the rewrite is done or abandoned. */
  get rewriting(): boolean {
    return this.#rewriting !== undefined;
  }

  /** Which rewrite is under way (`beginRewrite` returns it): one that is done or abandoned is not again. */
  get rewriteGeneration(): number {
    return this.#rewriteGeneration;
  }

  /**
   * Starts replacing the file's content with one line per record of `live` (the records as they are now; the
   * array is kept as given), so that a rewrite never holds the event loop for long: written at once, one of over
   * 100 MB held it for 0.4 s even once its lines were written straight into a buffer, and longer as the data
   * grows. `rewriteStep` writes the records a part at a time, `syncRewrite` puts them on disk off the event
   * loop, and `finishRewrite` adds the lines appended meanwhile (which go to this file as usual: nothing
   * acknowledged waits for the rewrite) and puts the replacement in this file's place. Returns the rewrite's
   * generation.
   */
  beginRewrite(live: readonly LiveRecord[]): number {
    this.#abandonRewrite();
    this.#rewriting = { file: new RewriteFile(`${this.path}.rewrite`), live, next: 0, appended: [] };
    return ++this.#rewriteGeneration;
  }

  /**
   * Writes about a megabyte more of the rewrite's records; true once every record is written (or no rewrite
   * is under way). If it fails, the rewrite is abandoned (the file stays as it is) and the error thrown.
   */
  rewriteStep(): boolean {
    const rewriting = this.#rewriting;
    if (!rewriting) return true;
    const { file, live } = rewriting;
    try {
      const until = file.size + REWRITE_CHUNK_BYTES;
      while (rewriting.next < live.length && file.size < until) file.addRecord(live[rewriting.next++]!);
    } catch (error) {
      this.#abandonRewrite();
      throw error;
    }
    return rewriting.next === live.length;
  }

  /** Resolves once what the rewrite wrote is on disk; abandons it and rejects if that fails. */
  async syncRewrite(): Promise<void> {
    const rewriting = this.#rewriting;
    if (!rewriting) return;
    try {
      await rewriting.file.syncInBackground();
    } catch (error) {
      // Finished or abandoned meanwhile (the store closed): what this sync was for is settled.
      if (this.#rewriting !== rewriting) return;
      this.#abandonRewrite();
      throw error;
    }
  }

  /**
   * Writes whatever records are left, then the lines appended since the rewrite began, syncs them and puts the
   * replacement in this file's place. If it fails, the rewrite is abandoned (the file stays as it is) and the
   * error thrown.
   */
  finishRewrite(): void {
    const rewriting = this.#rewriting;
    if (!rewriting) return;
    while (!this.rewriteStep());
    try {
      for (const text of rewriting.appended) rewriting.file.addLines(text);
    } catch (error) {
      this.#abandonRewrite();
      throw error;
    }
    this.#rewriting = undefined;
    this.#replaceWith(rewriting.file);
  }

  /** `file`, finished, renamed over this file (durably), which is then appended to. Abandons it if that fails. */
  #replaceWith(file: RewriteFile): void {
    let size: number;
    try {
      size = file.finish();
    } catch (error) {
      file.abandon();
      throw error;
    }
    try {
      renameSync(file.path, this.path);
    } catch (error) {
      file.abandon();
      throw error;
    }
    // The rename itself is durable once the directory is synced.
    const dir = openSync(this.#dataDir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    closeSync(this.#fd);
    this.#fd = openSync(this.path, 'a');
    this.#size = size;
    this.#version = JOURNAL_VERSION;
  }

  #abandonRewrite(): void {
    this.#rewriting?.file.abandon();
    this.#rewriting = undefined;
  }

  /** Closes the file, finishing a rewrite under way first (abandoned if it fails: the file stays as it is). */
  close(): void {
    try {
      this.finishRewrite();
    } catch {
      // Abandoned by the step that failed; the next opening or commit tries again.
    }
    closeSync(this.#fd);
    this.#unlock();
  }

  #checkHeader(header: unknown): void {
    const { format, version } = (typeof header === 'object' && header !== null ? header : {}) as {
      format?: unknown;
      version?: unknown;
    };
    if (format !== JOURNAL_FORMAT || typeof version !== 'number')
      throw new Error(`${this.path} is not a sandbox journal (its first line names no journal format)`);
    if (version > JOURNAL_VERSION)
      throw new Error(
        `${this.path} was written by a newer sandbox (journal version ${version}; this one reads up to ${JOURNAL_VERSION})`,
      );
    this.#version = version;
  }

  /** Replays every complete line, a chunk of the file at a time; cuts off a torn last line. Returns the size of what is kept. */
  #replay(replay: (operations: JournalOperation[]) => void): number {
    let lineNumber = 0;
    const { linesEnd: end, fileSize } = forEachLine(this.path, (line) => {
      lineNumber += 1;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(
          `${this.path}: line ${lineNumber} is damaged (not JSON); the sandbox will not guess what it held`,
        );
      }
      if (lineNumber === 1) this.#checkHeader(parsed);
      else {
        try {
          replay(parsed as JournalOperation[]);
        } catch (error) {
          // Say where: a unique field added since the data was written is the likely cause.
          throw new Error(
            `${this.path}: line ${lineNumber} cannot be applied: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
        }
      }
    });
    if (end < fileSize) {
      // A write cut short by the end of its process: never acknowledged, so nothing of it is kept.
      const fd = openSync(this.path, 'r+');
      try {
        ftruncateSync(fd, end);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    return end;
  }
}
