// Talks to the target. Every request is bounded (timeout, response size) so a broken target yields
// findings, never a hang or a crash, and every exchange can be replayed with a printed curl command.
import { readBodyText, type BodyText } from '@payments-contract/server/runtime/request-body';

export type AuthMode = 'valid' | 'none' | { authorization: string };

export interface RequestSpec {
  method: string;
  /** Path with parameters already filled in. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: { contentType: string; text: string };
  auth?: AuthMode;
}

export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string; auth: 'valid' | 'none' | 'custom' };
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
}

export interface HttpClient {
  send: (spec: RequestSpec) => Promise<Exchange>;
  requestCount: () => number;
  curl: (exchange: Exchange) => string;
  basicAuthorization: (key: string) => string;
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

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const limit = options.maxResponseBytes ?? 1024 * 1024;
  const base = options.baseUrl.replace(/\/+$/, '');
  let count = 0;
  const encodedKey = options.apiKey ? Buffer.from(`${options.apiKey}:`).toString('base64') : '';
  const mask = (text: string): string => (options.apiKey ? text.replaceAll(options.apiKey, '<API_KEY>').replaceAll(encodedKey, '<API_KEY_BASIC>') : text);

  const send = async (spec: RequestSpec): Promise<Exchange> => {
    count++;
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
    const started = performance.now();
    const done = (partial: Omit<Exchange, 'request' | 'durationMs'>): Exchange => ({ request, durationMs: performance.now() - started, ...partial });
    let response: Response;
    try {
      response = await fetch(url, { method: request.method, headers, body: spec.body?.text, signal: AbortSignal.timeout(options.timeoutMs), redirect: 'manual' });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return done({ status: 0, headers: {}, bodyText: '', failure: { kind: timedOut ? 'timeout' : 'connection', message: timedOut ? `no answer within ${options.timeoutMs} ms` : describe(error) } });
    }
    const responseHeaders = Object.fromEntries([...response.headers.entries()].map(([name, value]) => [name.toLowerCase(), value]));
    let body: BodyText;
    try {
      body = await readBodyText(response, limit);
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return done({ status: response.status, headers: responseHeaders, bodyText: '', failure: { kind: timedOut ? 'timeout' : 'connection', message: describe(error) } });
    }
    if (body.kind === 'too-large') return done({ status: response.status, headers: responseHeaders, bodyText: '', failure: { kind: 'too_large', message: `response body larger than ${limit} bytes` } });
    if (body.kind === 'not-utf8') return done({ status: response.status, headers: responseHeaders, bodyText: '', failure: { kind: 'not_json', message: 'the response body is not UTF-8 text, so not JSON' } });
    try {
      return done({ status: response.status, headers: responseHeaders, bodyText: body.text, json: body.text === '' ? undefined : (JSON.parse(body.text) as unknown) });
    } catch {
      return done({ status: response.status, headers: responseHeaders, bodyText: body.text, failure: { kind: 'not_json', message: 'the response body is not JSON' } });
    }
  };

  const curl = (exchange: Exchange): string => {
    const parts = ['curl', '-sS', '-i', '-X', exchange.request.method, shellQuote(mask(exchange.request.url))];
    // The key never appears: a valid key is read from $PAYMENTS_API_KEY when the command is replayed.
    if (exchange.request.auth === 'valid') parts.push('-u', '"$PAYMENTS_API_KEY:"');
    for (const [name, value] of Object.entries(exchange.request.headers)) {
      if (name === 'authorization' && exchange.request.auth === 'valid') continue;
      parts.push('-H', shellQuote(`${name}: ${mask(value)}`));
    }
    if (exchange.request.body !== undefined) parts.push('--data-raw', shellQuote(mask(exchange.request.body)));
    return parts.join(' ');
  };

  return { send, requestCount: () => count, curl, basicAuthorization };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
