// A receiver's answer is read only as far as the control contract's bound on `answer_bytes`, then its
// connection is closed and the attempt records the cut. Read whole, an endless answer grew the sandbox by
// hundreds of MiB in one attempt; here the receiver stops at 256 MiB so that a reader taking it all ends.
import { afterEach, describe, expect, it } from 'vitest';
import { ANSWER_READ_LIMIT } from './read-answer.js';
import {
  enqueue,
  openTestPlatform,
  removeTempDirs,
  settled,
  startEndlessReceiver,
  startReceiver,
  tempDataDir,
  type EndlessReceiver,
  type Receiver,
  type TestPlatform,
} from './testing.js';

const opened: TestPlatform[] = [];
const receivers: (Receiver | EndlessReceiver)[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await Promise.all(opened.splice(0).map((p) => p.close().catch(() => undefined)));
  removeTempDirs();
});

const MiB = 1024 * 1024;

describe('reading a callback answer', () => {
  it('reads an endless 2xx answer up to the bound, closes the connection there and records the cut', async () => {
    const endless = await startEndlessReceiver();
    receivers.push(endless);
    const t = await openTestPlatform(tempDataDir(), { callbackTimeoutMs: 60_000 });
    opened.push(t);
    await t.platform.dispatcher.start();

    const id = await enqueue(t, 'disbursementFinished', endless.url);
    const delivered = await settled(t, id, (d) => d.state === 'delivered');
    expect(delivered.attempts).toEqual([
      expect.objectContaining({ status: 200, error: null, answer_bytes: ANSWER_READ_LIMIT, answer_cut: true }),
    ]);
    await endless.firstClosed;
    // What the receiver got into its socket before the close: the bound plus the sockets' buffers, never the 256 MiB.
    expect(endless.written()).toBeLessThan(32 * MiB);
  }, 30_000);

  it('records a short answer read to its end', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const t = await openTestPlatform(tempDataDir());
    opened.push(t);
    await t.platform.dispatcher.start();
    const delivered = await settled(
      t,
      await enqueue(t, 'ewalletPayment', receiver.url),
      (d) => d.state === 'delivered',
    );
    // The test receiver answers `{}`.
    expect(delivered.attempts).toEqual([expect.objectContaining({ status: 200, answer_bytes: 2, answer_cut: false })]);
  });
});
