import { describe, expect, it } from 'vitest';
import {
  collectValues,
  mediaTypeOf,
  parseBody,
  parseForm,
  queryValues,
  readBodyText,
  type BodyText,
  type ParsedBody,
  type TextValues,
} from './request-body.js';

const post = (body: BodyInit | null, headers: Record<string, string> = {}): Request =>
  new Request('http://api.test/things', { method: 'POST', body, headers });

/** A stream that counts how many chunks were pulled from it, to prove the reader stops early. */
function countingStream(
  chunks: number,
  chunkSize: number,
): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(chunkSize).fill(0x61));
    },
  });
  return { stream, pulled: () => pulled };
}

describe('readBodyText', () => {
  const cases: [string, { request: () => Request; max: number; want: BodyText }][] = [
    ['a body within the limit', { request: () => post('{"a":1}'), max: 7, want: { kind: 'text', text: '{"a":1}' } }],
    ['no body', { request: () => new Request('http://api.test/things'), max: 10, want: { kind: 'text', text: '' } }],
    ['one byte over the limit', { request: () => post('{"a":12}'), max: 7, want: { kind: 'too-large' } }],
    ['the limit counts bytes, not characters', { request: () => post('"ééé"'), max: 7, want: { kind: 'too-large' } }],
    [
      'a declared Content-Length above the limit, refused before reading',
      { request: () => post('{}', { 'content-length': '5000' }), max: 100, want: { kind: 'too-large' } },
    ],
    [
      'bytes that are not UTF-8',
      { request: () => post(new Uint8Array([0x7b, 0xff, 0x7d])), max: 10, want: { kind: 'not-utf8' } },
    ],
  ];
  it.each(cases)('%s', async (_name, { request, max, want }) => {
    expect(await readBodyText(request(), max)).toEqual(want);
  });

  it('reads a Response the same way', async () => {
    expect(await readBodyText(new Response('{"a":1}'), 7)).toEqual({ kind: 'text', text: '{"a":1}' });
    expect(await readBodyText(new Response('{"a":12}'), 7)).toEqual({ kind: 'too-large' });
  });

  it('stops reading an oversized stream instead of buffering it', async () => {
    const { stream, pulled } = countingStream(1000, 1024);
    const request = new Request('http://api.test/things', {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(await readBodyText(request, 4096)).toEqual({ kind: 'too-large' });
    expect(pulled()).toBeLessThan(10);
  });
});

describe('mediaTypeOf', () => {
  const cases: [string | null, string][] = [
    ['application/json', 'application/json'],
    ['Application/JSON; charset=utf-8', 'application/json'],
    ['application/x-www-form-urlencoded;charset=UTF-8', 'application/x-www-form-urlencoded'],
    ['text/plain', 'text/plain'],
    [null, 'application/json'],
    ['', 'application/json'],
  ];
  it.each(cases)('%s -> %s', (header, want) => {
    expect(mediaTypeOf(header)).toBe(want);
  });
});

describe('parseForm', () => {
  const cases: [string, { text: string; want: TextValues | undefined }][] = [
    [
      'name/value pairs as text',
      {
        text: 'external_id=va-1&amount=125000&is_closed=true',
        want: { external_id: 'va-1', amount: '125000', is_closed: 'true' },
      },
    ],
    [
      '`+` and percent-escapes decode, UTF-8 included',
      { text: 'name=Toko+Sinar%20Jaya&city=M%C3%A9dan', want: { name: 'Toko Sinar Jaya', city: 'Médan' } },
    ],
    ['a name without `=` has the empty value; empty pairs are skipped', { text: 'a&&b=', want: { a: '', b: '' } }],
    [
      'a repeated name collects its values',
      { text: 'email=a%40x.id&email=b%40x.id', want: { email: ['a@x.id', 'b@x.id'] } },
    ],
    ['an empty body is an empty form', { text: '', want: {} }],
    ['a broken percent-escape makes the form unparsable', { text: 'name=100%', want: undefined }],
    ['an escape that is not UTF-8 makes the form unparsable', { text: 'name=%FF', want: undefined }],
  ];
  it.each(cases)('%s', (_name, { text, want }) => {
    expect(parseForm(text)).toEqual(want);
  });
});

describe('parseBody', () => {
  const cases: [
    string,
    { text: string; type: 'application/json' | 'application/x-www-form-urlencoded'; want: ParsedBody },
  ][] = [
    ['JSON', { text: '{"amount":1}', type: 'application/json', want: { ok: true, value: { amount: 1 } } }],
    [
      'JSON that is not an object still parses (the schema rejects it)',
      { text: '"x"', type: 'application/json', want: { ok: true, value: 'x' } },
    ],
    ['malformed JSON', { text: '{"amount":', type: 'application/json', want: { ok: false } }],
    [
      'a form',
      { text: 'amount=1', type: 'application/x-www-form-urlencoded', want: { ok: true, value: { amount: '1' } } },
    ],
    ['a broken form', { text: 'amount=%', type: 'application/x-www-form-urlencoded', want: { ok: false } }],
  ];
  it.each(cases)('%s', (_name, { text, type, want }) => {
    expect(parseBody(text, type)).toEqual(want);
  });
});

describe('collectValues', () => {
  it('keeps only the named parameters, in order, and collects repeats', () => {
    const params = new URLSearchParams('external_id=a&unknown=1&external_id=b&ewallet_type=OVO');
    expect(collectValues(params, ['external_id', 'ewallet_type'])).toEqual({
      external_id: ['a', 'b'],
      ewallet_type: 'OVO',
    });
  });
});

describe('queryValues', () => {
  const names = new Set(['external_id', 'account_type']);
  const cases: [string, { search: string; want: Record<string, string | string[]> }][] = [
    ['one named parameter', { search: 'account_type=CASH', want: { account_type: 'CASH' } }],
    ['no query', { search: '', want: {} }],
    ['unnamed parameters left out', { search: 'limit=5&account_type=HOLDING', want: { account_type: 'HOLDING' } }],
    [
      'a repeated name collects its values in order',
      { search: 'external_id=a&external_id=b', want: { external_id: ['a', 'b'] } },
    ],
    ['a name without "=" has the empty value', { search: 'external_id', want: { external_id: '' } }],
    ['the value keeps the "=" after the first', { search: 'external_id=a=b', want: { external_id: 'a=b' } }],
    ['empty pairs are skipped', { search: '&&account_type=CASH&', want: { account_type: 'CASH' } }],
    ['percent-escapes are decoded', { search: 'external_id=inv%2F2026%20%C3%A9', want: { external_id: 'inv/2026 é' } }],
    ['"+" is a space', { search: 'external_id=a+b', want: { external_id: 'a b' } }],
    ['an escaped name', { search: 'account%5Ftype=CASH', want: { account_type: 'CASH' } }],
    ['a broken escape is kept as sent', { search: 'external_id=100%', want: { external_id: '100%' } }],
  ];
  it.each(cases)('%s, as URLSearchParams reads it', (_name, { search, want }) => {
    expect(queryValues(search, names)).toEqual(want);
    expect(queryValues(search, names)).toEqual(collectValues(new URLSearchParams(search), [...names]));
  });
});
