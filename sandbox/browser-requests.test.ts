// What the sandbox does for requests a browser sends: a state-changing control request from a page of
// another site is refused 403 before its key is looked at; a 401 to a browser carries no Basic challenge
// (the login prompt that makes a browser keep the key); every answer carries the security headers.
import { describe, expect, it } from 'vitest';
import { isBrowserRequest, isCrossSiteWrite } from './browser-requests.js';
import { createSite } from './server.js';

const headersOf = (headers: Record<string, string>) => (name: string) => headers[name] ?? null;

describe('isCrossSiteWrite', () => {
  it.each([
    ['POST', { 'sec-fetch-site': 'cross-site' }, true],
    ['POST', { 'sec-fetch-site': 'same-site' }, true],
    ['PATCH', { 'sec-fetch-site': 'same-origin' }, false],
    ['POST', { 'sec-fetch-site': 'none' }, false],
    ['GET', { 'sec-fetch-site': 'cross-site' }, false],
    ['POST', { origin: 'http://attacker.example', host: '127.0.0.1:3000' }, true],
    ['POST', { origin: 'null', host: '127.0.0.1:3000' }, true],
    ['DELETE', { origin: 'http://127.0.0.1:3000', host: '127.0.0.1:3000' }, false],
    ['POST', {}, false],
  ] as const)('%s with %j: %s', (method, headers, refused) => {
    expect(isCrossSiteWrite(method, headersOf(headers))).toBe(refused);
  });
});

describe('isBrowserRequest', () => {
  it('knows a browser by Sec-Fetch-Mode, Origin, or asking for HTML; an API client by none of them', () => {
    expect(isBrowserRequest(headersOf({ 'sec-fetch-mode': 'navigate' }))).toBe(true);
    expect(isBrowserRequest(headersOf({ origin: 'http://localhost:3000' }))).toBe(true);
    expect(isBrowserRequest(headersOf({ accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }))).toBe(true);
    expect(isBrowserRequest(headersOf({ accept: 'application/json' }))).toBe(false);
    expect(isBrowserRequest(headersOf({}))).toBe(false);
  });
});

describe('the site to browsers', () => {
  let resets = 0;
  const unauthorized = async (): Promise<Response> =>
    new Response('{"error_code":"INVALID_API_KEY","message":"Send your key."}', {
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="payments"' },
    });
  const site = createSite({
    service: unauthorized,
    control: async (request) =>
      new URL(request.url).pathname === '/sandbox/reset'
        ? (resets++, new Response('{}', { headers: { 'content-type': 'application/json' } }))
        : unauthorized(),
    docs: { service: '<html><script>window.x = 1;</script><script src="/x.js"></script></html>' },
  });
  const send = (path: string, init: RequestInit = {}) => site(new Request(`http://127.0.0.1:3000${path}`, init));

  it('refuses a form posted to a control operation from another site 403 in JSON, and does nothing', async () => {
    const before = resets;
    const response = await send('/sandbox/reset', {
      method: 'POST',
      headers: {
        'sec-fetch-site': 'cross-site',
        origin: 'http://attacker.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '',
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error_code: 'CROSS_SITE_REQUEST_REFUSED', message: expect.any(String) });
    expect(resets).toBe(before);
    expect((await send('/sandbox/reset', { method: 'POST' })).status).toBe(200);
    expect(resets).toBe(before + 1);
  });

  it('sends the Basic challenge to API clients only', async () => {
    expect((await send('/balance')).headers.get('www-authenticate')).toBe('Basic realm="payments"');
    expect((await send('/balance', { headers: { 'sec-fetch-mode': 'cors' } })).headers.has('www-authenticate')).toBe(
      false,
    );
    expect((await send('/sandbox', { headers: { accept: 'text/html' } })).headers.has('www-authenticate')).toBe(false);
  });

  it('sends nosniff and a policy against framing with every answer, the docs page with its own scripts by hash', async () => {
    for (const path of ['/balance', '/openapi.json', '/sandbox/openapi.json', '/nope']) {
      const response = await send(path);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('content-security-policy'), path).toBe("default-src 'none'; frame-ancestors 'none'");
    }
    const docs = await send('/docs');
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docs.headers.get('content-security-policy')).toMatch(
      /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'; .*frame-ancestors 'none'/,
    );
    // The dashboard keeps its own, stricter policy.
    expect((await send('/dashboard')).headers.get('content-security-policy')).toMatch(/form-action 'none'/);
  });
});
