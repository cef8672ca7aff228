// One merchant's receiver that accepts and never answers must cost that merchant only: while its 160
// deliveries hang, another merchant's callback, and the same merchant's in the other mode, go out at once.
// Before attempts were fair between scopes, the hanging ones held every slot and the others waited for the
// attempts' timeout (here 30 s; with the default 10 s, 100 s behind 160).
import { afterEach, describe, expect, it } from 'vitest';
import type { Scope } from '../store/store.js';
import {
  enqueue,
  MERCHANT,
  openTestPlatform,
  removeTempDirs,
  settled,
  startHangingReceiver,
  startReceiver,
  tempDataDir,
  webhookExample,
  type HangingReceiver,
  type Receiver,
  type TestPlatform,
} from './testing.js';

const HANGING_DELIVERIES = 160;
const ATTEMPT_TIMEOUT_MS = 30_000;

const opened: TestPlatform[] = [];
const hanging: HangingReceiver[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  // Stopped first, so the queued attempts are left pending instead of being made against a closed receiver;
  // the stop waits for the attempts under way, which end once the hanging connections are dropped.
  const closing = opened.splice(0).map((p) => p.close().catch(() => undefined));
  await Promise.all(hanging.splice(0).map((r) => r.close()));
  await Promise.all(closing);
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  removeTempDirs();
});

describe('fair callback delivery', () => {
  it(`delivers another merchant's and another mode's callbacks at once while ${HANGING_DELIVERIES} of one merchant's hang`, async () => {
    const stuck = await startHangingReceiver();
    hanging.push(stuck);
    const prompt = await startReceiver();
    receivers.push(prompt);
    const t = await openTestPlatform(tempDataDir(), { callbackTimeoutMs: ATTEMPT_TIMEOUT_MS });
    opened.push(t);
    await t.platform.dispatcher.start();

    // One payload for all (reading the contract's example costs a parse of the whole contract).
    const payload = webhookExample('disbursementFinished');
    await t.store.transaction(async (tx) => {
      for (let n = 0; n < HANGING_DELIVERIES; n++)
        await t.platform.callbacks.enqueue(tx, MERCHANT, 'disbursementFinished', payload, stuck.url);
    });
    // The flood's first attempts are under way and hang.
    await stuck.waitFor(1);

    const others: Scope[] = [
      { merchantId: 'merchant-b', mode: 'test' },
      { ...MERCHANT, mode: 'live' },
    ];
    const started = performance.now();
    const ids = await Promise.all(others.map((scope) => enqueue(t, 'ewalletPayment', prompt.url, scope)));
    const delivered = await Promise.all(
      others.map((scope, index) => settled(t, ids[index]!, (d) => d.state === 'delivered', scope)),
    );
    const delayMs = performance.now() - started;

    expect(delivered.map((d) => d.attempts.length)).toEqual([1, 1]);
    // Not one of the hanging attempts has ended: the others did not wait for a slot they freed.
    const flood = await t.platform.callbacks.list(MERCHANT);
    expect(flood.filter((d) => d.attempts.length > 0)).toEqual([]);
    // At most the merchant's own share of the slots hangs (16 of 64 by default).
    expect(stuck.requests()).toBeLessThanOrEqual(16);
    // Tens of milliseconds when fair; the attempt timeout (30 s) when not: generous for a shared machine.
    expect(delayMs).toBeLessThan(2_000);
  }, 60_000);
});
