// Serves a fetch-standard handler, `(request: Request) => Promise<Response>` (the generated router, the
// webhook receiver), on Node's http/https servers: `createServer(toNodeListener(router)).listen(...)`.
import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { headersOf } from './node-handler.js';
import { nativeHandlerOf, type NativeAnswer, type NativeHandler, type NativeRequest } from './native-request.js';
import type { BodyText } from './request-body.js';

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The URL of a request target, or undefined when it is none. A target is resolved against the origin as a
 * path: `//x` is the path `//x`, not the host `x` as URL resolution would take it (and `//` alone would throw).
 */
function targetUrl(target: string, origin: string): URL | undefined {
  try {
    return target.startsWith('/') ? new URL(`${origin}${target}`) : new URL(target, origin);
  } catch {
    return undefined;
  }
}

/** A client sending on past this much after its body was refused is cut off instead of read to the end. */
const DISCARD_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Reads and drops the rest of a body that will not be used (over the size limit), so that the client, still
 * sending, can read the answer: closing the connection on it instead makes it see a reset and no answer.
 */
function discardRest(message: IncomingMessage): void {
  if (message.complete) return;
  let discarded = 0;
  message.on('data', (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DISCARD_LIMIT_BYTES) message.socket.destroy();
  });
  message.resume();
}

/**
 * Closes a connection whose client is still sending the body nobody read only once it has sent it (or after a
 * linger): Node ends a `Connection: close` exchange by destroying the socket as soon as the answer is written,
 * and a socket closed on request bytes still arriving is reset by the system, which makes the client lose the
 * part of the answer it had not read yet (a large answer to a GET sent with a body). The rest of the body is
 * read and dropped meanwhile, up to the discard limit. The answer itself is not held back: a client may wait
 * for it before sending more.
 */
function closeWhenSent(message: IncomingMessage): void {
  const socket = message.socket as (IncomingMessage['socket'] & { destroySoon?: () => void }) | null;
  if (!socket) return;
  discardRest(message);
  socket.destroySoon = () => {
    socket.end();
    const close = (): void => void socket.destroy();
    message.once('end', close);
    setTimeout(close, REFUSAL_LINGER_MS).unref();
  };
}

/**
 * The message's body as a web stream. Node's `Readable.toWeb` destroys the message when the stream is
 * cancelled (a handler refusing an oversized body), which drops the connection before the answer is written;
 * this one reads and drops the rest instead.
 */
function bodyStreamOf(message: IncomingMessage): ReadableStream<Uint8Array> {
  let onData: (chunk: Buffer) => void;
  let onEnd: () => void;
  let onError: (error: Error) => void;
  let onClose: () => void;
  const detach = (): void => {
    message.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onData = (chunk) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) message.pause();
        };
        onEnd = () => {
          detach();
          controller.close();
        };
        onError = (error) => {
          detach();
          controller.error(error);
        };
        onClose = () => {
          if (message.complete) return;
          detach();
          controller.error(new Error('the request was aborted'));
        };
        message.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
      },
      pull() {
        message.resume();
      },
      cancel() {
        detach();
        discardRest(message);
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

function toRequest(message: IncomingMessage, url: URL): Request {
  const headers = headersOf(message);
  const method = message.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    // The body streams through: the handler decides how much of it to read (and refuses oversized ones).
    ...(hasBody ? { body: bodyStreamOf(message), duplex: 'half' } : {}),
  } as RequestInit);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Paths served as they come (the common case); any other is left to the URL parser, as for a Request. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9_~\-/.]*$/;
const PLAIN_QUERY = /^[^#\\]*$/;

/** A header as `Headers.get` gives it: Node already keeps names in lower case and joins most repeats. */
function headerOf(message: IncomingMessage, name: string): string | null {
  const value = message.headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Collects a message's body for `readMessageBody`. A class whose listeners are bound methods: closures made
 * per request cost more under tsx, which names every one of them at run time.
 */
class BodyCollector {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  readonly #onData = this.collect.bind(this);
  readonly #onEnd = this.finish.bind(this);
  readonly #onError = this.fail.bind(this);
  readonly #onClose = this.closed.bind(this);

  constructor(
    private readonly message: IncomingMessage,
    private readonly maxBytes: number,
    private readonly resolve: (body: BodyText) => void,
    private readonly reject: (error: Error) => void,
  ) {
    message.on('data', this.#onData).on('end', this.#onEnd).on('error', this.#onError).on('close', this.#onClose);
  }

  private collect(chunk: Buffer): void {
    this.#size += chunk.byteLength;
    if (this.#size > this.maxBytes) {
      this.stop();
      discardRest(this.message);
      this.resolve({ kind: 'too-large' });
      return;
    }
    this.#chunks.push(chunk);
  }

  private finish(): void {
    this.stop();
    const chunks = this.#chunks;
    try {
      this.resolve({
        kind: 'text',
        text: utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size)),
      });
    } catch {
      this.resolve({ kind: 'not-utf8' });
    }
  }

  private fail(error: Error): void {
    this.stop();
    this.reject(error);
  }

  private closed(): void {
    if (this.message.complete) return;
    this.stop();
    this.reject(new Error('the request was aborted'));
  }

  private stop(): void {
    this.message
      .off('data', this.#onData)
      .off('end', this.#onEnd)
      .off('error', this.#onError)
      .off('close', this.#onClose);
  }
}

/** Reads the body as `readBodyText` reads a Request's, straight from Node's stream. */
function readMessageBody(message: IncomingMessage, maxBytes: number): Promise<BodyText> {
  const declared = Number(headerOf(message, 'content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    discardRest(message);
    return Promise.resolve({ kind: 'too-large' });
  }
  // A GET or HEAD has no body unless it declares one: fetch cannot send one, but a raw HTTP client can, and an
  // operation that documents a malformed-body error for a GET must see the body to answer it.
  const declaresBody = !Number.isNaN(declared) || message.headers['transfer-encoding'] !== undefined;
  if ((message.method === 'GET' || message.method === 'HEAD') && !declaresBody)
    return Promise.resolve({ kind: 'text', text: '' });
  return new Promise((resolve, reject) => void new BodyCollector(message, maxBytes, resolve, reject));
}

/**
 * The native request shape over Node's message: no URL, Headers or stream objects unless asked for. A class,
 * so a request costs one object, not a set of closures.
 */
class NodeNativeRequest implements NativeRequest {
  readonly method: string;
  readonly pathname: string;
  readonly search: string;
  #bodyText: Promise<BodyText> | undefined;
  #request: Request | undefined;

  constructor(
    private readonly message: IncomingMessage,
    private readonly origin: string,
  ) {
    const raw = message.url ?? '/';
    const question = raw.indexOf('?');
    const rawPath = question < 0 ? raw : raw.slice(0, question);
    const rawQuery = question < 0 ? '' : raw.slice(question + 1);
    this.method = message.method ?? 'GET';
    if (PLAIN_PATH.test(rawPath) && !rawPath.includes('/.') && PLAIN_QUERY.test(rawQuery)) {
      this.pathname = rawPath;
      this.search = rawQuery;
    } else {
      // A target that is no URL keeps its raw path, which no operation has: the router answers 404.
      const url = targetUrl(raw, origin);
      this.pathname = url ? url.pathname : rawPath;
      this.search = url ? url.search.slice(1) : '';
    }
  }

  header(name: string): string | null {
    return headerOf(this.message, name);
  }

  readBody(maxBytes: number): Promise<BodyText> {
    return (this.#bodyText ??= readMessageBody(this.message, maxBytes));
  }

  // For error reports and the rare reader of the Request: the body, if read, has been consumed.
  toRequest(): Request {
    if (this.#request) return this.#request;
    const { message } = this;
    const url = targetUrl(message.url ?? '/', this.origin) ?? new URL(`${this.origin}/`);
    return (this.#request = this.#bodyText
      ? new Request(url, { method: this.method, headers: headersOf(message) })
      : toRequest(message, url));
  }
}

/** Writes an answer; the answer is the writer's from here on (its headers get the content length). */
function writeAnswer(answer: NativeAnswer, out: ServerResponse): void {
  if (answer.body !== undefined) answer.headers['content-length'] = String(Buffer.byteLength(answer.body));
  out.writeHead(answer.status, answer.headers);
  out.end(answer.body);
}

async function writeResponse(response: Response, out: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  out.writeHead(response.status, headers);
  if (response.body) {
    const reader = response.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out.write(chunk.value);
  }
  out.end();
}

/** The generic 500 for a request whose answer could not be made or written; the error goes to `onError`. */
function answerFailed(error: unknown, out: ServerResponse, onError: ((error: unknown) => void) | undefined): void {
  onError?.(error);
  // Once the status line is out, all that is left is to cut the response short.
  if (out.headersSent) {
    out.destroy();
    return;
  }
  out.writeHead(500, { 'content-type': 'application/json' });
  out.end(JSON.stringify({ error_code: 'SERVER_ERROR', message: 'The server failed to answer.' }));
}

/**
 * Native answers made ready in one turn of the event loop, written together at its end (setImmediate).
 * Writing a response to a client that is asleep waiting for it wakes that client's thread, which on a
 * loaded machine cost about as much as the rest of a cheap request (measured: half of a stored FVA read's
 * CPU time). Written back to back, only the first write of a batch pays for the wake-up. An answer waits
 * for the end of the turn it was made in, no longer.
 */
class AnswerBatch {
  #answers: NativeAnswer[] = [];
  #outs: ServerResponse[] = [];
  readonly #flush = (): void => this.flush();

  constructor(private readonly onError: ((error: unknown) => void) | undefined) {}

  add(answer: NativeAnswer, out: ServerResponse): void {
    if (this.#answers.length === 0) setImmediate(this.#flush);
    this.#answers.push(answer);
    this.#outs.push(out);
  }

  flush(): void {
    const answers = this.#answers;
    const outs = this.#outs;
    this.#answers = [];
    this.#outs = [];
    for (let i = 0; i < answers.length; i++) {
      try {
        writeAnswer(answers[i]!, outs[i]!);
      } catch (error) {
        // One answer that cannot be written (a header Node refuses) fails alone.
        answerFailed(error, outs[i]!, this.onError);
      }
    }
  }
}

/**
 * Adapts a fetch-standard handler to Node. `origin` fills the scheme and host of the request URL (Node
 * only sees the path). A handler that throws gets a generic JSON 500; the error goes to `onError`.
 */
export function toNodeListener(
  handler: FetchHandler,
  options: { origin: string; onError?: (error: unknown) => void },
): RequestListener {
  // A handler with a native entry (the generated router) is served without web Request/Response objects.
  const native: NativeHandler | undefined = nativeHandlerOf(handler);
  const batch = new AnswerBatch(options.onError);
  return (message, out) => {
    void (async () => {
      try {
        if (native) {
          const answer = await native(new NodeNativeRequest(message, options.origin));
          if (!message.complete) closeWhenSent(message);
          batch.add(answer, out);
        } else {
          const url = targetUrl(message.url ?? '/', options.origin);
          if (url) await writeResponse(await handler(toRequest(message, url)), out);
          else writeAnswer(protocolErrorAnswer(PROTOCOL_ERRORS.invalidTarget), out);
        }
      } catch (error) {
        answerFailed(error, out, options.onError);
      }
    })();
  };
}

/** A refusal made before any handler runs, in the contract's error format (decision `router-level-errors`). */
export interface ProtocolError {
  status: number;
  error_code: string;
  message: string;
}

export const PROTOCOL_ERRORS = {
  invalidRequest: {
    status: 400,
    error_code: 'INVALID_HTTP_REQUEST',
    message: 'The request is not valid HTTP/1.1 (an unknown method, a broken request line, header or chunk).',
  },
  invalidTarget: { status: 400, error_code: 'INVALID_HTTP_REQUEST', message: 'The request target is not a path.' },
  connect: {
    status: 400,
    error_code: 'INVALID_HTTP_REQUEST',
    message: 'This service does not accept CONNECT: send requests to its paths.',
  },
  headersTooLarge: {
    status: 431,
    error_code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    message: 'The request headers are larger than this server accepts.',
  },
  timeout: { status: 408, error_code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time.' },
  expectation: { status: 417, error_code: 'EXPECTATION_FAILED', message: 'Only "Expect: 100-continue" is supported.' },
} as const satisfies Record<string, ProtocolError>;

export interface NodeServerOptions {
  origin: string;
  onError?: (error: unknown) => void;
  /** Node's own server options (timeouts, header size): a request over them is refused in JSON too. */
  server?: ServerOptions;
}

function protocolErrorAnswer(error: ProtocolError): NativeAnswer {
  return {
    status: error.status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error_code: error.error_code, message: error.message }),
  };
}

/**
 * A whole HTTP/1.1 response that closes the connection, for a socket no HTTP parser is answering: one Node's
 * parser has given up on, or one that is not HTTP to this server at all (the sandbox's TLS port).
 */
export function rawErrorResponse(error: ProtocolError): string {
  const { body = '' } = protocolErrorAnswer(error);
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** Which refusal a parser error of Node's `clientError` event is, as the status Node itself would answer. */
function clientErrorOf(error: Error & { code?: string }): ProtocolError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return PROTOCOL_ERRORS.headersTooLarge;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return PROTOCOL_ERRORS.timeout;
  return PROTOCOL_ERRORS.invalidRequest;
}

/** How long a refused connection may take to read its answer before it is closed anyway. */
const REFUSAL_LINGER_MS = 5_000;

function refuse(socket: Duplex, error: ProtocolError): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorResponse(error));
  setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
}

/** The response under way on a socket, if any: Node keeps it there (undocumented, as Fastify and Node's own default handler read it). */
function responseUnderWay(socket: Duplex): boolean {
  const current = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return current?.headersSent === true;
}

/**
 * Makes Node's own refusals answer in the contract's error format: a request Node cannot parse (unknown
 * method, oversized headers, broken chunks), one that times out, an `Expect` other than 100-continue, and a
 * CONNECT, which Node would otherwise answer with an empty body or not at all. Returns the server.
 */
export function answerProtocolErrors<S extends Server | HttpsServer>(server: S): S {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    // A client that went away, or a socket whose response has begun, has nobody left to answer.
    if (error.code === 'ECONNRESET' || responseUnderWay(socket)) {
      socket.destroy();
      return;
    }
    refuse(socket, clientErrorOf(error));
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => refuse(socket, PROTOCOL_ERRORS.connect));
  server.on('checkExpectation', (_request: IncomingMessage, out: ServerResponse) => {
    // The body the client may still send is not wanted: the connection ends with the answer.
    const answer = protocolErrorAnswer(PROTOCOL_ERRORS.expectation);
    answer.headers.connection = 'close';
    writeAnswer(answer, out);
  });
  return server;
}

/** A node:http server for `handler`, with Node's own refusals in the contract's error format. */
export function createNodeServer(handler: FetchHandler, options: NodeServerOptions): Server {
  const { server, ...listenerOptions } = options;
  return answerProtocolErrors(createServer(server ?? {}, toNodeListener(handler, listenerOptions)));
}
