import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forEachLine } from './file-lines.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const fileOf = (content: string | Buffer): string => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-lines-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'file'), content);
  return join(dir, 'file');
};
const linesOf = (path: string, chunkBytes: number): { lines: string[]; linesEnd: number; fileSize: number } => {
  const lines: string[] = [];
  return { lines, ...forEachLine(path, (line) => lines.push(line), chunkBytes) };
};

describe('forEachLine', () => {
  it.each([
    ['in one chunk', 1024],
    ['with lines across chunk boundaries', 4],
    ['with lines longer than a chunk', 2],
    ['a byte at a time', 1],
  ])('hands over every line in order %s', (_, chunkBytes) => {
    const content = 'first\nsecond line\n\nthird, the longest of the lines\n';
    expect(linesOf(fileOf(content), chunkBytes)).toEqual({
      lines: ['first', 'second line', '', 'third, the longest of the lines'],
      linesEnd: content.length,
      fileSize: content.length,
    });
  });

  it('decodes a character whose bytes a chunk boundary splits', () => {
    // "Rp 1.000 — é" holds multi-byte characters; every chunk size splits some of them.
    const content = Buffer.from('Rp 1.000 — é\n€\n', 'utf8');
    for (let chunkBytes = 1; chunkBytes <= content.length; chunkBytes++)
      expect(linesOf(fileOf(content), chunkBytes).lines).toEqual(['Rp 1.000 — é', '€']);
  });

  it('leaves out a last line without its newline, and says where the complete lines end', () => {
    expect(linesOf(fileOf('kept\ntorn'), 3)).toEqual({ lines: ['kept'], linesEnd: 5, fileSize: 9 });
    expect(linesOf(fileOf('torn'), 3)).toEqual({ lines: [], linesEnd: 0, fileSize: 4 });
    expect(linesOf(fileOf(''), 3)).toEqual({ lines: [], linesEnd: 0, fileSize: 0 });
  });

  it('stops at an error of the visitor', () => {
    const path = fileOf('a\nb\n');
    expect(() =>
      forEachLine(path, (line) => {
        if (line === 'b') throw new Error('b is refused');
      }),
    ).toThrow('b is refused');
  });
});
