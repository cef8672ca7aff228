import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from './contract.js';
import { createHttpClient, retryAfterMs, type Exchange } from './http.js';
import { operationLocator } from './operation-at.js';
import { documentedLimits } from './pacing/limits.js';
import { createPacer } from './pacing/pacer.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A target that answers the first `limited` requests 429 with `retryAfter`, then 200. */
async function limitedTarget(
  limited: number,
  retryAfter: string | null,
): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    requests++;
    if (requests <= limited) {
      response.writeHead(429, {
        'content-type': 'application/json',
        ...(retryAfter === null ? {} : { 'retry-after': retryAfter }),
      });
      response.end(JSON.stringify({ error_code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"balance":1}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

describe('the HTTP client meeting a rate limit', () => {
  it('waits as Retry-After says and sends the request again, handing each 429 to be judged', async () => {
    const target = await limitedTarget(2, '1');
    const waits: number[] = [];
    const met: Exchange[] = [];
    const http = createHttpClient({
      baseUrl: target.url,
      apiKey: 'k',
      timeoutMs: 2000,
      rateLimits: {
        retries: 5,
        maxWaitSeconds: 10,
        totalWaitSeconds: 60,
        onRateLimited: (exchange) => met.push(exchange),
        sleep: async (ms) => void waits.push(ms),
      },
    });
    const answer = await http.send({ method: 'GET', path: '/balance' });
    expect(answer.status).toBe(200);
    expect(waits).toEqual([1000, 1000]);
    expect(met.map((exchange) => exchange.status)).toEqual([429, 429]);
    expect(target.requests()).toBe(3);
  });

  it('hands the 429 back when it has no readable Retry-After, asks too long a wait, or keeps coming', async () => {
    const noHeader = await limitedTarget(1, null);
    const quick = { retries: 2, maxWaitSeconds: 10, totalWaitSeconds: 60, sleep: async () => undefined };
    expect(
      (
        await createHttpClient({ baseUrl: noHeader.url, apiKey: 'k', timeoutMs: 2000, rateLimits: quick }).send({
          method: 'GET',
          path: '/',
        })
      ).status,
    ).toBe(429);
    const long = await limitedTarget(1, '3600');
    expect(
      (
        await createHttpClient({ baseUrl: long.url, apiKey: 'k', timeoutMs: 2000, rateLimits: quick }).send({
          method: 'GET',
          path: '/',
        })
      ).status,
    ).toBe(429);
    const always = await limitedTarget(100, '1');
    expect(
      (
        await createHttpClient({ baseUrl: always.url, apiKey: 'k', timeoutMs: 2000, rateLimits: quick }).send({
          method: 'GET',
          path: '/',
        })
      ).status,
    ).toBe(429);
    expect(always.requests()).toBe(3);
  });

  it('stops waiting once the run has waited its budget, so a limit that never lets go cannot stall a run', async () => {
    const always = await limitedTarget(1000, '2');
    const waits: number[] = [];
    let clock = 0;
    const sleep = async (ms: number): Promise<void> => {
      waits.push(ms);
      clock += ms;
    };
    const http = createHttpClient({
      baseUrl: always.url,
      apiKey: 'k',
      timeoutMs: 2000,
      rateLimits: { retries: 5, maxWaitSeconds: 10, totalWaitSeconds: 5, sleep, now: () => clock },
    });
    const other = http.withKey('k2', 'OTHER_KEY');
    expect((await http.send({ method: 'GET', path: '/' })).status).toBe(429);
    expect((await other.send({ method: 'GET', path: '/' })).status).toBe(429);
    // 2 s twice fits in 5 s; a third wait would not, for this client or the other key's of the same run.
    expect(waits).toEqual([2000, 2000]);
  });

  it('counts waits made side by side once: concurrent requests waiting out one window spend its length, not a multiple', async () => {
    const target = await limitedTarget(8, '1');
    const http = createHttpClient({
      baseUrl: target.url,
      apiKey: 'k',
      timeoutMs: 2000,
      rateLimits: {
        retries: 5,
        maxWaitSeconds: 10,
        totalWaitSeconds: 2,
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      },
    });
    const answers = await Promise.all(Array.from({ length: 8 }, () => http.send({ method: 'GET', path: '/' })));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 8 }, () => 200));
  });

  it('reads Retry-After as delta-seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-24T06:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Tue, 24 Nov 2026 06:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Tue, 24 Nov 2026 05:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('1.5', now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('finding the operation a request went to', () => {
  const locate = operationLocator(loadContract().model.operations, 'http://target.test/api/');
  it('matches the method and the path template, parameters as one segment, a trailing slash or not', () => {
    expect(locate('GET', 'http://target.test/api/balance')?.operationId).toBe('getBalance');
    expect(locate('get', 'http://target.test/api/disbursements/abc123?x=1')?.operationId).toBe('getDisbursement');
    expect(locate('POST', 'http://target.test/api/disbursements/')?.operationId).toBe('createDisbursement');
  });
  it('finds none outside the base path, for another method or an unknown path', () => {
    expect(locate('GET', 'http://target.test/balance')).toBeUndefined();
    expect(locate('DELETE', 'http://target.test/api/balance')).toBeUndefined();
    expect(locate('GET', 'http://target.test/api/disbursements/a/b')).toBeUndefined();
  });
});

describe('the HTTP client pacing its requests', () => {
  /** A target that limits every key to `limit` in one window that never ends: the first `limit` pass, the rest get 429. */
  async function exhaustibleTarget(limit: number): Promise<{ url: string; authorizations: (string | undefined)[] }> {
    const authorizations: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      request.resume();
      authorizations.push(request.headers.authorization);
      const used = authorizations.length;
      const headers = {
        'content-type': 'application/json',
        'ratelimit-limit': String(limit),
        'ratelimit-remaining': String(Math.max(0, limit - used)),
        'ratelimit-reset': '1',
        'retry-after': '1',
      };
      response
        .writeHead(used > limit ? 429 : 200, headers)
        .end(used > limit ? '{"error_code":"RATE_LIMIT_EXCEEDED","message":"slow down"}' : '{"balance":1}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, authorizations };
  }

  // A clock that never moves: a request the pacer holds back never goes, so "it was sent" proves "it was not held".
  const frozen = { now: () => 0, setTimer: () => () => undefined };

  it("sends the rate_limit check's requests (rateLimited: 'return') at once past the limit, counting their 429s apart", async () => {
    const target = await exhaustibleTarget(2);
    const pacer = createPacer({ clock: frozen });
    const http = createHttpClient({
      baseUrl: target.url,
      apiKey: 'k',
      timeoutMs: 2000,
      pacing: { pacer, limitOf: documentedLimits(loadContract(), target.url) },
    });
    expect((await http.send({ method: 'GET', path: '/balance' })).status).toBe(200);
    const burst = await Promise.all(
      Array.from({ length: 4 }, () => http.send({ method: 'GET', path: '/balance', rateLimited: 'return' })),
    );
    expect(burst.map((answer) => answer.status).sort()).toEqual([200, 429, 429, 429]);
    expect(pacer.tally()).toMatchObject({ rateLimited: 3, rateLimitedPaced: 0 });
    expect(pacer.tally().requests).toEqual([
      { keyLabel: 'PAYMENTS_API_KEY', group: 'read', limit: 100, windowSeconds: 1, requests: 5 },
    ]);
  });

  it('holds back a paced request once the target says none is left, while another key and a request with no key go', async () => {
    const target = await exhaustibleTarget(1);
    const pacer = createPacer({ clock: frozen });
    const http = createHttpClient({
      baseUrl: target.url,
      apiKey: 'k',
      timeoutMs: 2000,
      rateLimits: { retries: 0, maxWaitSeconds: 0, totalWaitSeconds: 0 },
      pacing: { pacer, limitOf: documentedLimits(loadContract(), target.url) },
    });
    expect((await http.send({ method: 'GET', path: '/balance' })).status).toBe(200);
    let held = true;
    void http.send({ method: 'GET', path: '/balance' }).then(() => (held = false));
    expect((await http.send({ method: 'GET', path: '/balance', auth: 'none' })).status).toBe(429);
    expect((await http.withKey('k2', 'OTHER_KEY').send({ method: 'GET', path: '/balance' })).status).toBe(429);
    expect(held).toBe(true);
    expect(target.authorizations).toHaveLength(3);
  });
});

/**
 * A target that resets the connection under the requests `reset` picks (by the request's number, from 1, and
 * its number on its connection, from 1), and answers the others 200 on a connection kept alive.
 */
async function resettingTarget(
  reset: (request: number, onConnection: number) => boolean,
): Promise<{ url: string; requests: () => number; connections: () => number }> {
  let requests = 0;
  const perSocket = new WeakMap<object, number>();
  const server = createServer((request, response) => {
    request.resume();
    requests++;
    const onConnection = (perSocket.get(request.socket) ?? 0) + 1;
    perSocket.set(request.socket, onConnection);
    if (reset(requests, onConnection)) {
      request.socket.resetAndDestroy();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'keep-alive': 'timeout=60' }).end('{"balance":1}');
  });
  let connections = 0;
  server.on('connection', () => void connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    connections: () => connections,
  };
}

describe('the HTTP client on a connection closed under its request', () => {
  it('sends the request once more on a new connection, as a browser does with a stale keep-alive connection', async () => {
    // The second request finds its kept-alive connection closed by the target (an idle timeout's race).
    const target = await resettingTarget((_request, onConnection) => onConnection === 2);
    const http = createHttpClient({ baseUrl: target.url, apiKey: 'k', timeoutMs: 2000 });
    expect((await http.send({ method: 'GET', path: '/balance' })).status).toBe(200);
    // Until the connection is back in the pool, a request would open another.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await http.send({
      method: 'POST',
      path: '/disbursements',
      body: { contentType: 'application/json', text: '{}' },
    });
    expect(second.failure).toBeUndefined();
    expect(second.status).toBe(200);
    expect(target.requests()).toBe(3);
    expect(target.connections()).toBe(2);
    expect(http.requestCount()).toBe(2);
  });

  it('reports a target that drops the connection again: one more try, then a connection failure', async () => {
    const target = await resettingTarget(() => true);
    const http = createHttpClient({ baseUrl: target.url, apiKey: 'k', timeoutMs: 2000 });
    const answer = await http.send({ method: 'GET', path: '/balance' });
    expect(answer.status).toBe(0);
    expect(answer.failure?.kind).toBe('connection');
    expect(target.requests()).toBe(2);
  });
});
