// What the sandbox notes about each request it answers: a request id (sent back as `x-request-id`), one log
// line, and, for service requests from a valid key, an entry in the request record the control API lists.
// It wraps the site's two entries (server.ts): the native one the Node listener uses, which is the hot
// path, and the fetch-standard one tests use. Control API and page requests are logged, not recorded: the
// record shows what an integration sent the service, and the dashboard polling the control API would
// otherwise push it out.
import { randomFillSync } from 'node:crypto';
import { operationTable } from '@payments-contract/server';
import type { NativeAnswer, NativeHandler, NativeRequest } from '@payments-contract/server/runtime/native-request';
import type { FetchHandler } from '@payments-contract/server/runtime/node-listener';
import type { BodyText } from '@payments-contract/server/runtime/request-body';
import type { Scope } from '../context.js';
import type { SandboxLogger } from './logger.js';
import type { MaskSecrets } from './mask-secrets.js';
import type { RequestLog } from './request-log.js';

/** Where the site sends a request: one of its own pages, the control API or the service. */
export type SiteTarget = 'page' | 'control' | 'service';

/** A request the listener refused before the site saw it (a foreign or missing Host, plain HTTP on the TLS port). */
export interface RefusedRequest {
  method: string;
  path: string;
  status: number;
  error_code: string;
}

export interface RequestObserver {
  native(request: NativeRequest, target: SiteTarget, handle: NativeHandler): Promise<NativeAnswer>;
  fetch(request: Request, target: SiteTarget, handle: FetchHandler): Promise<Response>;
  /** Logs a refusal and gives its request id, which the listener sends back: every answer carries one. */
  refused(request: RefusedRequest): string;
  /**
   * Tells the request record whose request it is, once the router has authenticated it (`request` is the one
   * the observer handed on): its scope is then not found by digesting the key again after the answer.
   */
  noteScope(request: NativeRequest, scope: Scope): void;
}

export interface RecordedRequests {
  log: RequestLog;
  /** The merchant and mode of a request's Authorization header, or null (no valid key: not recorded). */
  scopeOf(authorization: string | null): Scope | null;
  /** The scope's sandbox time. */
  now(scope: Scope): Date;
}

export interface ObserverOptions {
  logger: SandboxLogger;
  mask: MaskSecrets;
  /** Where service requests are recorded; without it nothing is. */
  requests?: RecordedRequests;
  newRequestId?: () => string;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/** The idempotency headers the service contract's operations take (their names differ per product). */
const IDEMPOTENCY_HEADERS: readonly string[] = [
  ...new Set(
    Object.values(operationTable).flatMap((route) =>
      route.parameters.header.filter((name) => name.includes('idempotency')),
    ),
  ),
];

/** Random bytes for request ids, drawn in batches: one draw per 256 ids rather than a UUID made and cut per id. */
const ID_BYTES = 12;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idPoolAt = idPool.length;

/** `req_` and 24 random hex digits (96 bits): about 2 us less per request than a UUID's text made, stripped and cut. */
export const newRequestId = (): string => {
  if (idPoolAt === idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  const id = `req_${idPool.toString('hex', idPoolAt, idPoolAt + ID_BYTES)}`;
  idPoolAt += ID_BYTES;
  return id;
};

/** The `error_code` of an error answer's JSON body, or null. */
function errorCodeOf(status: number, body: string | null): string | null {
  if (status < 400 || body === null) return null;
  try {
    const parsed: unknown = JSON.parse(body);
    const code =
      typeof parsed === 'object' && parsed !== null ? (parsed as { error_code?: unknown }).error_code : undefined;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

const textOf = (body: BodyText | undefined): string | null =>
  body?.kind === 'text' && body.text !== '' ? body.text : null;

/** How much of a body the fetch entry keeps while it passes through (the record cuts it shorter). */
const TAPPED_BODY_BYTES = 64 * 1024;

/**
 * The request with its body passed through a tap that keeps the first bytes read. Not `clone()`: cancelling
 * one branch of a tee waits for the other, so a router giving up on an oversized body would wait forever.
 */
function tapped(request: Request): { request: Request; text: () => string | null } {
  if (request.body === null) return { request, text: () => null };
  const kept: Uint8Array[] = [];
  let size = 0;
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (size < TAPPED_BODY_BYTES) kept.push(chunk.subarray(0, TAPPED_BODY_BYTES - size));
      size += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  // `duplex` is required by Node for a streamed body and missing from the DOM's RequestInit type.
  const init = { body: request.body.pipeThrough(tap), duplex: 'half' } as RequestInit;
  return {
    request: new Request(request, init),
    text: () => (size === 0 ? null : Buffer.concat(kept).toString('utf8')),
  };
}
const pathOf = (pathname: string, search: string): string => (search === '' ? pathname : `${pathname}?${search}`);

/**
 * A recorded request as the router sees it: the same request, whose body is kept as the router reads it (at
 * most once). A class rather than an object of closures made per request: under tsx (npm start, npm run
 * bench) every closure made is also named at run time, and observe.ts's were 0.5% of the sandbox's CPU.
 */
class RecordedRequest implements NativeRequest {
  readonly method: string;
  readonly pathname: string;
  readonly search: string;
  body: BodyText | undefined;
  /** Whose request it is, as the router authenticated it (`noteScope`); undefined when it did not say. */
  scope: Scope | undefined;

  constructor(readonly request: NativeRequest) {
    this.method = request.method;
    this.pathname = request.pathname;
    this.search = request.search;
  }

  header(name: string): string | null {
    return this.request.header(name);
  }

  async readBody(maxBytes: number): Promise<BodyText> {
    this.body = await this.request.readBody(maxBytes);
    return this.body;
  }

  toRequest(): Request {
    return this.request.toRequest();
  }
}

export function createRequestObserver(options: ObserverOptions): RequestObserver {
  const { logger, mask, requests } = options;
  const newId = options.newRequestId ?? newRequestId;

  const idempotencyKeyOf = (header: (name: string) => string | null): string | null => {
    for (const name of IDEMPOTENCY_HEADERS) {
      const value = header(name);
      if (value !== null) return value;
    }
    return null;
  };
  const recordFieldsOf = (log: RecordedRequests, recorded: RecordedRequest): RecordFields => ({
    // A request the router did not authenticate (not found, faulted) is looked up as the router would.
    scope: recorded.scope ?? log.scopeOf(recorded.header('authorization')),
    idempotencyKey: idempotencyKeyOf(recorded.header.bind(recorded)),
    requestBody: textOf(recorded.body),
  });

  /** The log line and, for a recorded request, its entry: both after the answer is made. */
  const note = (seen: {
    id: string;
    method: string;
    path: string;
    started: number;
    status: number;
    responseBody: string | null;
    /** A recorded request (the listener's), or how to read a recorded one's fields (the fetch entry's). */
    record: RecordedRequest | (() => RecordFields) | null;
  }): void => {
    const duration_ms = Math.round((performance.now() - seen.started) * 1000) / 1000;
    const error_code = errorCodeOf(seen.status, seen.responseBody);
    logger.request({
      request_id: seen.id,
      method: seen.method,
      path: mask(seen.path),
      status: seen.status,
      error_code,
      duration_ms,
    });
    if (!seen.record || !requests) return;
    const fields = seen.record instanceof RecordedRequest ? recordFieldsOf(requests, seen.record) : seen.record();
    if (fields.scope === null) return;
    requests.log.add(fields.scope, {
      id: seen.id,
      // The arrival, in the merchant's sandbox time: only a control request moves that clock, and none is recorded.
      at: requests.now(fields.scope).getTime() - duration_ms,
      method: seen.method,
      path: seen.path,
      status: seen.status,
      error_code,
      idempotency_key: fields.idempotencyKey,
      duration_ms,
      request_body: fields.requestBody,
      response_body: seen.responseBody,
    });
  };

  return {
    async native(request, target, handle) {
      const id = newId();
      const started = performance.now();
      // The router reads the body at most once; a recorded request's reading is kept on the way through.
      const recorded = target === 'service' && requests !== undefined ? new RecordedRequest(request) : undefined;
      const answer = await handle(recorded ?? request);
      answer.headers[REQUEST_ID_HEADER] = id;
      const responseBody = typeof answer.body === 'string' ? answer.body : null;
      note({
        id,
        method: request.method,
        path: pathOf(request.pathname, request.search),
        started,
        status: answer.status,
        responseBody,
        record: recorded ?? null,
      });
      return answer;
    },

    async fetch(request, target, handle) {
      const id = newId();
      const started = performance.now();
      const url = new URL(request.url);
      const recording = target === 'service' && requests !== undefined;
      // This entry serves tests and tools, not the listener: the body is kept as the handler reads it.
      const seen = recording ? tapped(request) : { request, text: () => null };
      const response = await handle(seen.request);
      const headers = new Headers(response.headers);
      headers.set(REQUEST_ID_HEADER, id);
      const isJson = headers.get('content-type')?.startsWith('application/json') === true;
      const responseBody = isJson && (recording || response.status >= 400) ? await response.clone().text() : null;
      note({
        id,
        method: request.method,
        path: pathOf(url.pathname, url.search.slice(1)),
        started,
        status: response.status,
        responseBody,
        record: recording
          ? () => ({
              scope: requests.scopeOf(request.headers.get('authorization')),
              idempotencyKey: idempotencyKeyOf((name) => request.headers.get(name)),
              requestBody: seen.text(),
            })
          : null,
      });
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },

    refused({ method, path, status, error_code }) {
      const id = newId();
      // Not recorded: the request never reached a merchant's API.
      logger.request({ request_id: id, method, path: mask(path), status, error_code, duration_ms: 0 });
      return id;
    },

    noteScope(request, scope) {
      if (request instanceof RecordedRequest) request.scope = scope;
    },
  };
}

interface RecordFields {
  scope: Scope | null;
  idempotencyKey: string | null;
  requestBody: string | null;
}
