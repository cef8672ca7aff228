// The sandbox on the network: one fetch-standard handler that serves the docs and the two contracts and hands
// every other request to the control router (/sandbox...) or the service router, and the Node listener for
// it, over HTTP or HTTPS. With TLS on, one port takes both kinds of connection and answers plain HTTP with a
// JSON error instead of a dropped connection, so a client that forgot the `s` is told why.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer as createHttpServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { docsPaths, openapiPath, sandboxOpenapiPath } from '@payments-contract/contract';
import {
  nativeHandlerOf,
  withNativeHandler,
  type NativeAnswer,
  type NativeHandler,
} from '@payments-contract/server/runtime/native-request';
import {
  answerProtocolErrors,
  rawErrorResponse,
  toNodeListener,
  type FetchHandler,
  type ProtocolError,
} from '@payments-contract/server/runtime/node-listener';
import { CROSS_SITE_REFUSAL, isBrowserRequest, isCrossSiteWrite, type HeaderOf } from './browser-requests.js';
import { compressedPage, type CompressedPage } from './compressed-page.js';
import { DASHBOARD_PATH, dashboardPages, prefersHtml } from './dashboard/pages.js';
import { checkIntervalMs, DEFAULT_DEADLINES, type Deadlines } from './deadlines.js';
import { hostChecker } from './host-names.js';
import { addMissingHeaders, API_SECURITY_HEADERS, docsSecurityHeaders, headerPairs } from './security-headers.js';
import {
  newRequestId,
  REQUEST_ID_HEADER,
  type HealthAnswer,
  type RefusedRequest,
  type RequestObserver,
  type SiteTarget,
} from './observability/index.js';

/** A page of documentation: the bundled contract and its Redoc page, both shipped in the contract package. */
interface DocsSource {
  /** The bundled contract. */
  spec: string;
  /** Its Redoc page, built with the contract package. */
  page: string;
}

export const DOCS: Record<'service' | 'control', DocsSource> = {
  service: { spec: openapiPath, page: docsPaths.service },
  control: { spec: sandboxOpenapiPath, page: docsPaths.control },
};

/** A file the contract package's build makes, or undefined when the package was installed without its pages. */
function readBuilt(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A contract's Redoc page, or undefined when the contract package was installed without its pages. */
export const readDocs = (source: DocsSource): string | undefined => readBuilt(source.page);

/** Redoc's library, which both pages load from /docs/redoc.js: built beside them (generator/docs/page.ts). */
export const DOCS_LIBRARY = { path: join(dirname(docsPaths.service), 'redoc.js'), url: '/docs/redoc.js' } as const;

/** The library's text, or undefined when the contract package was installed without its pages. */
export const readDocsLibrary = (): string | undefined => readBuilt(DOCS_LIBRARY.path);

export interface SiteOptions {
  /** The service router (every path not under /sandbox). */
  service: FetchHandler;
  /** The control router (/sandbox and below). */
  control: FetchHandler;
  /** The Redoc pages and the library they load; a missing one answers 404 (tests run without building docs). */
  docs?: { service?: string; control?: string; library?: string };
  /** GET /health, answered without a key; without it the path is the service's (a 404). */
  health?: () => Promise<HealthAnswer>;
  /** Wraps every request (request id, log line, request record); without it requests go straight through. */
  observer?: RequestObserver;
}

const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}): NativeAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const refusalAnswer = ({ status, error_code, message }: ProtocolError): NativeAnswer =>
  jsonAnswer(status, { error_code, message });

const SECURITY_HEADER_PAIRS = headerPairs(API_SECURITY_HEADERS);

/**
 * The answer with the security headers, and, to a browser, no Basic challenge (browser-requests.ts says why);
 * changed in place, as the writer adds its length.
 */
function securedAnswer(answer: NativeAnswer, fromBrowser: boolean): NativeAnswer {
  addMissingHeaders(answer.headers, SECURITY_HEADER_PAIRS);
  if (fromBrowser && answer.status === 401) delete answer.headers['www-authenticate'];
  return answer;
}

/** The same for a Response; its headers may be immutable (a fetched one), so it is made again. */
function securedResponse(response: Response, fromBrowser: boolean): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) if (!headers.has(name)) headers.set(name, value);
  if (fromBrowser && response.status === 401) headers.delete('www-authenticate');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The whole sandbox as one fetch-standard handler. */
export function createSite(options: SiteOptions): FetchHandler {
  // Read once: these files change only with a new build of the contract, which means a restart.
  const contracts = {
    service: readFileSync(DOCS.service.spec, 'utf8'),
    control: readFileSync(DOCS.control.spec, 'utf8'),
  };
  // The docs pages are megabytes of HTML: answered compressed when the client accepts it.
  const compressedDocs = (page: string | undefined): CompressedPage | undefined =>
    page === undefined ? undefined : compressedPage(page);
  const compressed = {
    service: compressedDocs(options.docs?.service),
    control: compressedDocs(options.docs?.control),
    library: compressedDocs(options.docs?.library),
  };
  // Each page's policy names its own inline scripts, so it is made from the page, once.
  const docsHeaders = (page: string | undefined): Record<string, string> =>
    page === undefined ? {} : docsSecurityHeaders(page);
  const securityOf = { service: docsHeaders(options.docs?.service), control: docsHeaders(options.docs?.control) };
  // Each page as a plain answer, given the request's Accept-Encoding; the fetch entry turns it into a Response.
  const pages = new Map<string, (acceptEncoding: string | null) => NativeAnswer | Promise<NativeAnswer>>([
    [
      '/openapi.json',
      () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: contracts.service }),
    ],
    [
      '/sandbox/openapi.json',
      () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: contracts.control }),
    ],
    ['/docs', (acceptEncoding) => html(compressed.service, securityOf.service, acceptEncoding)],
    ['/sandbox/docs', (acceptEncoding) => html(compressed.control, securityOf.control, acceptEncoding)],
    [
      DOCS_LIBRARY.url,
      (acceptEncoding) =>
        html(compressed.library, API_SECURITY_HEADERS, acceptEncoding, {
          'content-type': 'text/javascript; charset=utf-8',
          // The same for as long as the sandbox runs: one download serves both pages and every visit.
          'cache-control': 'public, max-age=3600',
        }),
    ],
    ...[...dashboardPages()].map(([path, answer]) => [path, () => answer] as const),
    // Reached only by a browser (see targetOf): it is shown the dashboard.
    [
      '/',
      () => ({
        status: 302,
        headers: { location: DASHBOARD_PATH, 'content-type': 'text/plain; charset=utf-8' },
        body: `See ${DASHBOARD_PATH}`,
      }),
    ],
  ]);
  const { health, observer } = options;
  if (health)
    pages.set('/health', async () => {
      const answer = await health();
      return jsonAnswer(answer.status, answer.body, { 'cache-control': 'no-store' });
    });
  async function html(
    page: CompressedPage | undefined,
    security: Record<string, string>,
    acceptEncoding: string | null,
    kind: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' },
  ): Promise<NativeAnswer> {
    if (page === undefined)
      return jsonAnswer(404, { error_code: 'NOT_FOUND', message: 'The documentation was not built for this sandbox.' });
    const { coding, body } = await page.encode(acceptEncoding);
    const headers: Record<string, string> = {
      ...kind,
      'content-length': String(body.byteLength),
      vary: 'accept-encoding',
      ...security,
    };
    if (coding !== 'identity') headers['content-encoding'] = coding;
    return { status: 200, headers, body };
  }
  // A trailing slash names the same resource (the contract's convention, kept for these pages too).
  const withoutTrailingSlash = (pathname: string): string =>
    pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  /** Which of the site's parts a path belongs to. */
  function targetOf(pathname: string, method: string, accept: string | null): SiteTarget {
    const path = withoutTrailingSlash(pathname);
    // The root is the dashboard for a browser; an API client asking for JSON gets the service's answer.
    if (path === '/') return (method === 'GET' || method === 'HEAD') && prefersHtml(accept) ? 'page' : 'service';
    if (pages.has(path)) return 'page';
    // Everything under /sandbox is the control API's; `/sandboxes` would still be the service's.
    return path === '/sandbox' || path.startsWith('/sandbox/') ? 'control' : 'service';
  }
  /** A page's answer (or 405 for another method than GET and HEAD). */
  function pageAnswer(
    method: string,
    pathname: string,
    acceptEncoding: string | null,
  ): NativeAnswer | Promise<NativeAnswer> {
    const page = pages.get(withoutTrailingSlash(pathname))!;
    if (method !== 'GET' && method !== 'HEAD')
      return jsonAnswer(
        405,
        { error_code: 'METHOD_NOT_ALLOWED', message: 'This path accepts GET, HEAD.' },
        { allow: 'GET, HEAD' },
      );
    return page(acceptEncoding);
  }
  /** The control API's answer to a write a page of another site sent, before its key is even looked at. */
  const crossSite = (target: SiteTarget, method: string, header: HeaderOf): NativeAnswer | undefined =>
    target === 'control' && isCrossSiteWrite(method, header) ? refusalAnswer(CROSS_SITE_REFUSAL) : undefined;
  const site: FetchHandler = async (request) => {
    const target = targetOf(new URL(request.url).pathname, request.method, request.headers.get('accept'));
    const handle: FetchHandler = async (seen) => {
      const header: HeaderOf = (name) => seen.headers.get(name);
      const answer =
        crossSite(target, seen.method, header) ??
        (target === 'page'
          ? await pageAnswer(seen.method, new URL(seen.url).pathname, seen.headers.get('accept-encoding'))
          : undefined);
      if (answer === undefined) return options[target as 'service' | 'control'](seen);
      return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
    };
    const response = await (observer ? observer.fetch(request, target, handle) : handle(request));
    return securedResponse(
      response,
      isBrowserRequest((name) => request.headers.get(name)),
    );
  };
  // The Node listener's entry, when both routers have one (the generated routers do).
  const natives = { service: nativeHandlerOf(options.service), control: nativeHandlerOf(options.control) };
  if (!natives.service || !natives.control) return site;
  const nativeRouters = natives as Record<'service' | 'control', NativeHandler>;
  /**
   * Each part's handler, made once rather than per request: under tsx (npm start, npm run bench) every
   * closure made is also named at run time, and these were 0.7% of the sandbox's CPU under the bench.
   */
  const nativeHandlers: Record<SiteTarget, NativeHandler> = {
    // The service's router as it is: no page and no cross-site check, so no promise of its own per request.
    service: nativeRouters.service,
    control: async (seen) => crossSite('control', seen.method, seen.header.bind(seen)) ?? nativeRouters.control(seen),
    page: async (seen) => pageAnswer(seen.method, seen.pathname, seen.header('accept-encoding')),
  };
  return withNativeHandler(site, async (request) => {
    const target = targetOf(request.pathname, request.method, request.header('accept'));
    const handle = nativeHandlers[target];
    const answer = await (observer ? observer.native(request, target, handle) : handle(request));
    return securedAnswer(answer, isBrowserRequest(request.header.bind(request)));
  });
}

export interface ListenOptions {
  host: string;
  port: number;
  tls?: { cert: string; key: string } | null;
  onError?: (error: unknown) => void;
  /** Names besides the loopback ones and `host` that requests may give in Host (PUBLIC_HOST). */
  publicHosts?: readonly string[];
  /** How long each part of a request may take; Node's defaults and a 30 s handshake unless given. */
  deadlines?: Partial<Deadlines>;
  /** Logs a request refused before the site sees it and gives its id (the observer's `refused`); by default an id, unlogged. */
  refused?: (request: RefusedRequest) => string;
}

export interface Listening {
  /** The base URL clients use. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The first byte of a TLS connection: a handshake record. */
const TLS_HANDSHAKE = 0x16;
/** How much of a plain-HTTP request head is read before it is answered anyway. */
const PLAIN_HEAD_LIMIT = 16 * 1024;

const httpsRequired = (httpsUrl: string): ProtocolError => ({
  status: 400,
  error_code: 'HTTPS_REQUIRED',
  message: `This sandbox serves HTTPS only: send the request to ${httpsUrl}.`,
});

/**
 * The answer to a plain-HTTP request on the HTTPS port: a complete HTTP response with a JSON body, the
 * security headers and, when given, its request id (every answer carries one, as the control contract says).
 */
export function httpsRequiredResponse(httpsUrl: string, requestId?: string): string {
  const raw = rawErrorResponse(httpsRequired(httpsUrl));
  const extra = { ...API_SECURITY_HEADERS, ...(requestId === undefined ? {} : { [REQUEST_ID_HEADER]: requestId }) };
  const afterStatusLine = raw.indexOf('\r\n') + 2;
  return `${raw.slice(0, afterStatusLine)}${Object.entries(extra)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}${raw.slice(afterStatusLine)}`;
}

/** The method and target of a request head as far as it came (for the log line of its refusal). */
function requestLineOf(head: Buffer): { method: string; path: string } {
  const [method = '-', path = '-'] = /^(\S{1,32}) (\S{1,2048})/.exec(head.toString('latin1'))?.slice(1) ?? [];
  return { method, path };
}

/**
 * Routes each connection by its first byte: a TLS handshake goes to `tls`, anything else is answered with
 * `refusal` once the request head is in (answering before it would make some clients see a reset instead),
 * or once `timeoutMs` has passed without it, so a request cut off mid-head is answered, not held open.
 */
export function routeByFirstByte(
  socket: Socket,
  tls: (socket: Socket) => void,
  refusal: string | ((head: Buffer) => string),
  timeoutMs: number = DEFAULT_DEADLINES.handshakeMs,
): void {
  // A connection that never says anything must not be kept forever.
  const silent = (): void => void socket.destroy();
  socket.setTimeout(timeoutMs, silent);
  socket.once('data', (first: Buffer) => {
    socket.off('timeout', silent);
    socket.pause();
    socket.setTimeout(0);
    if (first[0] === TLS_HANDSHAKE) {
      // Handing the bytes back first: the TLS socket reads what is buffered before the wire (node's initRead).
      socket.unshift(first);
      tls(socket);
      return;
    }
    let head = first;
    let answered = false;
    const answer = (): void => {
      if (answered) return;
      answered = true;
      clearTimeout(deadline);
      socket.removeAllListeners('data');
      socket.end(typeof refusal === 'string' ? refusal : refusal(head));
      // A client that never reads its answer or closes must not hold the socket either.
      setTimeout(() => socket.destroy(), timeoutMs).unref();
    };
    // A deadline from the first byte, not an idle timeout: a head trickled a byte at a time never goes idle.
    const deadline = setTimeout(answer, timeoutMs);
    socket.once('close', () => clearTimeout(deadline));
    const complete = (): boolean => head.includes('\r\n\r\n') || head.length >= PLAIN_HEAD_LIMIT;
    if (complete()) return answer();
    socket.on('data', (more: Buffer) => {
      head = Buffer.concat([head, more]);
      if (complete()) answer();
    });
    socket.resume();
  });
  socket.on('error', () => socket.destroy());
}

/** A refusal written before the site sees the request (no handler knows the port it came in on). */
function refuseRequest(out: ServerResponse, refusal: ProtocolError, requestId: string): void {
  const { status, headers, body = '' } = refusalAnswer(refusal);
  out.writeHead(status, {
    ...headers,
    ...API_SECURITY_HEADERS,
    [REQUEST_ID_HEADER]: requestId,
    'content-length': String(Buffer.byteLength(body)),
  });
  out.end(body);
}

/** Serves `handler` on node:http, or on node:https with the plain-HTTP refusal when `tls` is given. */
export async function listen(handler: FetchHandler, options: ListenOptions): Promise<Listening> {
  const scheme = options.tls ? 'https' : 'http';
  const displayHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  // The origin only fills the Request URL (routing reads the path); it is fixed once the port is known.
  const adapt = (origin: string): RequestListener =>
    toNodeListener(handler, { origin, ...(options.onError ? { onError: options.onError } : {}) });
  let origin = `${scheme}://${displayHost}:${options.port}`;
  let nodeListener = adapt(origin);
  let port = options.port;
  const refusalFor = hostChecker({ listenHost: options.host, publicHosts: options.publicHosts ?? [] });
  const refusedId = options.refused ?? (() => newRequestId());
  const listener: RequestListener = (message, out) => {
    const refusal = refusalFor(message.headers.host, port, message.httpVersion);
    if (refusal)
      return refuseRequest(
        out,
        refusal,
        refusedId({
          method: message.method ?? '-',
          path: message.url ?? '-',
          status: refusal.status,
          error_code: refusal.error_code,
        }),
      );
    nodeListener(message, out);
  };
  const deadlines: Deadlines = { ...DEFAULT_DEADLINES, ...options.deadlines };
  // Node's own empty 400 for a missing Host is replaced by the JSON one above.
  const serverOptions = {
    requireHostHeader: false,
    headersTimeout: deadlines.headersMs,
    requestTimeout: deadlines.requestMs,
    connectionsCheckingInterval: checkIntervalMs(deadlines),
  };
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  let httpServer: HttpServer;
  let front: ReturnType<typeof createNetServer> | HttpServer;
  if (options.tls) {
    const https = answerProtocolErrors(
      createHttpsServer(
        { cert: options.tls.cert, key: options.tls.key, handshakeTimeout: deadlines.handshakeMs, ...serverOptions },
        listener,
      ),
    );
    httpServer = https;
    https.on('tlsClientError', (_error, socket) => socket.destroy());
    front = createNetServer((socket) => {
      track(socket);
      const refusal = (head: Buffer): string => {
        const { status, error_code } = httpsRequired(`${origin}/`);
        return httpsRequiredResponse(`${origin}/`, refusedId({ ...requestLineOf(head), status, error_code }));
      };
      routeByFirstByte(socket, (raw) => https.emit('connection', raw), refusal, deadlines.handshakeMs);
    });
  } else {
    httpServer = answerProtocolErrors(createHttpServer(serverOptions, listener));
    httpServer.on('connection', track);
    front = httpServer;
  }
  // Keep-alive sockets of load generators would otherwise sit on the default 5 s timeout at close.
  httpServer.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.port, options.host, () => {
      front.off('error', reject);
      resolve();
    });
  });
  // Node starts checking the header and request deadlines when a server emits `listening`; the HTTPS server
  // is handed its sockets by the front and never listens itself, so it is told here (without this, a TLS
  // connection could hold a request head open forever).
  if (front !== httpServer) httpServer.emit('listening');
  port = (front.address() as AddressInfo).port;
  origin = `${scheme}://${displayHost}:${port}`;
  nodeListener = adapt(origin);
  let closing: Promise<void> | undefined;
  return {
    url: origin,
    port,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        if (options.tls) httpServer.close();
      })),
  };
}
