// GET /sandbox/callbacks in the whole sandbox, its answers checked against the control contract: a merchant
// and mode with more deliveries recorded than the list's `maxItems` (a CI pipeline running the conformance
// suite against one sandbox many times) gets the newest ones, never a 500.
import { afterEach, describe, expect, it } from 'vitest';
import { webhookExample } from '../callbacks/testing.js';
import { controlListLimit } from '../contract.js';
import { createTestSandbox, scopeOf, TEST_CALLBACK_URL, type TestSandbox } from '../testing/index.js';

const LIMIT = controlListLimit('listCallbackDeliveries');
/** Past the bound by more than retention's step (it looks every 100 deliveries), as the CI pipeline got. */
const RECORDED = LIMIT + 150;

let sandbox: TestSandbox;
afterEach(async () => {
  await sandbox.close();
});

/** The deliveries' order numbers (n of `external_id` `order-n`), as listed. */
const orderOf = (body: unknown): number[] =>
  (body as { payload: { external_id: string } }[]).map((delivery) =>
    Number(delivery.payload.external_id.slice('order-'.length)),
  );

describe('GET /sandbox/callbacks with more deliveries than a list holds', () => {
  it('answers 200 with the newest maxItems, newest first, with and without filters', async () => {
    // No dispatcher: each delivery stays pending, which retention never removes, so all are kept.
    sandbox = await createTestSandbox({ startDispatcher: false });
    const scope = scopeOf('aTest');
    const example = webhookExample('fixedVirtualAccountChanged');
    // One transaction per delivery, as the sandbox records them, so retention looks as it does in use.
    for (let n = 0; n < RECORDED; n++) {
      const payload = { ...example, external_id: `order-${n}` };
      await sandbox.ctx.store.transaction((tx) =>
        sandbox.ctx.callbacks.enqueue(tx, scope, 'fixedVirtualAccountChanged', payload, TEST_CALLBACK_URL),
      );
    }
    const newestFirst = Array.from({ length: LIMIT }, (_, i) => RECORDED - 1 - i);
    for (const query of [
      '',
      '?state=pending',
      '?webhook=fixedVirtualAccountChanged',
      '?state=pending&webhook=fixedVirtualAccountChanged',
    ]) {
      const answer = await sandbox.request('GET', `/sandbox/callbacks${query}`);
      expect(answer.status, query).toBe(200);
      expect(orderOf(answer.body), query).toEqual(newestFirst);
    }
    // Another merchant's list is its own, and empty.
    expect(await sandbox.request('GET', '/sandbox/callbacks', { key: 'bTest' })).toMatchObject({
      status: 200,
      body: [],
    });
  });
});
