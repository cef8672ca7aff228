// How one callback attempt goes out: over node:http(s) with a keep-alive pool and one timer per attempt, in a
// thread of its own (attempt-thread.ts), or through a `fetch` the sandbox is given (tests, an in-process
// receiver). An attempt through the global `fetch` built two Request objects, three abort signals (each made
// transferable) and a web stream for the answer: about a fifth of the sandbox's CPU under the bench's mix, where
// every fifth request is a disbursement and so a callback. The receiver sees the same request either way (POST,
// the delivery's headers and body; a redirect is not followed), and the answer is read only as far as its bound.
import { toRequest, type WebhookDelivery } from '@payments-contract/client/webhooks';
import type { Worker } from 'node:worker_threads';
import { createAttemptThread } from './attempt-thread.js';
import type { AttemptAnswer } from './http-attempt.js';
import { readAnswer } from './read-answer.js';

export type { AttemptAnswer } from './http-attempt.js';

export interface AttemptSender {
  /**
   * The attempt of `delivery`, ready to make; throws if it cannot be sent at all (a URL with credentials).
   * The attempt rejects when no answer (a status) came within the timeout.
   */
  prepare(delivery: WebhookDelivery): () => Promise<AttemptAnswer>;
  /** Closes the pooled connections (and the thread that holds them); resolves once they are closed. */
  close(): Promise<void>;
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
  /** Told of each sending thread started (tests). */
  onThread?: (worker: Worker) => void;
}

/**
 * An unused connection is closed after this long: before a receiver on Node's defaults closes it (5 s), so an
 * attempt never goes out on a connection the receiver is closing at that moment (undici's default too).
 */
export const IDLE_CONNECTION_MS = 4000;

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
      close: async () => undefined,
    };
  const thread = createAttemptThread({
    timeoutMs,
    readLimit,
    maxSockets: options.maxSockets,
    idleConnectionMs: options.idleConnectionMs ?? IDLE_CONNECTION_MS,
    ...(options.onThread ? { onThread: options.onThread } : {}),
  });
  return {
    prepare: (delivery) => {
      const url = new URL(delivery.url);
      // As the fetch standard refuses them: credentials in a URL are never sent as a login.
      if (url.username !== '' || url.password !== '') throw new Error('the callback URL includes credentials');
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`a callback is sent over http or https, not ${url.protocol}`);
      const request = { url: url.href, method: delivery.method, headers: delivery.headers, body: delivery.body };
      return () => thread.send(request);
    },
    close: () => thread.close(),
  };
}
