// The wrapper around the service router on its own, with a router that only counts and a fault list the
// test controls: what it leaves to the router, what a failure to take a fault becomes, and that a stopping
// sandbox is not kept waiting by a delay.
import { describe, expect, it } from 'vitest';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import {
  answerToResponse,
  nativeFromRequest,
  nativeHandlerOf,
  withNativeHandler,
  type NativeHandler,
} from '@payments-contract/server/runtime/native-request';
import type { FetchHandler } from '@payments-contract/server/runtime/node-listener';
import type { Scope } from '../store/store.js';
import { createFaultInjection, FAULT_HEADER } from './fault-injection.js';
import type { Fault } from './faults.js';

const SCOPE: Scope = { merchantId: 'merchant-a', mode: 'test' };
const KEY = 'sk_test_merchant_a';
const fault = (settings: Partial<Fault>): Fault => ({
  id: 'f1',
  kind: 'unavailable',
  operation: null,
  count: 1,
  remaining: 1,
  retry_after_seconds: 1,
  limit: null,
  outcome: null,
  delay_ms: null,
  created: '2026-11-21T09:30:00.000Z',
  ...settings,
});

/** A router answering 200 `{"ran":true}` and counting its requests, and the fault list it is wrapped with. */
function setUp(options: { armed?: Fault[]; take?: () => Promise<Fault | undefined> } = {}) {
  let ran = 0;
  const taken: string[] = [];
  const errors: unknown[] = [];
  const native: NativeHandler = async () => {
    ran++;
    return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ran":true}' };
  };
  const router = withNativeHandler(
    (async (request: Request) => answerToResponse(await native(nativeFromRequest(request)))) as FetchHandler,
    native,
  );
  const armed = [...(options.armed ?? [])];
  const injection = createFaultInjection({
    faults: {
      anyArmed: () => armed.length > 0 || options.take !== undefined,
      mayHaveFaults: (scope) => scope.merchantId === SCOPE.merchantId,
      take: options.take ?? (async (_scope, operationId) => (taken.push(operationId), armed.shift())),
    },
    authenticate: (credentials) => (credentials?.username === KEY && credentials.password === '' ? SCOPE : null),
    onError: (error) => void errors.push(error),
  });
  const wrapped = injection.wrap(router);
  const send = (path: string, key: string | null = KEY, method = 'GET'): Promise<Response> =>
    wrapped(
      new Request(`http://sandbox.test${path}`, {
        method,
        headers: key === null ? {} : { authorization: basicAuthorization({ username: key, password: '' }) },
      }),
    );
  return { injection, wrapped, send, ran: () => ran, taken, errors };
}

describe('fault injection', () => {
  it('leaves every request to the router while no fault is armed', async () => {
    const { send, ran, taken } = setUp();
    expect((await send('/balance')).status).toBe(200);
    expect([ran(), taken]).toEqual([1, []]);
  });

  it('takes no fault for a request without a valid key or to no operation, and names the operation it takes one for', async () => {
    const { send, ran, taken } = setUp({ armed: [fault({})] });
    await send('/balance', null);
    await send('/balance', 'sk_test_someone_else');
    await send('/no_such_operation');
    await send('/balance', KEY, 'DELETE');
    expect([ran(), taken]).toEqual([4, []]);
    expect((await send('/balance')).status).toBe(503);
    expect(taken).toEqual(['getBalance']);
    expect(ran()).toBe(4);
  });

  it('answers the generic 500 and reports the error when the fault cannot be taken (the store guard makes an unreachable store a 503)', async () => {
    const { send, ran, errors } = setUp({ take: () => Promise.reject(new Error('store down')) });
    const answer = await send('/balance');
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ error_code: 'SERVER_ERROR', message: expect.any(String) });
    expect(errors).toEqual([new Error('store down')]);
    expect(ran()).toBe(0);
  });

  it('answers alike through the native entry the Node listener uses', async () => {
    const { wrapped, ran } = setUp({ armed: [fault({ kind: 'rate_limited', limit: 5, retry_after_seconds: 2 })] });
    const native = nativeHandlerOf(wrapped)!;
    const answer = await native(
      nativeFromRequest(
        new Request('http://sandbox.test/balance', {
          headers: { authorization: basicAuthorization({ username: KEY, password: '' }) },
        }),
      ),
    );
    expect(answer).toMatchObject({
      status: 429,
      headers: {
        'retry-after': '2',
        'ratelimit-limit': '5',
        'ratelimit-remaining': '0',
        'ratelimit-reset': '2',
        [FAULT_HEADER]: 'f1',
      },
    });
    expect(ran()).toBe(0);
  });

  it('runs an applied server error through the router, then answers 500', async () => {
    const { send, ran } = setUp({ armed: [fault({ kind: 'server_error', outcome: 'applied' })] });
    const answer = await send('/balance');
    expect([answer.status, ran()]).toEqual([500, 1]);
  });

  it('sends what a delay holds back at once when the sandbox stops', async () => {
    const { send, injection, ran } = setUp({ armed: [fault({ kind: 'delay', delay_ms: 30_000 })] });
    const started = performance.now();
    const answer = send('/balance');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran()).toBe(1);
    injection.release();
    expect((await answer).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
