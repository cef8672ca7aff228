// The hostile material, independent of any operation: bodies that do not parse, values of the wrong type,
// numbers JSON can write but a double cannot hold, nesting deep enough to overflow a recursive walker, bytes
// that are not UTF-8, content types, methods, paths, header sets and HTTP versions a client can send.
// hostile-cases.ts combines them with each operation of the contracts.

/** Bodies that are not JSON, or JSON of a shape no operation takes. */
export const MALFORMED_BODIES: readonly string[] = [
  '{',
  '{"a":}',
  '[1,2',
  'nul',
  '{"a":1}}',
  "{'a':1}",
  '{"a":1,}',
  '{"a" 1}',
  'NaN',
  'Infinity',
  '{"a":NaN}',
  '{"a":01}',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '\u0000',
  '"just a string"',
  '12345',
  'null',
  'true',
  '[]',
  '{}{}',
  '{"a":1}\n{"b":2}',
  '<xml/>',
  '{"a":"' + 'b'.repeat(64) + '}',
];

/** Values of every JSON type, for a field that takes another. */
export const WRONG_TYPES: readonly string[] = [
  'null',
  'true',
  '0',
  '-1',
  '1.5',
  '""',
  '"x"',
  '[]',
  '{}',
  '[[]]',
  '{"a":{}}',
];

/**
 * Numbers that overflow a double (1e309, and 1e308*10 written out as digits), that underflow, that lose
 * precision, or that are very long: JSON allows every one of them.
 */
export const HUGE_NUMBERS: readonly string[] = [
  '1e309',
  '-1e309',
  `1${'0'.repeat(309)}`,
  `-1${'0'.repeat(309)}`,
  '1e-400',
  '-0',
  '9007199254740993',
  '1.7976931348623157e308',
  `0.${'1'.repeat(5_000)}`,
  '1'.repeat(5_000),
];

/** Whether a number literal parses to ±Infinity: a value the service cannot store or answer as given. */
export const overflows = (literal: string): boolean => !Number.isFinite(Number(literal));

export const NESTING_DEPTHS: readonly number[] = [10, 1_000, 5_000, 100_000];

/** A value nested `depth` levels deep: arrays `[[[...]]]` or objects `{"a":{"a":...}}`. */
export function nested(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Strings a field may be given: long ones, and characters that trip naive code (NUL, a lone surrogate, RTL, emoji). */
export const ODD_STRINGS: ReadonlyArray<readonly [string, string]> = [
  ['10k chars', JSON.stringify('a'.repeat(10_000))],
  ['100k chars', JSON.stringify('a'.repeat(100_000))],
  ['NUL', '"a\\u0000b"'],
  ['lone surrogate', '"\\ud800"'],
  ['right-to-left override', '"\\u202eabc"'],
  ['emoji', JSON.stringify('😀'.repeat(1_000))],
  ['control characters', '"\\u0001\\u0002\\u001f\\u007f"'],
];

/** JSON string literals that are not text a store keeps (decision `json-body-text`): refused wherever they are. */
export const UNSTORABLE_STRINGS: ReadonlyArray<readonly [string, string]> = [
  ['lone high surrogate', '"Siti \\ud800"'],
  ['lone low surrogate', '"\\udc00x"'],
  ['U+0000', '"a\\u0000b"'],
];

/** Keys and values of unknown fields that attack the object model or the parser. */
export const UNKNOWN_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['__proto__', '{"__proto__":{"admin":true},"polluted":true}'],
  ['constructor', '{"constructor":{"prototype":{"admin":true}}}'],
  ['prototype', '{"prototype":null}'],
  ['empty name', '{"":""}'],
  ['long name', `{${JSON.stringify('k'.repeat(10_000))}:1}`],
  ['NUL name', '{"\\u0000":1}'],
  ['many fields', `{${Array.from({ length: 10_000 }, (_, i) => `"f${i}":${i}`).join(',')}}`],
  ['large string', `{"note":${JSON.stringify('n'.repeat(200_000))}}`],
  ['toString', '{"toString":"x","valueOf":"y","hasOwnProperty":1}'],
];

/** Byte sequences that are not UTF-8: a stray byte, an overlong slash, an encoded surrogate, a cut sequence. */
export const INVALID_UTF8: ReadonlyArray<readonly [string, Buffer]> = [
  ['0xff', Buffer.from([0xff])],
  ['overlong', Buffer.from([0xc0, 0xaf])],
  ['encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
  ['cut sequence', Buffer.from([0xe2, 0x82])],
  ['0xfe 0xff', Buffer.from([0xfe, 0xff])],
  ['latin-1 e', Buffer.from([0xe9])],
];

export const CONTENT_TYPES: readonly string[] = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/x-www-form-urlencoded',
  '',
  'application/json, text/plain',
  'APPLICATION/JSON',
  `application/json; ${'p'.repeat(5_000)}=1`,
  'application/merge-patch+json',
  'application/octet-stream',
];

/** Form bodies whose percent-escapes are broken or decode to something that is not UTF-8. */
export const BROKEN_FORMS: readonly string[] = [
  'a=%',
  'a=%zz',
  '%ff=1',
  'a=%ed%a0%80',
  '&&&=&',
  `${'a'.repeat(100_000)}=1`,
  'a=1&a=2&a=3',
];

export const ODD_METHODS: readonly string[] = [
  'GETT',
  'get',
  'PROPFIND',
  'TRACE',
  'OPTIONS',
  'HEAD',
  'DELETE',
  'PATCH',
  'PUT',
  'POST',
  'M-SEARCH',
  'A'.repeat(1_000),
  'G@T',
  'CONNECT',
];

export const HTTP_VERSIONS: readonly string[] = ['HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', '', 'HTTP/1.1 extra', 'HTTP/1.1x'];

/** Paths that reach no operation, or reach one by a detour: the router must answer them, never the server fail. */
export const ODD_ROOT_PATHS: readonly string[] = [
  '//x',
  '//',
  '/..',
  '/../../etc/passwd',
  '/%2e%2e/%2e%2e/',
  '/%',
  '/%zz',
  '/%00',
  '/%ff%fe',
  `/${'%'.repeat(1_000)}`,
  '*',
  'balance',
  'http://evil.test/balance',
  `/${'x'.repeat(8_000)}`,
  `/${'x/'.repeat(5_000)}`,
  '/?',
  '/#x',
  '/\\..\\',
  '/sandbox/../balance',
];

/** How each operation's own path is bent. */
export const PATH_BENDS: ReadonlyArray<readonly [string, (path: string) => string]> = [
  ['leading //', (path) => `/${path}`],
  ['/.. after', (path) => `${path}/..`],
  ['/./ before', (path) => `/.${path}`],
  ['/../ before', (path) => `/x/..${path}`],
  ['percent-encoded', (path) => path.replace(/[a-z]/g, (char) => `%${char.charCodeAt(0).toString(16)}`)],
  ['%2F for /', (path) => `/${path.slice(1).replaceAll('/', '%2F')}`],
  ['trailing %00', (path) => `${path}%00`],
  ['trailing %', (path) => `${path}%`],
  ['trailing %zz', (path) => `${path}%zz`],
  ['trailing //', (path) => `${path}//`],
  ['upper case', (path) => path.toUpperCase()],
  ['trailing ;', (path) => `${path};x=1`],
];

/** Values for a path or query parameter. */
export const ODD_PARAMETERS: readonly string[] = [
  'x'.repeat(10_000),
  '%00',
  '%ff',
  '..',
  '%2e%2e',
  '%2F',
  '%20',
  '%F0%9F%98%80',
  '%7Bid%7D',
  '%',
  '-1',
  '0',
  '',
];

/** Header sets that contradict themselves or the protocol, each with what it adds to a request's headers. */
export const ODD_HEADERS: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string]>]> = [
  [
    'two content types',
    [
      ['Content-Type', 'application/json'],
      ['Content-Type', 'text/plain'],
    ],
  ],
  [
    'two equal lengths',
    [
      ['Content-Length', '2'],
      ['Content-Length', '2'],
    ],
  ],
  [
    'two different lengths',
    [
      ['Content-Length', '2'],
      ['Content-Length', '3'],
    ],
  ],
  [
    'length and chunked',
    [
      ['Content-Length', '2'],
      ['Transfer-Encoding', 'chunked'],
    ],
  ],
  ['gzip, chunked', [['Transfer-Encoding', 'gzip, chunked']]],
  ['unknown transfer coding', [['Transfer-Encoding', 'x-unknown']]],
  ['negative length', [['Content-Length', '-1']]],
  ['length 1e3', [['Content-Length', '1e3']]],
  ['expect 100-continue', [['Expect', '100-continue']]],
  ['expect unknown', [['Expect', 'the-unexpected']]],
  ['space before colon', [['X-Odd ', 'x']]],
  ['NUL in value', [['X-Odd', 'a\u0000b']]],
  ['latin-1 name', [['X-\u00ff', 'x']]],
  ['obs-fold', [['X-Odd', 'a\r\n b']]],
  ['no Host', [['Host', '']]],
  [
    'two Hosts',
    [
      ['Host', 'a.test'],
      ['Host', 'b.test'],
    ],
  ],
  [
    'long idempotency key',
    [
      ['X-Idempotency-Key', 'k'.repeat(10_000)],
      ['Idempotency-Key', 'k'.repeat(10_000)],
    ],
  ],
  [
    'two idempotency keys',
    [
      ['X-Idempotency-Key', 'one'],
      ['X-Idempotency-Key', 'two'],
      ['Idempotency-Key', 'one'],
      ['Idempotency-Key', 'two'],
    ],
  ],
  ['api version garbage', [['X-Api-Version', '\u0001'.repeat(3)]]],
  [
    'keep-alive upgrade',
    [
      ['Connection', 'Upgrade'],
      ['Upgrade', 'websocket'],
    ],
  ],
];

/** Header sections past Node's limit (16 KiB): one huge header, many headers, a huge cookie. */
export const OVERSIZED_HEADERS: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, string]>]> = [
  ['one 20 KiB header', [['X-Big', 'b'.repeat(20 * 1024)]]],
  ['300 headers', Array.from({ length: 300 }, (_, i) => [`X-H${i}`, 'v'.repeat(100)] as const)],
  ['64 KiB cookie', [['Cookie', `c=${'c'.repeat(64 * 1024)}`]]],
];

/** Authorization headers that carry no valid key. */
export const BROKEN_AUTHORIZATIONS: readonly string[] = [
  'Basic !!!',
  'Bearer x',
  'Basic',
  `Basic ${Buffer.from('no-colon').toString('base64')}`,
  `Basic ${Buffer.from('sk_test_unknown_key:').toString('base64')}`,
  `Basic ${'A'.repeat(20_000)}`,
  `Basic ${Buffer.from('\u0000:').toString('base64')}`,
];
