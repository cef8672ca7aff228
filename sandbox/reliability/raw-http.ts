// HTTP/1.1 over a bare socket (node:net), for what fetch cannot send: malformed request lines and headers,
// repeated or lying Content-Length, bodies that are not UTF-8, chunked bodies without a length, CONNECT,
// bytes trickled one by one. Each exchange uses its own connection and ends in exactly one outcome: an
// answer (its status, headers and body), a dropped connection (closed or reset with no complete answer),
// or a hang (nothing complete within the timeout). Nothing here judges the answer.
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  /** The request target as sent: a path and query, or anything else a client might put there. */
  target: string;
  /** In order; a name may repeat. Host and Connection: close are added unless already given. */
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Buffer | string;
  /** Send the body chunked (Transfer-Encoding: chunked, no Content-Length), in chunks of this many bytes. */
  chunkBytes?: number;
  /** `HTTP/1.1` unless given ('' sends a request line without a version). */
  version?: string;
}

const CRLF = '\r\n';

/** The request as bytes. Content-Length is computed unless the headers already carry one or the body is chunked. */
export function serialize(request: RawRequest): Buffer {
  const headers = [...(request.headers ?? [])];
  const has = (name: string): boolean => headers.some(([given]) => given.toLowerCase() === name);
  if (!has('host')) headers.unshift(['Host', '127.0.0.1']);
  if (!has('connection')) headers.push(['Connection', 'close']);
  const body =
    request.body === undefined
      ? undefined
      : Buffer.isBuffer(request.body)
        ? request.body
        : Buffer.from(request.body, 'utf8');
  let payload = body ?? Buffer.alloc(0);
  if (body !== undefined && request.chunkBytes !== undefined) {
    if (!has('transfer-encoding')) headers.push(['Transfer-Encoding', 'chunked']);
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < body.length; offset += request.chunkBytes) {
      const piece = body.subarray(offset, offset + request.chunkBytes);
      chunks.push(Buffer.from(`${piece.length.toString(16)}${CRLF}`), piece, Buffer.from(CRLF));
    }
    chunks.push(Buffer.from(`0${CRLF}${CRLF}`));
    payload = Buffer.concat(chunks);
  } else if (body !== undefined && !has('content-length') && !has('transfer-encoding')) {
    headers.push(['Content-Length', String(body.length)]);
  }
  const version = request.version ?? 'HTTP/1.1';
  const line =
    version === '' ? `${request.method} ${request.target}` : `${request.method} ${request.target} ${version}`;
  const head = `${line}${CRLF}${headers.map(([name, value]) => `${name}: ${value}${CRLF}`).join('')}${CRLF}`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

export type RawOutcome =
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: Buffer; ms: number }
  | { kind: 'dropped'; ms: number; detail: string }
  | { kind: 'hang'; ms: number };

export interface SendOptions {
  port: number;
  host?: string;
  timeoutMs: number;
  /** The request is a HEAD: its answer has no body whatever its headers say. */
  head?: boolean;
  /** Milliseconds between the pieces when the request is given in pieces (a slow client). */
  pauseMs?: number;
}

type Parsed = { complete: false } | { complete: true; status: number; headers: Record<string, string>; body: Buffer };

const HEAD_END = Buffer.from('\r\n\r\n');

/** Reads one final answer (1xx interim answers skipped) from what has arrived; `ended`: nothing more will. */
export function parseAnswer(received: Buffer, head: boolean, ended: boolean): Parsed {
  let start = 0;
  for (;;) {
    const end = received.indexOf(HEAD_END, start);
    if (end < 0) return { complete: false };
    const lines = received.subarray(start, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(lines[0] ?? '')?.[1] ?? Number.NaN);
    if (Number.isNaN(status)) return { complete: false };
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const bodyStart = end + HEAD_END.length;
    if (status >= 100 && status < 200 && status !== 101) {
      start = bodyStart;
      continue;
    }
    if (head || status === 204 || status === 304) return { complete: true, status, headers, body: Buffer.alloc(0) };
    const rest = received.subarray(bodyStart);
    if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
      const body = dechunk(rest);
      return body ? { complete: true, status, headers, body } : { complete: false };
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      return rest.length >= length
        ? { complete: true, status, headers, body: rest.subarray(0, length) }
        : { complete: false };
    }
    // No length: the body runs to the end of the connection.
    return ended ? { complete: true, status, headers, body: rest } : { complete: false };
  }
}

/** A complete chunked body, or undefined while its last chunk has not arrived. */
function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', offset);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    offset = start + size + 2;
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Why requests are written in parts: a server that answers before reading a whole body (a 413, a 401, an
 * operation that takes no body) and closes leaves the body unread, so its close is a reset; a client write
 * that meets the reset fails, and Node then discards the answer still unread in the socket, where curl,
 * reading after a failed write, gets it. So a request past the body limit is written in parts with a wait
 * for an early answer before each (as curl's `Expect: 100-continue` does for large bodies), sending no more
 * once one has begun; a shorter one at once. One whose write still met a reset before any answer is sent
 * again, carefully: in parts from its first 64 KiB, nothing written while an answer may be on its way.
 */
const EARLY_ANSWER_BYTES = 1024 * 1024 + 128 * 1024;
const HEAD_BYTES = 64 * 1024;
const EARLY_ANSWER_WAIT_MS = 2_000;

/** A part of a request: its bytes, a pause before it (a slow client), and how long to wait for an early answer before it. */
interface Part {
  bytes: Buffer;
  pauseMs: number;
  waitMs: number;
}

/** The whole request as the parts written one after another: cut at the head and at the body limit, or (careful) always. */
function partsOf(request: Buffer, careful: boolean): Part[] {
  if (request.length <= (careful ? HEAD_BYTES : EARLY_ANSWER_BYTES)) return [{ bytes: request, pauseMs: 0, waitMs: 0 }];
  const cuts = [0, ...[HEAD_BYTES, EARLY_ANSWER_BYTES].filter((at) => at < request.length), request.length];
  return cuts.slice(0, -1).map((from, i) => ({
    bytes: request.subarray(from, cuts[i + 1]),
    pauseMs: 0,
    waitMs: i === 0 ? 0 : EARLY_ANSWER_WAIT_MS,
  }));
}

/** A write met the server's reset before any answer arrived. */
const resetWhileSending = (outcome: RawOutcome): boolean =>
  outcome.kind === 'dropped' &&
  /^(EPIPE|ECONNRESET)/.test(outcome.detail) &&
  outcome.detail.endsWith('nothing received');

/**
 * Sends `request` (bytes, or pieces written `pauseMs` apart) on a new connection and waits for the answer.
 * The answer is taken as soon as it is complete, even while the request is still being written.
 */
export async function sendRaw(request: Buffer | readonly Buffer[], options: SendOptions): Promise<RawOutcome> {
  if (!Buffer.isBuffer(request))
    return sendParts(
      request.map((bytes, i) => ({ bytes, waitMs: 0, pauseMs: i === 0 ? 0 : (options.pauseMs ?? 0) })),
      options,
    );
  const outcome = await sendParts(partsOf(request, false), options);
  return resetWhileSending(outcome) && request.length > HEAD_BYTES
    ? sendParts(partsOf(request, true), options)
    : outcome;
}

function sendParts(parts: readonly Part[], options: SendOptions): Promise<RawOutcome> {
  const started = performance.now();
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve) => {
    const socket = connect(options.port, host);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (outcome: RawOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const ms = (): number => performance.now() - started;
    const received = (): Buffer => Buffer.concat(chunks);
    const settle = (ended: boolean, detail: string): void => {
      const parsed = parseAnswer(received(), options.head === true, ended);
      if (parsed.complete)
        finish({ kind: 'answer', status: parsed.status, headers: parsed.headers, body: parsed.body, ms: ms() });
      else if (ended)
        finish({
          kind: 'dropped',
          ms: ms(),
          detail: `${detail}${chunks.length === 0 ? ', nothing received' : `, ${received().length} bytes of an incomplete answer`}`,
        });
    };
    const timer = setTimeout(() => {
      const parsed = parseAnswer(received(), options.head === true, false);
      finish(
        parsed.complete
          ? { kind: 'answer', status: parsed.status, headers: parsed.headers, body: parsed.body, ms: ms() }
          : { kind: 'hang', ms: ms() },
      );
    }, options.timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      settle(false, '');
    });
    socket.on('end', () => settle(true, 'closed by the server'));
    socket.on('close', () => settle(true, 'closed'));
    // A reset after a complete answer (the server closed with request bytes unread) still leaves the answer.
    socket.on('error', (error: NodeJS.ErrnoException) => settle(true, error.code ?? error.message));
    socket.once('connect', () => {
      void (async () => {
        for (const part of parts) {
          if (part.pauseMs > 0) await delay(part.pauseMs);
          if (part.waitMs > 0) {
            for (
              const until = performance.now() + part.waitMs;
              chunks.length === 0 && !settled && performance.now() < until;
            )
              await delay(5);
            // An answer has begun: the rest of the request is not sent, as HTTP clients do.
            if (chunks.length > 0) return;
          }
          if (settled || socket.destroyed || !socket.writable) return;
          socket.write(part.bytes);
        }
      })();
    });
  });
}
