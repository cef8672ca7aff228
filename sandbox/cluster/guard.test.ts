import type { FetchHandler } from '@payments-contract/server/runtime/node-listener';
import { describe, expect, it } from 'vitest';
import { SERVICE_UNAVAILABLE_ERROR_CODE } from '../limits/limit-answers.js';
import { StoreUnavailableError } from '../store/store.js';
import { createStoreGuard } from './guard.js';

/** Shared state that is always fresh and publishes at once. */
const sharedState = { fresh: async () => undefined, published: async () => undefined, now: () => 0 };

describe('the store guard', () => {
  it('serves the routers of an embedded store as they are: it is never unreachable and shares no state', () => {
    const router: FetchHandler = async () => new Response('{}');
    expect(createStoreGuard().wrap(router)).toBe(router);
  });

  it('with a shared store, answers 503 SERVICE_UNAVAILABLE, to be retried, when the store was unreachable during the request', async () => {
    const guard = createStoreGuard({ shared: sharedState });
    const failing = guard.wrap(async () => {
      guard.noteUnavailable(new StoreUnavailableError('the database did not answer'));
      return new Response('{"error_code":"SERVER_ERROR"}', { status: 500 });
    });
    const answer = await failing(new Request('http://sandbox.test/balance'));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.json()).toMatchObject({ error_code: SERVICE_UNAVAILABLE_ERROR_CODE });

    const working = guard.wrap(async () => new Response('{}', { status: 200 }));
    expect((await working(new Request('http://sandbox.test/balance'))).status).toBe(200);
  });
});
