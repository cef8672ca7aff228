// Two sandboxes' platforms over one PostgreSQL store: a delivery's first attempt is a job its enqueuing
// transaction wrote held by the enqueuing sandbox, so the attempt costs no claim in its merchant's queue (one
// transaction after the enqueue: recording the outcome, which ends the job), and the other sandbox, looking at
// the same moment, does not make it too.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { collections, createPlatform, type Platform } from '../platform/index.js';
import { JOBS_COLLECTION, type Store } from '../store/store.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import { openTestStore } from '../store/postgres/testing/test-schemas.js';
import { jobId } from '../platform/scheduler.js';
import { CALLBACK_JOB, DELIVERIES_COLLECTION, type DeliveryRecord } from './outbox.js';
import { CALLBACK_TOKEN, MERCHANT, startReceiver, webhookExample, type Receiver } from './testing.js';

const { server } = useThrowawayPostgres();
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
}, 30_000);

async function sandbox(store: Store): Promise<Platform> {
  const platform = await createPlatform({
    store,
    callbackToken: () => CALLBACK_TOKEN,
    callbackRetryDelayMs: 200,
    defaultCallbackUrl: null,
    onAlert: () => undefined,
  });
  await platform.dispatcher.start();
  closers.push(() => platform.dispatcher.stop());
  return platform;
}

async function delivered(store: Store, id: string): Promise<DeliveryRecord> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const delivery = await store.get<DeliveryRecord>(DELIVERIES_COLLECTION, MERCHANT, id);
    if (delivery?.state === 'delivered') return delivery;
    if (performance.now() > deadline) throw new Error(`delivery ${id} was not delivered: ${JSON.stringify(delivery)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the first attempt of a callback on a shared store', () => {
  it('is made by the sandbox that enqueued it, under the hold written with it, with no claim transaction', async () => {
    const [first, second] = await Promise.all([
      openTestStore(server().url, 'first-attempt-lease', collections),
      openTestStore(server().url, 'first-attempt-lease', collections),
    ]);
    if (!first || !second) throw new Error('two stores');
    closers.push(
      () => first.close(),
      () => second.close(),
    );
    const receiver: Receiver = await startReceiver();
    closers.push(() => receiver.close());
    const enqueuing = await sandbox(first);
    const other = await sandbox(second);

    const transactions = vi.spyOn(first, 'transaction');
    const enqueued = await first.transaction(async (tx) => {
      await enqueuing.callbacks.enqueue(
        tx,
        MERCHANT,
        'disbursementFinished',
        webhookExample('disbursementFinished'),
        receiver.url,
      );
      const [delivery] = await tx.list<DeliveryRecord>(DELIVERIES_COLLECTION, MERCHANT);
      if (!delivery) throw new Error('nothing was enqueued');
      // Written in the enqueuing transaction, held by the enqueuing sandbox.
      expect(await tx.get(JOBS_COLLECTION, MERCHANT, jobId(CALLBACK_JOB, delivery.id))).toMatchObject({
        locked_by: enqueuing.scheduler.holder,
      });
      return delivery;
    });
    // The other sandbox looks at once, as an advance of the merchant's clock and its sweep do: the job is not its.
    await Promise.all([other.dispatcher.runDue(MERCHANT), other.dispatcher.runDue()]);

    const done = await delivered(first, enqueued.id);
    expect(done.attempts).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
    // The enqueue, then only the outcome's record: no transaction claimed the attempt.
    expect(transactions).toHaveBeenCalledTimes(2);
    // Ended with the outcome.
    expect(await first.get(JOBS_COLLECTION, MERCHANT, jobId(CALLBACK_JOB, enqueued.id))).toBeUndefined();
  }, 30_000);
});
