// A file's lines, read a bounded chunk at a time. The journal can be larger than the longest string V8
// makes (about 512 MiB: reading it as one string failed there, with every write acknowledged), and reading
// it whole would take memory for the file's size, not for the records it leaves.
import { closeSync, openSync, readSync } from 'node:fs';

/** Bytes read at a time: large enough that a read costs little per line, small beside any data set. */
const CHUNK_BYTES = 1 << 20;

export interface LinesRead {
  /** Where the last complete line ends (after its newline). */
  linesEnd: number;
  /** Bytes in the file: more than `linesEnd` when its last line has no newline. */
  fileSize: number;
}

/**
 * Hands each complete line of `path` (without its newline, decoded as UTF-8) to `visit`, in order. A last
 * line without its newline is not handed over. Only a line that spans chunks is copied before decoding.
 */
export function forEachLine(path: string, visit: (line: string) => void, chunkBytes = CHUNK_BYTES): LinesRead {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    /** The start of a line that has not ended in the chunks read so far. */
    let unfinished: Buffer[] = [];
    let fileSize = 0;
    let linesEnd = 0;
    for (
      let read = readSync(fd, chunk, 0, chunkBytes, 0);
      read > 0;
      read = readSync(fd, chunk, 0, chunkBytes, fileSize)
    ) {
      const data = chunk.subarray(0, read);
      let start = 0;
      // A newline byte is never part of a multi-byte UTF-8 character, so each line decodes on its own.
      for (let newline = data.indexOf(0x0a); newline >= 0; newline = data.indexOf(0x0a, start)) {
        const line =
          unfinished.length === 0
            ? data.toString('utf8', start, newline)
            : Buffer.concat([...unfinished, data.subarray(start, newline)]).toString('utf8');
        unfinished = [];
        start = newline + 1;
        linesEnd = fileSize + start;
        visit(line);
      }
      // Copied: the chunk is read into again.
      if (start < read) unfinished.push(Buffer.from(data.subarray(start)));
      fileSize += read;
    }
    return { linesEnd, fileSize };
  } finally {
    closeSync(fd);
  }
}
