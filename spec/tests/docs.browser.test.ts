// The partner documentation (Redoc, built by `redocly build-docs`) renders every operation and every
// callback, and the page logs no errors. A screenshot is kept in test-artifacts/ for review.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, listWebhooks, loadBundled } from './document.js';
import { serveDirectory } from './processes.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const docsDir = join(repoRoot, 'generated/contract/docs');
const artifactsDir = join(repoRoot, 'test-artifacts');
const doc = loadBundled();

let browser: Browser;
let server: Server;
let page: Page;
let baseUrl: string;
const pageErrors: string[] = [];
const externalRequests: string[] = [];

beforeAll(async () => {
  execFileSync('npm', ['run', '--silent', 'docs'], { cwd: repoRoot, stdio: 'pipe' });
  const served = await serveDirectory(docsDir);
  server = served.server;
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // Hermetic: the machine has no internet. Outside requests are answered empty and recorded, so a test
  // below can insist the page needs nothing from outside but Redoc's branding image.
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, async (route) => {
    externalRequests.push(route.request().url());
    await route.fulfill({ status: 204 });
  });
  await page.route('**/favicon.ico', (route) => route.fulfill({ status: 204 }));
  baseUrl = served.baseUrl;
  await page.goto(`${baseUrl}/index.html`, { waitUntil: 'load' });
  await page.getByRole('heading', { name: /Payments API/ }).first().waitFor({ timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const entries = [...listOperations(doc), ...listWebhooks(doc)];

/**
 * Expands every tag in the sidebar and returns the in-page routes it then links to (`#/<tag>/<operation>`).
 * A tag is clicked only when none of its operations is listed yet (a click on an open tag closes it), and
 * each click waits until they are.
 */
async function expandSidebar(): Promise<string[]> {
  const tags = ((doc.tags ?? []) as { name: string }[]).map((tag) => tag.name);
  for (const tag of tags) {
    const ids = entries.filter((entry) => entry.operation.tags?.toString() === tag).map((entry) => entry.operationId.toLowerCase());
    const listed = page.locator(ids.map((id) => `a[href$="/${id}"]`).join(', '));
    if ((await listed.count()) === 0) await page.getByText(tag, { exact: true }).first().click();
    await listed.first().waitFor({ state: 'attached', timeout: 15_000 });
  }
  return page.$$eval('a[href^="#/"]', (links) => links.map((link) => link.getAttribute('href') ?? ''));
}

let routes: string[] = [];

describe('docs page', () => {
  it('lists every operation and every webhook in the sidebar', async () => {
    routes = await expandSidebar();
    const missing = entries.filter((entry) => !routes.some((route) => route.endsWith(`/${entry.operationId.toLowerCase()}`)));
    expect(missing.map((entry) => entry.operationId)).toEqual([]);
    expect(entries).toHaveLength(33);
  }, 120_000);

  it('renders each operation and webhook with its summary as a heading', async () => {
    const notRendered: string[] = [];
    for (const entry of entries) {
      const route = routes.find((candidate) => candidate.endsWith(`/${entry.operationId.toLowerCase()}`));
      await page.goto(`${baseUrl}/index.html${route ?? ''}`);
      const heading = page.locator('h2', { hasText: String(entry.operation.summary) }).first();
      try {
        await heading.waitFor({ state: 'visible', timeout: 10_000 });
      } catch {
        notRendered.push(entry.operationId);
      }
    }
    expect(notRendered).toEqual([]);
  }, 120_000);

  it('logs no errors, and leaves a screenshot', async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.goto(`${baseUrl}/index.html#/fixed-virtual-accounts/createfixedvirtualaccount`);
    await page.locator('h2', { hasText: 'Create a fixed virtual account' }).first().waitFor();
    await page.screenshot({ path: join(artifactsDir, 'docs.png'), fullPage: false });
    expect(pageErrors).toEqual([]);
  });

  it('loads nothing from outside but the Redoc branding image (scripts and styles are inlined)', () => {
    expect(externalRequests.filter((url) => !/^https:\/\/cdn\.redoc\.ly\/redoc\/logo[\w-]*\.svg$/.test(url))).toEqual([]);
  });
});
