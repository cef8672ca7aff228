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
const docsDir = join(repoRoot, 'build/docs');
const artifactsDir = join(repoRoot, 'test-artifacts');
const doc = loadBundled();

let browser: Browser;
let server: Server;
let page: Page;
const pageErrors: string[] = [];

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
  await page.goto(`${served.baseUrl}/index.html`, { waitUntil: 'load' });
  await page.waitForSelector('[id$="/operation/getBalance"]', { timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('docs page', () => {
  it('renders a section for every operation and every webhook', async () => {
    const ids = [...listOperations(doc), ...listWebhooks(doc)].map((entry) => entry.operationId);
    const rendered = await page.$$eval('[id*="/operation/"]', (nodes) => nodes.map((node) => node.id.split('/operation/')[1]));
    expect(ids.filter((id) => !rendered.includes(id))).toEqual([]);
    expect(ids).toHaveLength(33);
  });

  it('shows each operation\'s summary as a heading', async () => {
    const headings = await page.$$eval('h2', (nodes) => nodes.map((node) => node.textContent?.trim() ?? ''));
    const summaries = [...listOperations(doc), ...listWebhooks(doc)].map((entry) => String(entry.operation.summary));
    expect(summaries.filter((summary) => !headings.includes(summary))).toEqual([]);
  });

  it('logs no errors, and leaves a screenshot', async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.screenshot({ path: join(artifactsDir, 'docs.png'), fullPage: false });
    expect(pageErrors).toEqual([]);
  });
});
