// The partner documentation (Redoc, built by `redocly build-docs`), as the sandbox serves it at /docs:
// every operation and every callback rendered, the decisions in a section of their own that the
// descriptions' links land in, and a page that works offline. Nothing is stubbed: every request the page
// makes goes where it would, and a request to any other host or a console error fails the test. A
// screenshot is kept in test-artifacts/ for review.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECISIONS_TAG, linkedDecisionIds } from '@payments-contract/model/decisions';
import { createSite, listen, type Listening } from '@payments-contract/sandbox/testing';
import { listOperations, listWebhooks, loadBundled } from './document.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const artifactsDir = join(repoRoot, 'test-artifacts');
const doc = loadBundled();

let browser: Browser;
let server: Listening;
let page: Page;
let baseUrl: string;
const pageErrors: string[] = [];
/** Every request the page made, and those of them to a host other than the sandbox's. */
const requests: string[] = [];
const externalRequests: string[] = [];
const failedRequests: string[] = [];

// The page is built from the bundled contract into a folder of its own: rebuilding the contract package in place
// (`npm run docs`) would empty its dist/ under the tests that read it at the same time.
const docsDir = mkdtempSync(join(tmpdir(), 'docs-page-'));

beforeAll(async () => {
  execFileSync(process.execPath, ['--import', 'tsx', 'generator/build-packages.ts', '--docs-into', docsDir], {
    cwd: repoRoot,
    stdio: 'pipe',
  });
  // The sandbox's site with the built page; the API routers are not what this test looks at.
  const notHere = async (): Promise<Response> =>
    new Response('{"error_code":"NOT_FOUND","message":"Not served by this test."}', {
      status: 404,
      headers: { 'content-type': 'application/json' },
    });
  server = await listen(
    createSite({
      service: notHere,
      control: notHere,
      docs: {
        service: readFileSync(join(docsDir, 'docs/index.html'), 'utf8'),
        library: readFileSync(join(docsDir, 'docs/redoc.js'), 'utf8'),
      },
    }),
    {
      host: '127.0.0.1',
      port: 0,
    },
  );
  baseUrl = server.url;
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
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // Counted, not stubbed: data: and blob: URLs are the page's own; anything else must be the sandbox.
  page.on('request', (request) => {
    const url = request.url();
    requests.push(url);
    if (!url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== baseUrl)
      externalRequests.push(url);
  });
  page.on('requestfailed', (request) => failedRequests.push(`${request.url()}: ${request.failure()?.errorText ?? ''}`));
  await page.goto(`${baseUrl}/docs`, { waitUntil: 'load' });
  await page
    .getByRole('heading', { name: /Payments API/ })
    .first()
    .waitFor({ timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(docsDir, { recursive: true, force: true });
});

const entries = [...listOperations(doc), ...listWebhooks(doc)];

/**
 * Expands every tag in the sidebar and returns the in-page routes it then links to (`#/<tag>/<operation>`).
 * A tag is clicked only when none of its operations is listed yet (a click on an open tag closes it). The
 * page arrives rendered and is made live afterwards: a click before that does nothing, which on a loaded
 * machine takes seconds, so a tag still closed a few seconds after its click is clicked again.
 */
async function expandSidebar(): Promise<string[]> {
  const tags = ((doc.tags ?? []) as { name: string }[]).map((tag) => tag.name);
  for (const tag of tags) {
    const ids = entries
      .filter((entry) => entry.operation.tags?.toString() === tag)
      .map((entry) => entry.operationId.toLowerCase());
    const listed = page.locator(ids.map((id) => `a[href$="/${id}"]`).join(', '));
    for (let clicks = 0; (await listed.count()) === 0; clicks++) {
      if (clicks === 10) throw new Error(`the sidebar did not open ${tag} after ${clicks} clicks`);
      await page.getByText(tag, { exact: true }).first().click();
      await listed
        .first()
        .waitFor({ state: 'attached', timeout: 5_000 })
        .catch(() => undefined);
    }
  }
  return page.$$eval('a[href^="#/"]', (links) => links.map((link) => link.getAttribute('href') ?? ''));
}

let routes: string[] = [];

describe('docs page', () => {
  it('lists every operation and every callback in the sidebar', async () => {
    routes = await expandSidebar();
    const missing = entries.filter(
      (entry) => !routes.some((route) => route.endsWith(`/${entry.operationId.toLowerCase()}`)),
    );
    expect(missing.map((entry) => entry.operationId)).toEqual([]);
    expect(entries).toHaveLength(33);
  }, 120_000);

  it('renders each operation and callback with its summary as a heading', async () => {
    const notRendered: string[] = [];
    for (const entry of entries) {
      const route = routes.find((candidate) => candidate.endsWith(`/${entry.operationId.toLowerCase()}`));
      await page.goto(`${baseUrl}/docs${route ?? ''}`);
      const heading = page.locator('h2', { hasText: String(entry.operation.summary) }).first();
      try {
        await heading.waitFor({ state: 'visible', timeout: 10_000 });
      } catch {
        notRendered.push(entry.operationId);
      }
    }
    expect(notRendered).toEqual([]);
  }, 120_000);

  it('shows a curl and a TypeScript client sample on every operation', async () => {
    const operations = listOperations(doc);
    const withoutSamples: string[] = [];
    for (const entry of operations) {
      const route = routes.find((candidate) => candidate.endsWith(`/${entry.operationId.toLowerCase()}`)) ?? '';
      await page.goto(`${baseUrl}/docs${route}`);
      await page
        .locator('h2', { hasText: String(entry.operation.summary) })
        .first()
        .waitFor({ state: 'visible' });
      // The operation's own section (its id is the route), and the request samples panel in it.
      const panel = page.locator(`[id="${route.slice(2)}"] .panel-request-samples`).first();
      const shows = async (language: string, text: string): Promise<boolean> => {
        await panel.getByRole('button', { name: /^(curl|TypeScript client|Payload)$/ }).click();
        await page.getByRole('menuitem', { name: language, exact: true }).click();
        return panel.getByText(text).first().isVisible();
      };
      const curl = await shows('curl', '"$PAYMENTS_API_KEY:"');
      const typescript = await shows('TypeScript client', `payments.${entry.operationId}(`);
      if (!curl || !typescript) withoutSamples.push(`${entry.operationId}: curl ${curl}, TypeScript ${typescript}`);
    }
    console.info(
      `docs page: samples on ${operations.length - withoutSamples.length} of ${operations.length} operations`,
    );
    expect(operations).toHaveLength(27);
    expect(withoutSamples).toEqual([]);
  }, 180_000);

  it("names conditional schemas' branches in words, a created disbursement's PENDING shape first", async () => {
    const unnamed: string[] = [];
    for (const entry of entries) {
      const route = routes.find((candidate) => candidate.endsWith(`/${entry.operationId.toLowerCase()}`)) ?? '';
      await page.goto(`${baseUrl}/docs${route}`);
      const section = page.locator(`[id="${route.slice(2)}"]`).first();
      await section.locator('h2').first().waitFor({ state: 'visible' });
      if (/\bcase [12]\b/.test(await section.innerText())) unnamed.push(entry.operationId);
    }
    expect(unnamed).toEqual([]);
    await page.goto(`${baseUrl}/docs#/disbursements/createdisbursement`);
    const section = page.locator('[id="disbursements/createdisbursement"]');
    const branches = section.getByText(/^status is /);
    await branches.first().waitFor({ state: 'attached' });
    expect(await branches.allInnerTexts()).toEqual(['status is PENDING or COMPLETED', 'status is FAILED']);
  }, 120_000);

  it('logs no errors, and leaves a screenshot', async () => {
    mkdirSync(artifactsDir, { recursive: true });
    await page.goto(`${baseUrl}/docs#/fixed-virtual-accounts/createfixedvirtualaccount`);
    await page.locator('h2', { hasText: 'Create a fixed virtual account' }).first().waitFor();
    await page.screenshot({ path: join(artifactsDir, 'docs.png'), fullPage: false });
    expect(pageErrors).toEqual([]);
  });

  it('shows the decisions in a section of their own, where every link from a description lands', async () => {
    const decisions = (doc['x-decisions'] as { id: string }[]).map((decision) => decision.id);
    const linked = linkedDecisionIds(doc);
    expect(linked.length).toBeGreaterThan(50);
    await page.goto(`${baseUrl}/docs#/decisions`);
    await page.getByText(DECISIONS_TAG, { exact: true }).first().waitFor();
    const routes = new Set(
      await page.$$eval('a[href^="#/decisions/"]', (links) => links.map((link) => link.getAttribute('href') ?? '')),
    );
    expect([...new Set([...decisions, ...linked])].filter((id) => !routes.has(`#/decisions/${id}`))).toEqual([]);
    // Followed from the introduction's conventions, a link shows its decision's heading and quote.
    await page.goto(`${baseUrl}/docs#/section/conventions`);
    await page.locator('a[href="#/decisions/form-encoding-coercion"]').first().click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/decisions/form-encoding-coercion');
    await page.locator('h3', { hasText: 'form-encoding-coercion' }).first().waitFor({ state: 'visible' });
    await page.getByText('The interface specification:').first().waitFor({ state: 'attached' });
  }, 60_000);

  it('speaks of callbacks, and never of a seed', async () => {
    await page.goto(`${baseUrl}/docs#/callbacks`);
    await page.locator('h2', { hasText: 'A fixed virtual account received a payment' }).first().waitFor();
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('Callbacks');
    expect(text.match(/.{0,40}\b(webhooks?|seed)\b.{0,40}/gi) ?? []).toEqual([]);
  });

  it('shows no raw Markdown: the Servers panel, the introduction and what follows it read as text', async () => {
    await page.goto(`${baseUrl}/docs`);
    await page.getByText('Servers', { exact: true }).first().waitFor();
    await page.getByText('test mode at http://127.0.0.1:3000').first().waitFor();
    const text = await page.evaluate(() => document.body.innerText);
    expect(text.match(/.{0,40}(`[^`\n]+`|\]\([^)\s]*\)|\*\*[A-Za-z][^*\n]*\*\*).{0,40}/g) ?? []).toEqual([]);
  });

  it('shows a changelog a person reads: a list per release, nothing clipped, many changes of one kind in one line', async () => {
    await page.goto(`${baseUrl}/docs#/section/changelog`);
    const heading = page.locator('h2', { hasText: /^Changelog$/ }).first();
    await heading.waitFor({ state: 'visible' });
    const found = await heading.evaluate((element) => {
      // The section: the heading's nearest container that also holds the oldest release's entry.
      let section = element as HTMLElement;
      while (section.parentElement && !section.innerText.includes('1.4.11')) section = section.parentElement;
      const items = [...section.querySelectorAll('li')];
      return {
        headings: section.querySelectorAll('h2').length,
        items: items.length,
        tables: section.querySelectorAll('table').length,
        clipped: [...section.querySelectorAll('*')].filter((node) => node.scrollWidth > node.clientWidth + 1).length,
        text: section.innerText,
      };
    });
    expect(found.headings).toBe(1);
    expect(found.items).toBeGreaterThan(10);
    expect(found.tables).toBe(0);
    expect(found.clipped).toBe(0);
    expect(found.text).not.toMatch(/changes of one kind/);
    // A count in the thousands, written as a person reads it (the exact count moves with every contract change).
    expect(found.text).toMatch(/, and \d{1,3}(,\d{3})+ more changes like it \(/);
  });

  it("is at most half the 3.07 MB of HTML it was, Redoc's library loaded beside it", () => {
    const bytes = readFileSync(join(docsDir, 'docs/index.html')).byteLength;
    console.info(`docs page: ${bytes} bytes of HTML (3,073,919 with the library inline)`);
    expect(bytes).toBeLessThanOrEqual(3_073_919 / 2);
  });

  it('works offline: no request to another host, none failed, no console error (nothing stubbed)', () => {
    // The figures, for the record of a run.
    console.info(
      `docs page: ${requests.length} requests, ${externalRequests.length} to other hosts, ${failedRequests.length} failed, ${pageErrors.length} console errors`,
    );
    expect(requests.length).toBeGreaterThan(0);
    expect(externalRequests).toEqual([]);
    expect(failedRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
