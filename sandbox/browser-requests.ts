// Requests a web browser sends. The API is for servers (decision `no-browser-access`), but a browser holding
// a key can still be made to send one: a page of any site can post a form or a simple fetch to the sandbox,
// and a browser that was once shown a Basic login prompt adds the key it was given there by itself. So
// state-changing control requests from another site are refused, and a browser is never asked for the key.
import type { ProtocolError } from '@payments-contract/server/runtime/node-listener';
import { prefersHtml } from './dashboard/pages.js';

/** A request's headers, by lower-case name (the native request's and a Request's alike). */
export type HeaderOf = (name: string) => string | null;

/** Methods that change nothing (the control API's reads): a page of another site may send them, and cannot read the answer. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CROSS_SITE_REFUSAL = {
  status: 403,
  error_code: 'CROSS_SITE_REQUEST_REFUSED',
  message:
    'A page of another site cannot change this sandbox: send the request from your own code, or from the dashboard.',
} as const satisfies ProtocolError;

/**
 * Whether a state-changing request was sent by a browser for a page of another origin. Browsers name the
 * relation in Sec-Fetch-Site (`same-site` included: another port of localhost is another program); older
 * ones only send Origin, compared with Host. Clients other than browsers send neither and pass.
 */
export function isCrossSiteWrite(method: string, header: HeaderOf): boolean {
  if (SAFE_METHODS.has(method)) return false;
  const site = header('sec-fetch-site');
  if (site !== null) return site !== 'same-origin' && site !== 'none';
  const origin = header('origin');
  if (origin === null) return false;
  try {
    return new URL(origin).host !== (header('host') ?? '').toLowerCase();
  } catch {
    // `null` (a sandboxed frame, a redirect from elsewhere) or garbage: nobody's own page.
    return true;
  }
}

/**
 * Whether a browser sent the request: it says so in Sec-Fetch-Mode, or in Origin, or by asking for HTML.
 * Its 401 then carries no `WWW-Authenticate: Basic`, which would make the browser prompt for a key and keep
 * sending it to this host afterwards, to any page's requests.
 */
export function isBrowserRequest(header: HeaderOf): boolean {
  return header('sec-fetch-mode') !== null || header('origin') !== null || prefersHtml(header('accept'));
}
