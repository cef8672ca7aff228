// The suite's own callback endpoint. It records every delivery (time, headers, body), judges its token
// at once (the token itself is never stored, so no report can leak it), works out which webhook it is,
// and acknowledges with 2xx, except where the suite asked it to fail the first attempts of an event so
// that it can watch the target retry.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Contract } from '../contract.js';
import { callbackPath, identifyWebhook, tokenVerdict, type Identification, type TokenVerdict } from './identify.js';

export interface Delivery {
  /** Order of arrival, from 0. */
  seq: number;
  /** `performance.now()` at arrival: retry spacing is measured on it. */
  receivedAt: number;
  at: string;
  method: string;
  path: string;
  /** Lower-case names; the token headers are left out (see `token`). */
  headers: Record<string, string>;
  /** The verdict on each webhook token header name, judged against the configured token. */
  token: Record<string, TokenVerdict>;
  bodyText: string;
  /** The parsed body; undefined when it is not JSON. */
  json?: unknown;
  tooLarge: boolean;
  identified: Identification;
  /** What the receiver answered. */
  answered: number;
}

export interface ReceiverOptions {
  contract: Contract;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The receiver's address as the target reaches it; default http://host:port. */
  publicUrl?: string;
  /** The callback token the target must send; when absent, tokens are only checked for presence. */
  token?: string;
  maxBodyBytes?: number;
  /**
   * The answer to a delivery no `failFirst` rule claims; default 200. The whole-run receiver answers each
   * status the contract says acknowledges in turn, and fails some attempts on purpose (whole-run.ts).
   */
  answer?: (delivery: Delivery) => number;
}

export interface CallbackReceiver {
  /** The base URL the target is given. */
  publicUrl: string;
  /** A URL that names the webhook and the event, for targets that take a callback URL per request. */
  callbackUrl: (webhook: string, key: string) => string;
  deliveries: () => readonly Delivery[];
  /** Answers 500 to the first `attempts` deliveries of each distinct body that `matches` accepts. */
  failFirst: (matches: (delivery: Delivery) => boolean, attempts: number) => void;
  /** The first delivery (already received or still to come) that `matches` accepts, or undefined after `timeoutMs`. */
  waitFor: (matches: (delivery: Delivery) => boolean, timeoutMs: number) => Promise<Delivery | undefined>;
  close: () => Promise<void>;
}

const readBody = (request: IncomingMessage, limit: number): Promise<{ text: string; tooLarge: boolean }> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    const done = (): void => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge });
    request.on('end', done);
    request.on('error', done);
  });

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

const formatHost = (host: string): string => {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return reachable.includes(':') ? `[${reachable}]` : reachable;
};

export async function startReceiver(options: ReceiverOptions): Promise<CallbackReceiver> {
  const { contract } = options;
  // Compiled now, not on the first delivery: compiling blocks the event loop and would skew arrival times.
  for (const webhook of contract.model.webhooks) contract.validate(webhook.bodySchema, null);
  const tokenHeaders = [...new Set(contract.model.webhooks.map((w) => w.tokenHeader))];
  const recorded: Delivery[] = [];
  const rules: { matches: (delivery: Delivery) => boolean; attempts: number; seen: Map<string, number> }[] = [];
  const waiters = new Set<{
    matches: (delivery: Delivery) => boolean;
    resolve: (delivery: Delivery | undefined) => void;
  }>();

  const answerFor = (delivery: Delivery): number => {
    for (const rule of rules) {
      if (!rule.matches(delivery)) continue;
      // Retries repeat the same callback; a different body (another callback of the event) counts apart.
      const seen = (rule.seen.get(delivery.bodyText) ?? 0) + 1;
      rule.seen.set(delivery.bodyText, seen);
      return seen <= rule.attempts ? 500 : 200;
    }
    return options.answer?.(delivery) ?? 200;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const receivedAt = performance.now();
    const body = await readBody(request, options.maxBodyBytes ?? 1024 * 1024);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !tokenHeaders.includes(name))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const token = Object.fromEntries(
      tokenHeaders.map((name) => {
        const value = request.headers[name];
        return [name, tokenVerdict(Array.isArray(value) ? value.join(', ') : value, options.token)];
      }),
    );
    const json = body.tooLarge ? undefined : parseJson(body.text);
    const path = new URL(request.url ?? '/', 'http://receiver').pathname;
    const delivery: Delivery = {
      seq: recorded.length,
      receivedAt,
      at: new Date().toISOString(),
      method: request.method ?? '',
      path,
      headers,
      token,
      bodyText: body.text,
      ...(json === undefined ? {} : { json }),
      tooLarge: body.tooLarge,
      identified: identifyWebhook(contract, path, json),
      answered: 0,
    };
    delivery.answered = answerFor(delivery);
    recorded.push(delivery);
    // 204, 205 and 304 answers have no body.
    if ([204, 205, 304].includes(delivery.answered)) {
      response.writeHead(delivery.answered);
      response.end();
    } else {
      response.writeHead(delivery.answered, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          delivery.answered < 300
            ? { received: true }
            : {
                error_code: 'SERVER_ERROR',
                message: 'The conformance suite fails this attempt on purpose to measure retries.',
              },
        ),
      );
    }
    for (const waiter of waiters) {
      if (waiter.matches(delivery)) {
        waiters.delete(waiter);
        waiter.resolve(delivery);
      }
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  // A target that opens a connection and says nothing must not keep the run alive.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const publicUrl = (options.publicUrl ?? `http://${formatHost(options.host)}:${port}`).replace(/\/+$/, '');

  return {
    publicUrl,
    callbackUrl: (webhook, key) => `${publicUrl}${callbackPath(webhook, key)}`,
    deliveries: () => recorded,
    failFirst: (matches, attempts) => rules.push({ matches, attempts, seen: new Map() }),
    waitFor: (matches, timeoutMs) => {
      const found = recorded.find(matches);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => {
        const waiter = {
          matches,
          resolve: (delivery: Delivery | undefined) => {
            clearTimeout(timer);
            resolve(delivery);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(undefined);
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const waiter of waiters) waiter.resolve(undefined);
        waiters.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
