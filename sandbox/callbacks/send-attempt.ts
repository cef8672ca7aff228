// How one callback attempt goes out: over node:http(s) with a keep-alive pool and one timer per attempt, or
// through a `fetch` the sandbox is given (tests, an in-process receiver). An attempt through the global
// `fetch` built two Request objects, three abort signals (each made transferable) and a web stream for the
// answer: about a fifth of the sandbox's CPU under the bench's mix, where every fifth request is a
// disbursement and so a callback. The receiver sees the same request either way (POST, the delivery's
// headers and body; a redirect is not followed), and the answer is read only as far as its bound.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { toRequest, type WebhookDelivery } from '@payments-contract/client/webhooks';
import { readAnswer, type AnswerRead } from './read-answer.js';

/** What an attempt got: the receiver's status and how much of its answer was read. */
export interface AttemptAnswer extends AnswerRead {
  status: number;
}

export interface AttemptSender {
  /**
   * The attempt of `delivery`, ready to make; throws if it cannot be sent at all (a URL with credentials).
   * The attempt rejects when no answer (a status) came within the timeout.
   */
  prepare(delivery: WebhookDelivery): () => Promise<AttemptAnswer>;
  /** Closes the pooled connections. */
  close(): void;
}

export interface AttemptSenderOptions {
  timeoutMs: number;
  /** How much of an answer's body is read (read-answer.ts). */
  readLimit: number;
  /** Connections to one receiver at most. */
  maxSockets: number;
  /** Sends through this instead of node:http. */
  fetch?: typeof fetch;
  /** How long a pooled connection may sit unused before it is closed. Default IDLE_CONNECTION_MS. */
  idleConnectionMs?: number;
}

/**
 * An unused connection is closed after this long: before a receiver on Node's defaults closes it (5 s), so an
 * attempt never goes out on a connection the receiver is closing at that moment (undici's default too).
 */
export const IDLE_CONNECTION_MS = 4000;

/** The error of an attempt that had no answer in time, named as `AbortSignal.timeout`'s is. */
function timeoutError(): Error {
  const error = new Error('no answer before the attempt timed out');
  error.name = 'TimeoutError';
  return error;
}

export function createAttemptSender(options: AttemptSenderOptions): AttemptSender {
  const { timeoutMs, readLimit } = options;
  const { fetch: given } = options;
  if (given)
    return {
      prepare: (delivery) => {
        const request = toRequest(delivery);
        return async () => {
          const response = await given(request, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
          return { status: response.status, ...(await readAnswer(response, readLimit)) };
        };
      },
      close: () => undefined,
    };
  // The agents' `timeout` closes a pooled connection left unused that long; an attempt's own timer bounds it in use.
  const pool = {
    keepAlive: true,
    maxSockets: options.maxSockets,
    timeout: options.idleConnectionMs ?? IDLE_CONNECTION_MS,
  };
  const agents = { 'http:': new HttpAgent(pool), 'https:': new HttpsAgent(pool) };
  const send = (url: URL, delivery: WebhookDelivery, body: Buffer): Promise<AttemptAnswer> =>
    new Promise<AttemptAnswer>((resolve, reject) => {
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
          method: delivery.method,
          headers: { ...delivery.headers, 'content-length': String(body.byteLength) },
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
    prepare: (delivery) => {
      const url = new URL(delivery.url);
      // As the fetch standard refuses them: credentials in a URL are never sent as a login.
      if (url.username !== '' || url.password !== '') throw new Error('the callback URL includes credentials');
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`a callback is sent over http or https, not ${url.protocol}`);
      const body = Buffer.from(delivery.body, 'utf8');
      return () => send(url, delivery, body);
    },
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
