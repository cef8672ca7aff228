// Serves a fetch-standard handler, `(request: Request) => Promise<Response>` (the generated router, the
// webhook receiver), on Node's http/https servers: `createServer(toNodeListener(router)).listen(...)`.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { nativeHandlerOf, type NativeAnswer, type NativeHandler, type NativeRequest } from './native-request.js';
import type { BodyText } from './request-body.js';

export type FetchHandler = (request: Request) => Promise<Response>;

function toHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function toRequest(message: IncomingMessage, origin: string): Request {
  const headers = toHeaders(message);
  const method = message.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(message.url ?? '/', origin), {
    method,
    headers,
    // The body streams through: the handler decides how much of it to read (and refuses oversized ones).
    ...(hasBody ? { body: Readable.toWeb(message) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
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
      // As cancelling the web stream of the message does: the rest is not read.
      this.message.destroy();
      this.resolve({ kind: 'too-large' });
      return;
    }
    this.#chunks.push(chunk);
  }

  private finish(): void {
    this.stop();
    const chunks = this.#chunks;
    try {
      this.resolve({ kind: 'text', text: utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size)) });
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
    this.message.off('data', this.#onData).off('end', this.#onEnd).off('error', this.#onError).off('close', this.#onClose);
  }
}

/** Reads the body as `readBodyText` reads a Request's, straight from Node's stream. */
function readMessageBody(message: IncomingMessage, maxBytes: number): Promise<BodyText> {
  const declared = Number(headerOf(message, 'content-length') ?? Number.NaN);
  if (declared > maxBytes) return Promise.resolve({ kind: 'too-large' });
  // A GET or HEAD has no body unless it declares one: fetch cannot send one, but a raw HTTP client can, and an
  // operation that documents a malformed-body error for a GET must see the body to answer it.
  const declaresBody = !Number.isNaN(declared) || message.headers['transfer-encoding'] !== undefined;
  if ((message.method === 'GET' || message.method === 'HEAD') && !declaresBody) return Promise.resolve({ kind: 'text', text: '' });
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
      const url = new URL(raw, origin);
      this.pathname = url.pathname;
      this.search = url.search.slice(1);
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
    const { message, origin } = this;
    return (this.#request ??= this.#bodyText ? new Request(new URL(message.url ?? '/', origin), { method: this.method, headers: toHeaders(message) }) : toRequest(message, origin));
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
export function toNodeListener(handler: FetchHandler, options: { origin: string; onError?: (error: unknown) => void }): RequestListener {
  // A handler with a native entry (the generated router) is served without web Request/Response objects.
  const native: NativeHandler | undefined = nativeHandlerOf(handler);
  const batch = new AnswerBatch(options.onError);
  return (message, out) => {
    void (async () => {
      try {
        if (native) batch.add(await native(new NodeNativeRequest(message, options.origin)), out);
        else await writeResponse(await handler(toRequest(message, options.origin)), out);
      } catch (error) {
        answerFailed(error, out, options.onError);
      }
    })();
  };
}
