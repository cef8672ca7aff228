import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import type { NativeAnswer, NativeRequest } from '@payments-contract/server/runtime/native-request';
import { DEFAULT_LIVE_SECRET_KEY, DEFAULT_TEST_SECRET_KEY } from '../config.js';
import type { Scope } from '../context.js';
import type { RunningSandbox } from '../main.js';
import { startLocalSandbox } from '../testing/local-sandbox.js';
import type { SandboxLogger } from './logger.js';
import { createRequestObserver, newRequestId } from './observe.js';
import { createRequestLog } from './request-log.js';

const A: Scope = { merchantId: 'merchant-a', mode: 'test' };
const B: Scope = { merchantId: 'merchant-b', mode: 'test' };
const silent: SandboxLogger = {
  request: () => undefined,
  callbackAttempt: () => undefined,
  info: () => undefined,
  flush: () => undefined,
};
const answered: NativeAnswer = { status: 200, headers: {}, body: '{"balance":1}' };

function balanceRead(authorization: string): NativeRequest {
  return {
    method: 'GET',
    pathname: '/balance',
    search: '',
    header: (name) => (name === 'authorization' ? authorization : null),
    readBody: async () => ({ kind: 'text', text: '' }),
    toRequest: () => new Request('http://127.0.0.1/balance', { headers: { authorization } }),
  };
}

/** An observer whose key lookup names merchant A for the key `key-a` and counts how often it is asked. */
function observed() {
  const log = createRequestLog({ mask: (text) => text });
  const lookups: (string | null)[] = [];
  const observer = createRequestObserver({
    logger: silent,
    mask: (text) => text,
    requests: {
      log,
      scopeOf: (authorization) => {
        lookups.push(authorization);
        return authorization === 'key-a' ? A : null;
      },
      now: () => new Date('2026-11-21T09:30:00.000Z'),
    },
  });
  return { log, lookups, observer };
}

describe('request ids', () => {
  it('are `req_` and 24 hex digits, different each time, also past a batch of random bytes', () => {
    const ids = Array.from({ length: 1000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("the request record's scope", () => {
  it('is the one the router noted for the request, without looking the key up again', async () => {
    const { log, lookups, observer } = observed();
    await observer.native(balanceRead('key-a'), 'service', async (request) => {
      observer.noteScope(request, B);
      return answered;
    });
    expect(lookups).toEqual([]);
    expect(log.list(B, 10).map((entry) => entry.path)).toEqual(['/balance']);
    expect(log.list(A, 10)).toEqual([]);
  });

  it('is found from the key when nothing was noted (a request the router did not authenticate, or one faulted before it)', async () => {
    const { log, lookups, observer } = observed();
    await observer.native(balanceRead('key-a'), 'service', async () => answered);
    await observer.native(balanceRead('no-key'), 'service', async () => answered);
    expect(lookups).toEqual(['key-a', 'no-key']);
    expect(log.list(A, 10).map((entry) => entry.path)).toEqual(['/balance']);
  });

  it('is not taken from a request the observer did not hand on', async () => {
    const { log, observer } = observed();
    const elsewhere = balanceRead('key-a');
    await observer.native(balanceRead('key-a'), 'service', async () => {
      observer.noteScope(elsewhere, B);
      return answered;
    });
    expect(log.list(B, 10)).toEqual([]);
    expect(log.list(A, 10)).toHaveLength(1);
  });
});

describe('the request record through the listener', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startLocalSandbox();
  });
  afterAll(() => sandbox?.stop());

  const get = async (path: string, key: string): Promise<Response> =>
    fetch(`${sandbox.url}${path}`, { headers: { authorization: basicAuthorization({ username: key, password: '' }) } });

  it("files each request under its key's mode, having looked a key up only for a request the router did not authenticate", async () => {
    const { merchants } = sandbox.app;
    const authenticate = merchants.authenticate;
    let lookups = 0;
    merchants.authenticate = (credentials) => {
      lookups += 1;
      return authenticate(credentials);
    };
    onTestFinished(() => {
      merchants.authenticate = authenticate;
    });
    expect((await get('/balance', DEFAULT_TEST_SECRET_KEY)).status).toBe(200);
    expect((await get('/balance?account_type=HOLDING', DEFAULT_LIVE_SECRET_KEY)).status).toBe(200);
    expect(lookups).toBe(0);
    expect((await get('/no-such-path', DEFAULT_TEST_SECRET_KEY)).status).toBe(404);
    expect(lookups).toBe(1);
    const listed = async (key: string): Promise<string[]> =>
      ((await (await get('/sandbox/requests', key)).json()) as { data: { path: string }[] }).data.map(
        (entry) => entry.path,
      );
    expect(await listed(DEFAULT_TEST_SECRET_KEY)).toEqual(['/no-such-path', '/balance']);
    expect(await listed(DEFAULT_LIVE_SECRET_KEY)).toEqual(['/balance?account_type=HOLDING']);
  });
});
