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

  it.each(cases)('%s: the same answer when the header comes again', (_name, { header, want }) => {
    parseBasicAuthorization(header);
    expect(parseBasicAuthorization(header)).toEqual(want);
  });

  it('gives a header sent again the same credentials, which no caller can change for the next', () => {
    const header = `Basic ${base64('sk_test_again:')}`;
    const first = parseBasicAuthorization(header);
    expect(parseBasicAuthorization(header)).toBe(first);
    expect(() => {
      if (first) first.username = 'sk_test_someone_else';
    }).toThrow(TypeError);
    expect(parseBasicAuthorization(header)).toEqual({ username: 'sk_test_again', password: '' });
  });

  it('still parses every header right when many different ones come (the kept ones are bounded)', () => {
    for (let n = 0; n < 1000; n++)
      expect(parseBasicAuthorization(`Basic ${base64(`sk_test_${n}:`)}`)).toEqual({
        username: `sk_test_${n}`,
        password: '',
      });
    expect(parseBasicAuthorization(`Basic ${base64('sk_test_0:')}`)).toEqual({ username: 'sk_test_0', password: '' });
  });
});

describe('basicAuthorization', () => {
  it('is the inverse of parsing, UTF-8 included', () => {
    const credentials = { username: 'sk_test_ñ', password: '' };
    expect(basicAuthorization(credentials)).toBe(`Basic ${base64('sk_test_ñ:')}`);
    expect(parseBasicAuthorization(basicAuthorization(credentials))).toEqual(credentials);
  });
});
