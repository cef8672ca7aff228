import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { chooseCoding, compressedPage, type ContentCoding } from './compressed-page.js';

describe('chooseCoding', () => {
  const cases: [string | null, ContentCoding][] = [
    [null, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['GZIP', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.1, gzip;q=0.5', 'gzip'],
    ['deflate', 'identity'],
    ['identity', 'identity'],
  ];
  it.each(cases)('%j gives %s', (header, coding) => {
    expect(chooseCoding(header)).toBe(coding);
  });
});

describe('compressedPage', () => {
  const text = `<html>${'<p>Pembayaran diterima — ✓</p>'.repeat(5_000)}</html>`;
  const decode: Record<ContentCoding, (bytes: Uint8Array) => Buffer> = {
    br: brotliDecompressSync,
    gzip: gunzipSync,
    identity: (bytes) => Buffer.from(bytes),
  };

  it('answers each coding with bytes that decode to the page, smaller than it when compressed', async () => {
    const page = compressedPage(text);
    for (const [header, coding] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      [null, 'identity'],
    ] as const) {
      const answer = await page.encode(header);
      expect(answer.coding).toBe(coding);
      expect(decode[coding](answer.body).toString('utf8')).toBe(text);
      if (coding !== 'identity') expect(answer.body.byteLength).toBeLessThan(Buffer.byteLength(text) / 10);
    }
  });

  it('compresses once per coding', async () => {
    const page = compressedPage(text);
    const [first, second] = await Promise.all([page.encode('br'), page.encode('br')]);
    expect(second.body).toBe(first.body);
  });
});
