// The dashboard's files as the site serves them: a static page and its module and styles
// (sandbox/dashboard/static), read once at start-up. The page talks to the control API and the contracts
// of this same sandbox only, and its Content-Security-Policy says so: no script, style, image or request
// from any other host, nothing inline.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { NativeAnswer } from '@payments-contract/server/runtime/native-request';

/** Where a browser opening the sandbox's root is sent. */
export const DASHBOARD_PATH = '/dashboard';

const FILES: readonly { path: string; file: string; type: string }[] = [
  { path: DASHBOARD_PATH, file: 'index.html', type: 'text/html; charset=utf-8' },
  { path: `${DASHBOARD_PATH}/dashboard.js`, file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  { path: `${DASHBOARD_PATH}/dashboard.css`, file: 'dashboard.css', type: 'text/css; charset=utf-8' },
];

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/**
 * The static folder: beside this module in the repository, and at the package's root once compiled to
 * dist/, so it is found through the package itself (its package.json is exported) in both.
 */
function staticFolder(): string {
  const manifest = createRequire(import.meta.url).resolve('@payments-contract/sandbox/package.json');
  return join(dirname(manifest), 'dashboard', 'static');
}

/** Each dashboard path with its answer. */
export function dashboardPages(folder: string = staticFolder()): Map<string, NativeAnswer> {
  return new Map(
    FILES.map(({ path, file, type }) => [
      path,
      {
        status: 200,
        headers: { 'content-type': type, ...SECURITY_HEADERS },
        body: readFileSync(join(folder, file), 'utf8'),
      },
    ]),
  );
}

/**
 * Whether a request for `/` comes from a browser (it asks for HTML before JSON), which is sent to the
 * dashboard; API clients asking for JSON, or for anything, get the service's JSON answer as before.
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false;
  const ranked = accept.split(',').map((part, index) => {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
    return { type: type.trim(), q: q === undefined ? 1 : Number(q.slice(2)) || 0, index };
  });
  const weight = (wanted: string): number =>
    Math.max(0, ...ranked.filter((entry) => entry.type === wanted).map((entry) => entry.q));
  const html = weight('text/html');
  return html > 0 && html >= weight('application/json');
}
