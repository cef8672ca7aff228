// The dashboard as the site serves it: a browser opening the root is sent to it, API clients asking the
// root for JSON still get JSON; its files come with a policy that allows nothing from another host, and
// its module never writes data as HTML.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config.js';
import { describeSandbox } from '../main.js';
import { createTestSandbox, type TestSandbox } from '../testing/index.js';
import { DASHBOARD_PATH, prefersHtml } from './pages.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await createTestSandbox({ startDispatcher: false });
});
afterAll(() => sandbox.close());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  sandbox.fetch(new Request(`http://sandbox.test${path}`, { method, headers }));

describe('the root', () => {
  it('sends a browser to the dashboard', async () => {
    const response = await get('/', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(DASHBOARD_PATH);
  });

  it.each([
    ['Accept: application/json', { accept: 'application/json' }],
    ['no Accept', {}],
    ['Accept: */*', { accept: '*/*' }],
  ])('answers an API client (%s) with JSON, as before', async (_case, headers) => {
    const response = await get('/', headers);
    expect(response.status).not.toBe(302);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error_code: expect.any(String) });
  });

  it('sends a POST from a browser to the service, not to the dashboard', async () => {
    const response = await get('/', { accept: 'text/html' }, 'POST');
    expect(response.status).not.toBe(302);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('the dashboard files', () => {
  it.each([
    [DASHBOARD_PATH, /^text\/html/],
    [`${DASHBOARD_PATH}/dashboard.js`, /^text\/javascript/],
    [`${DASHBOARD_PATH}/dashboard.css`, /^text\/css/],
  ])('serves %s with its type and a policy allowing this host only', async (path, type) => {
    const response = await get(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(type);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('loads only files of its own: no other host in the page', async () => {
    const page = await (await get(DASHBOARD_PATH)).text();
    expect(page.match(/(?:src|href)="[^"]*"/g)?.filter((reference) => !/="(\/|data:,|#)/.test(reference))).toEqual([]);
  });

  it("never renders data as HTML (request bodies and callback payloads are anyone's input)", () => {
    const module = readFileSync(new URL('./static/dashboard.js', import.meta.url), 'utf8');
    expect(module).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
  });
});

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['text/html, application/json', true],
    ['application/json', false],
    ['application/json, text/html;q=0.5', false],
    ['text/html;q=0', false],
    ['*/*', false],
    [null, false],
  ])('%s → %s', (accept, wanted) => {
    expect(prefersHtml(accept)).toBe(wanted);
  });
});

describe('the start-up lines', () => {
  it('print where the dashboard is', () => {
    expect(describeSandbox('http://127.0.0.1:3000', defaultConfig())).toContain(
      `dashboard:            http://127.0.0.1:3000${DASHBOARD_PATH}`,
    );
  });
});
