// The sandbox against a browser that holds its key, in headless Chromium: a page of another site posts a
// form to /sandbox/reset (the browser adding the key, as it does once it was given one at a login prompt)
// and is refused, the merchant's data untouched; opening a control URL asks the browser for no key; and a
// mistyped key on the dashboard is told apart on the page instead of hanging it behind a login prompt.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_SECRET_KEY } from './config.js';
import type { RunningSandbox } from './main.js';
import { startLocalSandbox } from './testing/local-sandbox.js';

const authorization = `Basic ${Buffer.from(`${DEFAULT_TEST_SECRET_KEY}:`).toString('base64')}`;
const HOUR_MS = 3_600_000;

let sandbox: RunningSandbox;
let attacker: Server;
let attackerUrl: string;
let browser: Browser;

/** The page of another site: an empty form (reset takes an empty body) posting itself to the sandbox's reset as soon as it loads. */
const attackPage = (target: string): string =>
  `<!doctype html><html><body><form id="f" method="POST" action="${target}/sandbox/reset"></form><script>document.getElementById('f').submit();</script></body></html>`;

beforeAll(async () => {
  sandbox = await startLocalSandbox();
  attacker = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(attackPage(sandbox.url)),
  );
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  // localhost, not 127.0.0.1: another site than the sandbox's, as an attacker's page would be.
  attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
  await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
});

const api = async (
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> => {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

describe('a browser holding the key', () => {
  it('cannot be made by a page of another site to reset the merchant', async () => {
    expect((await api('POST', '/sandbox/clock/advance', { milliseconds: HOUR_MS })).status).toBe(200);
    // The key sent with every request, as a browser sends the one it kept from a login prompt.
    const context = await browser.newContext({ extraHTTPHeaders: { authorization } });
    const page = await context.newPage();
    const reset = page.waitForResponse((response) => response.url() === `${sandbox.url}/sandbox/reset`);
    await page.goto(attackerUrl);
    const answer = await reset;
    expect(answer.status()).toBe(403);
    expect(await answer.json()).toMatchObject({ error_code: 'CROSS_SITE_REQUEST_REFUSED' });
    await context.close();
    // Nothing was reset: the clock is still an hour ahead.
    expect(Number((await api('GET', '/sandbox/clock')).json.offset_ms)).toBeGreaterThanOrEqual(HOUR_MS);
  });

  it('is not asked for a key when it opens a control URL', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(`${sandbox.url}/sandbox/settings`);
    expect(response?.status()).toBe(401);
    expect(response?.headers()['www-authenticate']).toBeUndefined();
    expect(await response?.json()).toMatchObject({ error_code: 'INVALID_API_KEY' });
    await context.close();
  });
});

describe('the dashboard with a mistyped key', () => {
  it("says the key is not one of the sandbox's, without a login prompt, and takes the right one after it", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const challenges: string[] = [];
    page.on('response', (response) => {
      const challenge = response.headers()['www-authenticate'];
      if (challenge !== undefined) challenges.push(`${response.url()}: ${challenge}`);
    });
    await page.goto(`${sandbox.url}/dashboard`);
    await page.getByLabel('Secret key').fill('sk_test_mistyped');
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect
      .poll(() => page.locator('#notice').textContent(), { timeout: 5_000 })
      .toMatch(/not a key of this sandbox/);
    expect(await page.locator('#notice').textContent()).not.toMatch(/HTTP Basic/);
    expect(challenges).toEqual([]);
    await page.getByLabel('Secret key').fill(DEFAULT_TEST_SECRET_KEY);
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect.poll(() => page.locator('#who').textContent(), { timeout: 5_000 }).toMatch(/test mode/);
    await context.close();
  });
});
