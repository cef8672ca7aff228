import { describe, expect, it } from 'vitest';
import type { Scope } from '../context.js';
import { secretMasker } from './mask-secrets.js';
import { createRequestLog, type AddedRequest } from './request-log.js';

const A: Scope = { merchantId: 'merchant-a', mode: 'test' };
const A_LIVE: Scope = { merchantId: 'merchant-a', mode: 'live' };
const B: Scope = { merchantId: 'merchant-b', mode: 'test' };

const record = (id: string, changes: Partial<AddedRequest> = {}): AddedRequest => ({
  id,
  at: Date.parse('2026-11-21T09:30:00.000Z'),
  method: 'GET',
  path: '/balance',
  status: 200,
  error_code: null,
  idempotency_key: null,
  duration_ms: 1,
  request_body: null,
  response_body: '{"balance":1}',
  ...changes,
});

describe('the record of recent requests', () => {
  it('keeps the newest `capacity` requests of each merchant and mode, newest first', () => {
    const log = createRequestLog({ mask: (text) => text, capacity: 3 });
    for (let i = 1; i <= 5; i++) log.add(A, record(`a${i}`));
    expect(log.list(A, 10).map((entry) => entry.id)).toEqual(['a5', 'a4', 'a3']);
    expect(log.list(A, 2).map((entry) => entry.id)).toEqual(['a5', 'a4']);
  });

  it('shows when a request arrived as ISO text, to the millisecond', () => {
    const log = createRequestLog({ mask: (text) => text });
    log.add(A, record('a1', { at: Date.parse('2026-11-21T09:30:00.123Z') + 0.75 }));
    expect(log.list(A, 1)[0]!.at).toBe('2026-11-21T09:30:00.123Z');
  });

  it("never shows one merchant's or mode's requests to another", () => {
    const log = createRequestLog({ mask: (text) => text });
    log.add(A, record('a1'));
    log.add(B, record('b1'));
    log.add(A_LIVE, record('a-live-1'));
    expect(log.list(A, 50).map((entry) => entry.id)).toEqual(['a1']);
    expect(log.list(B, 50).map((entry) => entry.id)).toEqual(['b1']);
    expect(log.list(A_LIVE, 50).map((entry) => entry.id)).toEqual(['a-live-1']);
    expect(log.list({ merchantId: 'merchant-c', mode: 'test' }, 50)).toEqual([]);
  });

  it('cuts a long body at the limit and says how much was left out', () => {
    const log = createRequestLog({ mask: (text) => text, bodyLimit: 10 });
    log.add(A, record('a1', { request_body: 'x'.repeat(25), response_body: 'short' }));
    const [kept] = log.list(A, 1);
    expect(kept!.request_body).toBe(`${'x'.repeat(10)}… (15 more characters not kept)`);
    expect(kept!.response_body).toBe('short');
  });

  it('shows control characters of a body other than tab and line breaks escaped', () => {
    const log = createRequestLog({ mask: (text) => text });
    log.add(A, record('a1', { request_body: '{"a":\t1,\r\n"b":"\u0000\u001b\u007f"}' }));
    expect(log.list(A, 1)[0]!.request_body).toBe('{"a":\t1,\r\n"b":"\\u0000\\u001b\\u007f"}');
  });

  it('cuts a body at the limit after its control characters are escaped, whether it was sent within the limit or not', () => {
    const log = createRequestLog({ mask: (text) => text, bodyLimit: 10 });
    // 3 characters sent, 18 shown: cut at 10 as shown.
    log.add(A, record('a1', { request_body: '\u0000\u0001\u0002', response_body: null }));
    // 12 characters sent: cut at once, as shown.
    log.add(A, record('a2', { request_body: null, response_body: `\u001b${'x'.repeat(11)}` }));
    const [second, first] = log.list(A, 2);
    expect(first!.request_body).toBe('\\u0000\\u00… (8 more characters not kept)');
    expect(first!.response_body).toBeNull();
    expect(second!.response_body).toBe(`\\u001bxxxx… (7 more characters not kept)`);
    // Listed again, a record shows the same.
    expect(log.list(A, 2)).toEqual([second, first]);
  });

  it('masks keys, tokens and URL credentials in the path, the idempotency key and both bodies', () => {
    const mask = secretMasker(['sk_test_merchant_a_secret', 'cbt_token_of_a']);
    const log = createRequestLog({ mask });
    log.add(
      A,
      record('a1', {
        path: '/balance?key=sk_test_merchant_a_secret',
        idempotency_key: 'cbt_token_of_a',
        request_body: '{"callback_url":"https://user:pw@merchant.example/cb","note":"sk_live_someone_elses_key"}',
        response_body: '{"token":"cbt_token_of_a"}',
      }),
    );
    const [shown] = log.list(A, 1);
    const text = JSON.stringify(shown);
    for (const secret of ['sk_test_merchant_a_secret', 'cbt_token_of_a', 'user:pw', 'sk_live_someone_elses_key'])
      expect(text).not.toContain(secret);
    expect(shown).toMatchObject({
      path: '/balance?key=sk_test_***',
      idempotency_key: '***',
      request_body: '{"callback_url":"https://***@merchant.example/cb","note":"sk_live_***"}',
      response_body: '{"token":"***"}',
    });
  });
});
