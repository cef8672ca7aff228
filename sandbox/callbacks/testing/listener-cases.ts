// The cases every store runs for listeners kept in it (store-listeners.ts), two sandboxes over one store: a
// listener polling sandbox A gets the attempt sandbox B makes, and its answer, reported to either, settles B's
// attempt; a listener that stops through one sandbox ends its poll on the other; what nobody answers ends as
// no answer; nothing is left in the store after an attempt.
import { afterEach, describe, expect, it } from 'vitest';
import type { Scope, Store } from '../../store/store.js';
import { LISTENER_STOPPED, NO_LISTENER_ANSWER, type ForwardRequest, type Listeners } from '../listeners.js';
import {
  createStoreListeners,
  FORGOTTEN_AFTER_MS,
  FORWARDS_COLLECTION,
  LISTENERS_COLLECTION,
  storeListenersCollections,
} from '../store-listeners.js';

const scope: Scope = { merchantId: 'm1', mode: 'test' };
/** Two connections to one store (two sandboxes' own, or one shared by both), opened on its listener collections. */
export type OpenPair = () => Promise<[Store, Store]>;

export { storeListenersCollections };

const request: ForwardRequest = {
  delivery_id: '0'.repeat(24),
  webhook: 'ewalletPayment',
  event: 'ewallet.payment',
  attempt: 1,
  url: 'https://merchant.example/callbacks',
  http_headers: { 'content-type': 'application/json', 'x-callback-token': 'cbt_test' },
  body: '{"n":1}',
};

export function storeListenerCases(name: string, openPair: OpenPair): void {
  const opened: Listeners[] = [];
  afterEach(() => {
    for (const listeners of opened.splice(0)) listeners.close();
  });

  /** Two sandboxes' registries, each over its own connection to the store. */
  const twoSandboxes = async () => {
    const [store, other] = await openPair();
    const a = createStoreListeners({ store, refreshMs: 50, lookMs: 10 });
    const b = createStoreListeners({ store: other, refreshMs: 50, lookMs: 10 });
    opened.push(a, b);
    return { store, a, b };
  };

  describe(`listeners kept in a shared store (${name})`, () => {
    it("gives a listener polling one sandbox the other's attempt, and settles it with the answer", async () => {
      const { store, a, b } = await twoSandboxes();
      expect(b.live(scope)).toBe(false);
      const poll = a.next(scope, 'listener-a', 5000);
      // B learns of the listener from the store, not from the poll.
      await expect.poll(() => b.live(scope)).toBe(true);
      const outcome = b.forward(scope, request, 5000);
      const [forward] = await poll;
      expect(forward).toMatchObject({ ...request, id: expect.stringMatching(/^fwd_/) });
      expect(forward!.timeout_ms).toBeGreaterThan(0);
      // A second poll does not take it again.
      expect(await a.next(scope, 'listener-a', 0)).toEqual([]);
      expect(await a.answer(scope, forward!.id, { status: 200, error: null, answer_bytes: 2 })).toEqual({
        deliveryId: request.delivery_id,
      });
      await expect(outcome).resolves.toEqual({ status: 200, error: null, answer_bytes: 2 });
      expect(await store.list(FORWARDS_COLLECTION, scope)).toEqual([]);
      expect(await b.answer(scope, forward!.id, { status: 500, error: null })).toBeUndefined();
    });

    it('ends, through either sandbox, a listener that stops: its poll, what it owed, its being live', async () => {
      const { store, a, b } = await twoSandboxes();
      await a.next(scope, 'leaving', 0);
      await b.refresh();
      const outcome = b.forward(scope, request, 5000);
      const [taken] = await a.next(scope, 'leaving', 1000);
      expect(taken).toBeDefined();
      const open = a.next(scope, 'leaving', 5000);
      // The stop comes once the poll is open (its mark in the store), as a person's Ctrl-C does: one sent before
      // would be undone by the poll that arrives after it.
      const pollingUntil = async (): Promise<number> =>
        (await store.get<{ id: string; polling_until_ms: number }>(LISTENERS_COLLECTION, scope, 'leaving'))
          ?.polling_until_ms ?? 0;
      await expect.poll(pollingUntil).toBeGreaterThan(Date.now());
      await b.leave(scope, 'leaving');
      await expect(open).resolves.toEqual([]);
      await expect(outcome).resolves.toEqual({ status: null, error: LISTENER_STOPPED });
      await a.refresh();
      expect(a.live(scope)).toBe(false);
      expect(b.live(scope)).toBe(false);
    });

    it('forgets a listener that ended without saying so, a while after it was last seen', async () => {
      const [store] = await openPair();
      let now = 1_000_000;
      const sandbox = createStoreListeners({ store, realTime: () => now, refreshMs: 60_000, lookMs: 10 });
      opened.push(sandbox);
      await sandbox.next(scope, 'killed', 0);
      await sandbox.refresh();
      expect(sandbox.live(scope)).toBe(true);
      now += FORGOTTEN_AFTER_MS;
      await sandbox.refresh();
      expect(sandbox.live(scope)).toBe(false);
      expect(await store.get(LISTENERS_COLLECTION, scope, 'killed')).toBeDefined();
      now += 1;
      await sandbox.refresh();
      expect(await store.get(LISTENERS_COLLECTION, scope, 'killed')).toBeUndefined();
    });

    it('ends an attempt nobody answers in time as no answer, and leaves nothing behind', async () => {
      const { store, a, b } = await twoSandboxes();
      await a.next(scope, 'silent', 0);
      await b.refresh();
      await expect(b.forward(scope, request, 100)).resolves.toEqual({ status: null, error: NO_LISTENER_ANSWER });
      expect(await store.list(FORWARDS_COLLECTION, scope)).toEqual([]);
      expect(await a.next(scope, 'silent', 0)).toEqual([]);
    });
  });
}
