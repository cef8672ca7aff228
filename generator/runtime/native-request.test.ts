import { describe, expect, it } from 'vitest';
import {
  answerToResponse,
  nativeFromRequest,
  nativeHandlerOf,
  withNativeHandler,
  type NativeRequest,
} from './native-request.js';

describe('nativeFromRequest', () => {
  const request = new Request('http://payments.test/direct_debits/ddpy-1/?reference_id=a%20b', {
    method: 'POST',
    headers: { 'X-Key': 'k', 'content-type': 'application/json' },
    body: '{"otp_code":"222000"}',
  });
  const native = nativeFromRequest(request);

  it('reads the method, the decoded-as-sent path and the query without its ?', () => {
    expect([native.method, native.pathname, native.search]).toEqual([
      'POST',
      '/direct_debits/ddpy-1/',
      'reference_id=a%20b',
    ]);
  });

  it('reads headers by lower-case name, null when absent', () => {
    expect([native.header('x-key'), native.header('content-type'), native.header('authorization')]).toEqual([
      'k',
      'application/json',
      null,
    ]);
  });

  it('reads the body within the limit, and refuses one over it', async () => {
    expect(await native.readBody(1024)).toEqual({ kind: 'text', text: '{"otp_code":"222000"}' });
    const large = nativeFromRequest(new Request('http://payments.test/x', { method: 'POST', body: 'x'.repeat(100) }));
    expect(await large.readBody(10)).toEqual({ kind: 'too-large' });
  });

  it('hands back the very Request it wraps', () => {
    expect(native.toRequest()).toBe(request);
  });
});

describe('answerToResponse', () => {
  it('keeps status, headers and body', async () => {
    const response = answerToResponse({
      status: 409,
      headers: { 'content-type': 'application/json', 'x-a': '1' },
      body: '{"error_code":"DUPLICATE_ERROR"}',
    });
    expect([response.status, response.headers.get('x-a'), await response.json()]).toEqual([
      409,
      '1',
      { error_code: 'DUPLICATE_ERROR' },
    ]);
  });

  it('gives an answer without a body an empty one', async () => {
    expect(await answerToResponse({ status: 204, headers: {} }).text()).toBe('');
  });
});

describe('withNativeHandler', () => {
  it('attaches the native entry to the same function, and a plain handler has none', async () => {
    const fetchHandler = async (): Promise<Response> => new Response('fetch');
    const native = async (request: NativeRequest) => ({ status: 200, headers: {}, body: request.pathname });
    const combined = withNativeHandler(fetchHandler, native);
    expect(combined).toBe(fetchHandler);
    expect(nativeHandlerOf(combined)).toBe(native);
    expect(nativeHandlerOf(async () => new Response('plain'))).toBeUndefined();
  });
});
