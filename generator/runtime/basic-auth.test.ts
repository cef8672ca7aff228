import { describe, expect, it } from 'vitest';
import { basicAuthorization, parseBasicAuthorization, type BasicCredentials } from './basic-auth.js';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('parseBasicAuthorization (RFC 7617)', () => {
  const cases: [string, { header: string | null; want: BasicCredentials | null }][] = [
    [
      'a secret key with the empty password',
      { header: `Basic ${base64('sk_test_abc:')}`, want: { username: 'sk_test_abc', password: '' } },
    ],
    [
      'the scheme name is case-insensitive',
      { header: `bAsIc ${base64('sk_test_abc:')}`, want: { username: 'sk_test_abc', password: '' } },
    ],
    [
      'several spaces after the scheme',
      { header: `Basic   ${base64('sk_test_abc:')}`, want: { username: 'sk_test_abc', password: '' } },
    ],
    [
      'the user-id ends at the first colon; the password keeps the others',
      { header: `Basic ${base64('user:pa:ss')}`, want: { username: 'user', password: 'pa:ss' } },
    ],
    [
      'UTF-8 credentials',
      { header: `Basic ${base64('pengguna:kata sandi é')}`, want: { username: 'pengguna', password: 'kata sandi é' } },
    ],
    [
      'base64 without its padding',
      { header: `Basic ${base64('ab:').replace(/=+$/, '')}`, want: { username: 'ab', password: '' } },
    ],
    ['no header', { header: null, want: null }],
    ['an empty header', { header: '', want: null }],
    ['another scheme', { header: `Bearer ${base64('sk_test_abc:')}`, want: null }],
    ['the scheme without credentials', { header: 'Basic', want: null }],
    ['not base64', { header: 'Basic !!!notbase64', want: null }],
    ['base64 of an impossible length', { header: 'Basic abcde', want: null }],
    ['no colon between user-id and password', { header: `Basic ${base64('sk_test_abc')}`, want: null }],
    ['a control character in the user-id', { header: `Basic ${base64('sk_\ntest:')}`, want: null }],
    ['bytes that are not UTF-8', { header: `Basic ${Buffer.from([0xff, 0xfe, 0x3a]).toString('base64')}`, want: null }],
  ];
  it.each(cases)('%s', (_name, { header, want }) => {
    expect(parseBasicAuthorization(header)).toEqual(want);
  });
});

describe('basicAuthorization', () => {
  it('is the inverse of parsing, UTF-8 included', () => {
    const credentials = { username: 'sk_test_ñ', password: '' };
    expect(basicAuthorization(credentials)).toBe(`Basic ${base64('sk_test_ñ:')}`);
    expect(parseBasicAuthorization(basicAuthorization(credentials))).toEqual(credentials);
  });
});
