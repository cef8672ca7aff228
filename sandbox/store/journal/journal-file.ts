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
// one line per live record (beside it, then renamed over it). A journal of an earlier version is read as it
// is, and rewritten before anything is added to it, so that its header never claims less than its lines use.
import {
  closeSync,
  existsSync,
  fdatasyncSync,
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

/** Bytes a rewrite gathers before each write. */
const REWRITE_CHUNK_BYTES = 1 << 20;

/**
 * The header, then `journalLine([putOperation(...)])` of each record, written to `fd`; returns the bytes
 * written. A line's start is the same for every record of a collection and scope, which come one after
 * another: it is made once per run of them.
 */
function writeLiveLines(fd: number, live: Iterable<LiveRecord>): number {
  const buffer = Buffer.allocUnsafe(REWRITE_CHUNK_BYTES);
  let used = buffer.write(JOURNAL_HEADER, 0, 'utf8');
  let size = 0;
  const flush = (): void => {
    writeAll(fd, buffer.subarray(0, used));
    size += used;
    used = 0;
  };
  let collection: string | undefined;
  let merchantId: string | undefined;
  let mode: Mode | undefined;
  let start = '';
  for (const record of live) {
    if (record.collection !== collection || record.merchantId !== merchantId || record.mode !== mode) {
      ({ collection, merchantId, mode } = record);
      start = `[${putOperation(collection, merchantId, mode, '')}`.slice(0, -1);
    }
    // At most three bytes per UTF-16 unit; a record larger than the buffer goes out as a line of its own.
    const most = 3 * (start.length + record.text.length) + LINE_END.length;
    if (used + most > buffer.length) flush();
    if (most > buffer.length) {
      const line = Buffer.from(`${start}${record.text}${LINE_END}`, 'utf8');
      writeAll(fd, line);
      size += line.length;
      continue;
    }
    used += buffer.write(start, used, 'utf8');
    used += buffer.write(record.text, used, 'utf8');
    used += buffer.write(LINE_END, used, 'utf8');
  }
  flush();
  return size;
}

/** What follows a record's text on its line when the line holds that put alone. */
const LINE_END = ']]\n';

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
  }

  /**
   * Replaces the file's content with one line per record of `live`, in its order (a file beside it, synced,
   * then renamed over it). Each line is written straight into a buffer, piece by piece, rather than made as a
   * string and joined into chunks: making, joining and encoding those strings took most of a rewrite
   * (300,000 records, 148 MB, in process: 1.0-1.2 s before, 0.36-0.56 s after). A rewrite blocks the event
   * loop, and under the bench's mix one came every ten seconds or so, by then of over 100 MB.
   */
  rewrite(live: Iterable<LiveRecord>): void {
    const temporary = `${this.path}.rewrite`;
    const fd = openSync(temporary, 'w');
    let size = 0;
    try {
      size = writeLiveLines(fd, live);
      fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      rmSync(temporary, { force: true });
      throw error;
    }
    closeSync(fd);
    renameSync(temporary, this.path);
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

  close(): void {
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
