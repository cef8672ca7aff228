// Talks to the target. Every request is bounded (timeout, response size) so a broken target yields
// findings, never a hang or a crash, and every exchange can be replayed with a printed curl command.
import { readBodyText, type BodyText } from '@payments-contract/server/runtime/request-body';
import type { LimitOf } from './pacing/limits.js';
import type { Pacer } from './pacing/pacer.js';

export type AuthMode = 'valid' | 'none' | { authorization: string };

export interface RequestSpec {
  method: string;
  /** Path with parameters already filled in. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: { contentType: string; text: string };
  auth?: AuthMode;
  /**
   * `return`: a 429 comes back as it is, not waited out, and the request is not paced (for a check of the
   * rate limit itself).
   */
  rateLimited?: 'retry' | 'return';
}

export interface Exchange {
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    body?: string;
    auth: 'valid' | 'none' | 'custom';
  };
  /** 0 when there was no HTTP answer (see `failure`). */
  status: number;
  headers: Record<string, string>;
  bodyText: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
  /** Set when the body could not be read or parsed, or the request failed. */
  failure?: { kind: 'timeout' | 'connection' | 'too_large' | 'not_json'; message: string };
  durationMs: number;
}

export interface HttpClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxResponseBytes?: number;
  /** The environment variable a replayed curl line reads the key from; default PAYMENTS_API_KEY. */
  keyVariable?: string;
  /** What to do with a 429 (default: wait as its Retry-After says, up to 10 s, and send again, at most 5 times). */
  rateLimits?: RateLimitHandling;
  /** Keeps every request but the rate limit check's within its documented limit (shared by `withKey` clients). */
  pacing?: { pacer: Pacer; limitOf: LimitOf };
}

/**
 * A target that limits its rate answers 429 with Retry-After; the suite then waits and sends the request
 * again, as a well-behaved client does (the 429 said nothing was done), instead of judging the operation by
 * an answer about the pace of the run. Every 429 met is handed to `onRateLimited`, to be judged as any answer.
 */
export interface RateLimitHandling {
  /** Sends of one request after a 429, at most; 0 hands the 429 back at once. */
  retries: number;
  /** A Retry-After longer than this (or none, or unreadable) hands the 429 back. */
  maxWaitSeconds: number;
  /**
   * Waiting in all, over the run, at most: a target that keeps refusing after its Retry-After (a limit that
   * never lets go) gets its 429s handed back once this is spent, rather than a run that waits for hours.
   */
  totalWaitSeconds: number;
  onRateLimited?: (exchange: Exchange) => void;
  /** Tests replace them (together: a sleep moves the clock). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export const DEFAULT_RATE_LIMIT_HANDLING: RateLimitHandling = { retries: 5, maxWaitSeconds: 10, totalWaitSeconds: 120 };

/** Milliseconds a Retry-After value asks to wait (delta-seconds or an HTTP date, RFC 9110); undefined when it is neither. */
export function retryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return /[A-Za-z]/.test(trimmed) && Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** A key the client knows, masked in every curl line as the variable that holds it. */
interface KnownKey {
  key: string;
  variable: string;
}

export interface HttpClient {
  send: (spec: RequestSpec) => Promise<Exchange>;
  requestCount: () => number;
  curl: (exchange: Exchange) => string;
  basicAuthorization: (key: string) => string;
  /**
   * A client that sends `key` as its valid key (another merchant's, the other mode's), counted with this one;
   * its curl lines read that key from `variable`, and every key either client knows stays masked.
   */
  withKey: (key: string, variable: string) => HttpClient;
}

export function basicAuthorization(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
}

/** Fills `{name}` placeholders, percent-encoding each value (also inside segments like `payment_id={payment_id}`). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name} of ${template}`);
    return encodeURIComponent(value);
  });
}

const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

const DEFAULT_KEY_VARIABLE = 'PAYMENTS_API_KEY';
const BASIC_HEADER = /^(\S+) +([A-Za-z0-9+/]+=*) *$/;

/**
 * An Authorization header whose Basic credentials hold a known key (the key with a password, with a space,
 * under a lower-case scheme...) as a shell word that rebuilds it from the key's variable, so the key never
 * shows; undefined when the header holds no known key.
 */
function maskedAuthorization(value: string, keys: readonly KnownKey[]): string | undefined {
  const { scheme, decoded, held } = heldKeys(value, keys);
  if (scheme === undefined || held.length === 0) return undefined;
  // Inside double quotes only $, `, \ and " are special; the credentials are quoted with them escaped.
  const credentials = held
    .reduce((text, { key, variable }) => text.replaceAll(key, `\u0000${variable}\u0000`), decoded)
    .replace(/[$`\\"]/g, '\\$&')
    .replace(/\u0000(\w+)\u0000/g, '${$1}');
  return `"authorization: ${scheme} $(printf '%s' "${credentials}" | base64 | tr -d '\\n')"`;
}

/** The known keys an Authorization header's Basic credentials hold, with the scheme and the decoded credentials. */
function heldKeys(value: string, keys: readonly KnownKey[]): { scheme?: string; decoded: string; held: KnownKey[] } {
  const [, scheme, token] = BASIC_HEADER.exec(value) ?? [];
  if (scheme === undefined || token === undefined) return { decoded: '', held: [] };
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  return { scheme, decoded, held: keys.filter(({ key }) => key !== '' && decoded.includes(key)) };
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  return clientFor(options, [{ key: options.apiKey, variable: options.keyVariable ?? DEFAULT_KEY_VARIABLE }], {
    requests: 0,
    rateLimitWaitMs: 0,
    waitingUntil: 0,
  });
}

/** What the clients of one run share: the requests sent, and the time spent waiting out 429s. */
interface RunCounter {
  requests: number;
  rateLimitWaitMs: number;
  /** When the latest wait under way ends (performance.now()). */
  waitingUntil: number;
}

function clientFor(options: HttpClientOptions, keys: readonly KnownKey[], counter: RunCounter): HttpClient {
  const limit = options.maxResponseBytes ?? 1024 * 1024;
  const base = options.baseUrl.replace(/\/+$/, '');
  const keyVariable = options.keyVariable ?? DEFAULT_KEY_VARIABLE;
  const mask = (text: string): string =>
    keys.reduce(
      (masked, { key, variable }) =>
        key
          ? masked
              .replaceAll(key, `<${variable}>`)
              .replaceAll(Buffer.from(`${key}:`).toString('base64'), `<${variable}_BASIC>`)
          : masked,
      text,
    );

  const rateLimits = options.rateLimits ?? DEFAULT_RATE_LIMIT_HANDLING;
  const sleep = rateLimits.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const send = async (spec: RequestSpec): Promise<Exchange> => {
    for (let retry = 0; ; retry++) {
      const exchange = await sendOnce(spec);
      if (exchange.status !== 429 || spec.rateLimited === 'return') return exchange;
      rateLimits.onRateLimited?.(exchange);
      const waitMs = retryAfterMs(exchange.headers['retry-after']);
      if (retry >= rateLimits.retries || waitMs === undefined || waitMs > rateLimits.maxWaitSeconds * 1000)
        return exchange;
      // The budget is the run's time spent waiting: requests waiting side by side spend the time they
      // overlap once (what this wait adds beyond the waits already under way).
      const now = (rateLimits.now ?? performance.now.bind(performance))();
      const added = Math.max(0, now + waitMs - Math.max(now, counter.waitingUntil));
      if (counter.rateLimitWaitMs + added > rateLimits.totalWaitSeconds * 1000) return exchange;
      counter.rateLimitWaitMs += added;
      counter.waitingUntil = Math.max(counter.waitingUntil, now + waitMs);
      await sleep(waitMs);
    }
  };

  const sendOnce = async (spec: RequestSpec): Promise<Exchange> => {
    counter.requests++;
    const url = new URL(base + spec.path);
    for (const [name, value] of Object.entries(spec.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { accept: 'application/json', ...(spec.headers ?? {}) };
    const auth = spec.auth ?? 'valid';
    if (auth === 'valid') headers.authorization = basicAuthorization(options.apiKey);
    else if (auth !== 'none') headers.authorization = auth.authorization;
    if (spec.body) headers['content-type'] = spec.body.contentType;
    const request: Exchange['request'] = {
      method: spec.method.toUpperCase(),
      url: url.toString(),
      headers,
      auth: auth === 'valid' || auth === 'none' ? auth : 'custom',
      ...(spec.body ? { body: spec.body.text } : {}),
    };
    // A custom Authorization counts against a known key it holds (a target may take a wrong form of the key
    // for the key); one holding none, like no key at all, counts against no key's limit.
    const counted =
      auth === 'valid' ? keys[0] : auth === 'none' ? undefined : heldKeys(auth.authorization, keys).held[0];
    const admission = await options.pacing?.pacer.admit({
      key: counted?.key,
      keyLabel: counted?.variable ?? keyVariable,
      limit: options.pacing.limitOf(request.method, request.url),
      paced: spec.rateLimited !== 'return',
    });
    let exchange: Exchange | undefined;
    try {
      exchange = await transmit(url, request, spec);
      return exchange;
    } finally {
      admission?.answered(exchange?.status ?? 0, exchange?.headers ?? {});
    }
  };

  const transmit = async (url: URL, request: Exchange['request'], spec: RequestSpec): Promise<Exchange> => {
    const { headers } = request;
    const started = performance.now();
    const done = (partial: Omit<Exchange, 'request' | 'durationMs'>): Exchange => ({
      request,
      durationMs: performance.now() - started,
      ...partial,
    });
    let response: Response;
    try {
      response = await fetchOnLiveConnection(url, {
        method: request.method,
        headers,
        body: spec.body?.text,
        signal: AbortSignal.timeout(options.timeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return done({
        status: 0,
        headers: {},
        bodyText: '',
        failure: {
          kind: timedOut ? 'timeout' : 'connection',
          message: timedOut ? `no answer within ${options.timeoutMs} ms` : describe(error),
        },
      });
    }
    const responseHeaders = Object.fromEntries(
      [...response.headers.entries()].map(([name, value]) => [name.toLowerCase(), value]),
    );
    let body: BodyText;
    try {
      body = await readBodyText(response, limit);
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return done({
        status: response.status,
        headers: responseHeaders,
        bodyText: '',
        failure: { kind: timedOut ? 'timeout' : 'connection', message: describe(error) },
      });
    }
    if (body.kind === 'too-large')
      return done({
        status: response.status,
        headers: responseHeaders,
        bodyText: '',
        failure: { kind: 'too_large', message: `response body larger than ${limit} bytes` },
      });
    if (body.kind === 'not-utf8')
      return done({
        status: response.status,
        headers: responseHeaders,
        bodyText: '',
        failure: { kind: 'not_json', message: 'the response body is not UTF-8 text, so not JSON' },
      });
    try {
      return done({
        status: response.status,
        headers: responseHeaders,
        bodyText: body.text,
        json: body.text === '' ? undefined : (JSON.parse(body.text) as unknown),
      });
    } catch {
      return done({
        status: response.status,
        headers: responseHeaders,
        bodyText: body.text,
        failure: { kind: 'not_json', message: 'the response body is not JSON' },
      });
    }
  };

  const curl = (exchange: Exchange): string => {
    const parts = ['curl', '-sS', '-i', '-X', exchange.request.method, shellQuote(mask(exchange.request.url))];
    // The key never appears: a valid key is read from its variable when the command is replayed.
    if (exchange.request.auth === 'valid') parts.push('-u', `"$${keyVariable}:"`);
    for (const [name, value] of Object.entries(exchange.request.headers)) {
      if (name === 'authorization' && exchange.request.auth === 'valid') continue;
      const rebuilt = name === 'authorization' ? maskedAuthorization(value, keys) : undefined;
      parts.push('-H', rebuilt ?? shellQuote(`${name}: ${mask(value)}`));
    }
    if (exchange.request.body !== undefined) parts.push('--data-raw', shellQuote(mask(exchange.request.body)));
    return parts.join(' ');
  };

  const withKey = (key: string, variable: string): HttpClient =>
    clientFor(
      { ...options, apiKey: key, keyVariable: variable },
      [{ key, variable }, ...keys.filter((known) => known.key !== key)],
      counter,
    );

  return { send, requestCount: () => counter.requests, curl, basicAuthorization, withKey };
}

/** A connection the other side closed under the request, before any answer: what a stale keep-alive connection gives. */
function closedUnderRequest(error: unknown): boolean {
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  const code = cause instanceof Error ? (cause as Error & { code?: unknown }).code : undefined;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

/**
 * fetch, sent once more when the connection was closed under it before any answer came. A server (or a load
 * balancer) closes an idle keep-alive connection when it likes, and a request sent on it at that moment is
 * reset unread: browsers send it again on a new connection, and so does the suite, once, so the race is not
 * reported as the target's failure. A target that drops the connection again is still reported.
 */
async function fetchOnLiveConnection(url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (!closedUnderRequest(error) || init.signal?.aborted) throw error;
    return fetch(url, init);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
