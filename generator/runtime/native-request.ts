// A lighter request and answer shape than the fetch standard's, for servers that can serve it directly: the
// router runs on it, its fetch-standard `(Request) => Promise<Response>` entry adapts a Request to it, and
// the Node listener (node-listener.ts) builds it straight from Node's IncomingMessage and writes the answer
// to Node's ServerResponse, so no web Request, Headers, stream or Response is made per request. A handler
// carrying a `NATIVE_HANDLER` property offers this entry besides its fetch-standard one; both answer alike.
import { readBodyText, type BodyText } from './request-body.js';

/** What the router reads of a request. */
export interface NativeRequest {
  /** As sent (the router upper-cases it). */
  readonly method: string;
  /** The URL's path, as `new URL(...).pathname` gives it. */
  readonly pathname: string;
  /** The URL's query without its `?` ('' for none). */
  readonly search: string;
  /** A header by its lower-case name, repeated values joined with ", " (as `Headers.get`); null when absent. */
  header(name: string): string | null;
  /** The body as UTF-8 text, read at most once, within `maxBytes` (as `readBodyText`). */
  readBody(maxBytes: number): Promise<BodyText>;
  /** The same request as a fetch-standard Request, made only when asked for (e.g. for an error report). */
  toRequest(): Request;
}

/**
 * An answer: status, headers (lower-case names) and a body already serialized, or none: text, or bytes for
 * a body that is not (a compressed page). Made for one request: the writer may add to its headers.
 */
export interface NativeAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

export type NativeHandler = (request: NativeRequest) => Promise<NativeAnswer>;

/** The property of a fetch-standard handler that holds its native entry, when it has one. */
export const NATIVE_HANDLER: unique symbol = Symbol.for('payments-contract.native-handler') as never;

export type WithNative<F> = F & { readonly [NATIVE_HANDLER]?: NativeHandler };

/** Gives a fetch-standard handler its native entry (the same function is returned). */
export function withNativeHandler<F extends (request: Request) => Promise<Response>>(
  handler: F,
  native: NativeHandler,
): F & { readonly [NATIVE_HANDLER]: NativeHandler } {
  return Object.assign(handler, { [NATIVE_HANDLER]: native });
}

/** The native entry of a handler, if it offers one. */
export function nativeHandlerOf(handler: (request: Request) => Promise<Response>): NativeHandler | undefined {
  return (handler as WithNative<typeof handler>)[NATIVE_HANDLER];
}

/** A fetch-standard Request seen through the native shape (the router's fetch entry). */
export function nativeFromRequest(request: Request): NativeRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    pathname: url.pathname,
    search: url.search.slice(1),
    header: (name) => request.headers.get(name),
    readBody: (maxBytes) => readBodyText(request, maxBytes),
    toRequest: () => request,
  };
}

/** A native answer as a fetch-standard Response. */
export function answerToResponse(answer: NativeAnswer): Response {
  return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
}
