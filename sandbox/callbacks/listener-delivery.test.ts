// Delivery through live listeners: while a listener of the scope is live, an attempt is handed to it instead of
// the URL (with the body and headers the URL would have got), its reported answer is the recorded outcome and
// retries follow as usual; a callback with no URL waits for it instead of failing; with none live, the URL.
import { afterEach, describe, expect, it } from 'vitest';
import { NO_CALLBACK_URL } from './outbox.js';
import {
  CALLBACK_TOKEN,
  enqueue,
  MERCHANT,
  openTestPlatform,
  removeTempDirs,
  settled,
  startReceiver,
  webhookExample,
  type Receiver,
  type TestPlatform,
} from './testing.js';

/** What each test started, stopped after it. */
const started: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((stop) => stop().catch(() => undefined)));
  removeTempDirs();
});

/** A platform delivering callbacks, and a merchant receiver at the URL. */
async function start(): Promise<{ t: TestPlatform; merchant: Receiver }> {
  const t = await openTestPlatform(':memory:');
  const merchant = await startReceiver();
  started.push(t.close, merchant.close);
  await t.platform.dispatcher.start();
  return { t, merchant };
}

describe('delivery through listeners', () => {
  it('hands the attempt to the live listener instead of the URL, and records its answer, retrying as usual', async () => {
    const { t, merchant } = await start();
    const { listeners } = t.platform;
    await listeners.next(MERCHANT, 'listener-a', 0);
    const id = await enqueue(t, 'ewalletPayment', merchant.url);
    const [first] = await listeners.next(MERCHANT, 'listener-a', 5000);
    expect(first).toMatchObject({ delivery_id: id, webhook: 'ewalletPayment', event: 'ewallet.payment', attempt: 1 });
    expect(first!.url).toBe(merchant.url);
    expect(first!.http_headers['x-callback-token']).toBe(CALLBACK_TOKEN);
    expect(first!.http_headers['content-type']).toBe('application/json');
    expect(JSON.parse(first!.body)).toEqual(webhookExample('ewalletPayment'));
    await listeners.answer(MERCHANT, first!.id, { status: 503, error: null, answer_bytes: 0 });
    await settled(t, id, (d) => d.attempts.length === 1);

    // The retry (200 ms later here) goes to the listener again; its 2xx acknowledges.
    const [second] = await listeners.next(MERCHANT, 'listener-a', 5000);
    expect(second).toMatchObject({ delivery_id: id, attempt: 2 });
    await listeners.answer(MERCHANT, second!.id, { status: 200, error: null, answer_bytes: 2, answer_cut: false });
    const delivered = await settled(t, id, (d) => d.state === 'delivered');
    expect(delivered.attempts.map((a) => [a.status, a.error, a.forwarded])).toEqual([
      [503, null, true],
      [200, null, true],
    ]);
    expect(delivered.attempts[1]).toMatchObject({ answer_bytes: 2, answer_cut: false });
    expect(merchant.received).toHaveLength(0);
  });

  it('keeps a callback with no URL for a live listener; with none live it fails at once as before', async () => {
    const { t } = await start();
    const { listeners } = t.platform;
    const unheard = await enqueue(t, 'ewalletPayment', null);
    expect(await t.platform.callbacks.get(MERCHANT, unheard)).toMatchObject({
      state: 'failed',
      failure_reason: NO_CALLBACK_URL,
      attempts: [],
    });

    await listeners.next(MERCHANT, 'listener-a', 0);
    const heard = await enqueue(t, 'ewalletPayment', null);
    const [forward] = await listeners.next(MERCHANT, 'listener-a', 5000);
    expect(forward).toMatchObject({ delivery_id: heard, url: null });
    await listeners.answer(MERCHANT, forward!.id, { status: 200, error: null });
    expect(await settled(t, heard, (d) => d.state === 'delivered')).toMatchObject({ url: null });
  });

  it('sends to the URL, as without listeners, when the listener of another merchant or mode is live', async () => {
    const { t, merchant } = await start();
    await t.platform.listeners.next({ ...MERCHANT, mode: 'live' }, 'listener-live-mode', 0);
    const id = await enqueue(t, 'ewalletPayment', merchant.url);
    const delivered = await settled(t, id, (d) => d.state === 'delivered');
    expect(delivered.attempts[0]?.forwarded).toBeUndefined();
    expect(merchant.received).toHaveLength(1);
  });
});
