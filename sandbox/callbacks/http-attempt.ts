// One callback attempt over node:http(s): a keep-alive pool per sender and one timer per attempt, the answer read
// only as far as its bound. It runs in the attempts' thread (attempt-worker.ts), so it imports nothing but Node's
// own modules and types: that thread loads it without the sandbox's packages.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AnswerRead } from './read-answer.js';

/** What an attempt got: the receiver's status and how much of its answer was read. */
export interface AttemptAnswer extends AnswerRead {
  status: number;
}

/** An attempt's request as built (the delivery's URL, checked as http or https without credentials). */
export interface AttemptRequest {
  url: string;
  method: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface HttpAttemptOptions {
  timeoutMs: number;
  /** How much of an answer's body is read (read-answer.ts). */
  readLimit: number;
  /** Connections to one receiver at most. */
  maxSockets: number;
  /** How long a pooled connection may sit unused before it is closed. */
  idleConnectionMs: number;
}

export interface HttpAttempts {
  /** Rejects when no answer (a status) came within the timeout, named TimeoutError, or with the connection's error. */
  send(request: AttemptRequest): Promise<AttemptAnswer>;
  /** Closes the pooled connections. */
  close(): void;
}

/** The error of an attempt that had no answer in time, named as `AbortSignal.timeout`'s is. */
function timeoutError(): Error {
  const error = new Error('no answer before the attempt timed out');
  error.name = 'TimeoutError';
  return error;
}

export function createHttpAttempts(options: HttpAttemptOptions): HttpAttempts {
  const { timeoutMs, readLimit } = options;
  // The agents' `timeout` closes a pooled connection left unused that long; an attempt's own timer bounds it in use.
  const pool = { keepAlive: true, maxSockets: options.maxSockets, timeout: options.idleConnectionMs };
  const agents = { 'http:': new HttpAgent(pool), 'https:': new HttpsAgent(pool) };
  const send = (attempt: AttemptRequest): Promise<AttemptAnswer> =>
    new Promise<AttemptAnswer>((resolve, reject) => {
      const url = new URL(attempt.url);
      const body = Buffer.from(attempt.body, 'utf8');
      let answer: IncomingMessage | undefined;
      let bytes = 0;
      let settled = false;
      const finish = (outcome: AttemptAnswer | Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      // Once the status has come, the attempt stands whatever happens to the rest of the answer.
      const answered = (cut = false): AttemptAnswer | undefined =>
        answer?.statusCode === undefined ? undefined : { status: answer.statusCode, bytes, cut };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
        url,
        {
          method: attempt.method,
          headers: { ...attempt.headers, 'content-length': String(body.byteLength) },
          agent: agents[url.protocol as keyof typeof agents],
        },
        (response) => {
          answer = response;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.byteLength;
            if (bytes <= readLimit) return;
            // Past the bound the connection is closed, not drained.
            bytes = readLimit;
            finish(answered(true)!);
            request.destroy();
          });
          response.on('end', () => finish(answered()!));
          // A body that fails midway (a dropped connection) ends the read with what came.
          response.on('close', () => finish(answered()!));
        },
      );
      const timer = setTimeout(() => {
        finish(answered() ?? timeoutError());
        request.destroy();
      }, timeoutMs);
      request.on('error', (error) => finish(answered() ?? error));
      request.end(body);
    });
  return {
    send,
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
