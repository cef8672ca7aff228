import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWebhookReceiver, webhookMetadata, WebhookPayloadError } from '@payments-contract/client/webhooks';
import type { Scope } from '../store/store.js';
import { maskUrlCredentials } from './mask-credentials.js';
import type { Worker } from 'node:worker_threads';
import { NO_CALLBACK_URL, DELIVERIES_COLLECTION, type DeliveryRecord } from './outbox.js';
import {
  CALLBACK_TOKEN,
  enqueue,
  MERCHANT,
  openTestPlatform,
  removeTempDirs,
  settled,
  startHangingReceiver,
  startReceiver,
  tempDataDir,
  webhookExample,
  type Receiver,
  type TestPlatform,
} from './testing.js';

const opened: TestPlatform[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((p) => p.close().catch(() => undefined)));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  removeTempDirs();
});
const open = async (dir: string, options: Parameters<typeof openTestPlatform>[1] = {}): Promise<TestPlatform> => {
  const platform = await openTestPlatform(dir, options);
  opened.push(platform);
  return platform;
};
const receiver = async (status?: Parameters<typeof startReceiver>[0]): Promise<Receiver> => {
  const started = await startReceiver(status);
  receivers.push(started);
  return started;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('callback delivery', () => {
  it('sends the merchant token and a body the contract’s own receiver accepts, then records it delivered', async () => {
    const merchant = await receiver();
    const t = await open(tempDataDir());
    await t.platform.dispatcher.start();
    for (const kind of Object.keys(webhookMetadata) as (keyof typeof webhookMetadata)[])
      await enqueue(t, kind, merchant.url);
    const kinds = Object.keys(webhookMetadata).length;
    await merchant.waitFor(kinds);

    const accepted: string[] = [];
    const contractReceiver = createWebhookReceiver(
      Object.fromEntries(Object.keys(webhookMetadata).map((kind) => [kind, async () => void accepted.push(kind)])),
      { callbackToken: CALLBACK_TOKEN },
    );
    for (const request of merchant.received) {
      expect(request.headers['x-callback-token']).toBe(CALLBACK_TOKEN);
      expect(request.headers['content-type']).toBe('application/json');
      const answer = await contractReceiver(
        new Request(merchant.url, {
          method: 'POST',
          headers: {
            'x-callback-token': String(request.headers['x-callback-token']),
            'content-type': 'application/json',
          },
          body: request.body,
        }),
      );
      expect(answer.status, request.body).toBe(200);
    }
    expect(accepted.sort()).toEqual(Object.keys(webhookMetadata).sort());
    for (const delivery of await t.platform.callbacks.list(MERCHANT)) {
      const done = await settled(t, delivery.id, (d) => d.state === 'delivered');
      expect(done.attempts).toHaveLength(1);
      expect(done.attempts[0]?.status).toBe(200);
      expect(done.next_attempt_at).toBeNull();
    }
  });

  it('gives a receiver answering 500 exactly the contract’s 3 attempts, the configured delay apart, then fails with an alert', async () => {
    const merchant = await receiver(() => 500);
    const t = await open(tempDataDir(), { callbackRetryDelayMs: 200 });
    await t.platform.dispatcher.start();
    const id = await enqueue(t, 'disbursementFinished', merchant.url);
    const received = await merchant.waitFor(3);
    const failed = await settled(t, id, (d) => d.state === 'failed');
    await sleep(600); // nothing more comes after the last attempt
    expect(merchant.received).toHaveLength(webhookMetadata.disbursementFinished.delivery.attempts);
    const gaps = received.slice(1).map((r, i) => r.at - received[i]!.at);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(190);
      expect(gap).toBeLessThan(800);
    }
    expect(failed.attempts.map((a) => a.status)).toEqual([500, 500, 500]);
    expect(failed.alert).toBe(true);
    expect(failed.failure_reason).toMatch(/3 attempts.*HTTP 500/);
    expect(t.alerts.map((a) => a.id)).toEqual([id]);
  });

  it('attempts each delivery it enqueued, and each retry, by itself: without reading the whole outbox every time', async () => {
    // Each delivery goes to a URL of its own whose first attempt fails: twenty retries are needed. (Failing
    // the first twenty attempts overall let a slow enqueue loop see one delivery fail all its attempts.)
    const attempted = new Set<string>();
    const merchant = await receiver(({ url }) => (attempted.has(url) ? 200 : (attempted.add(url), 500)));
    const t = await open(tempDataDir(), { callbackRetryDelayMs: 100 });
    await t.platform.dispatcher.start();
    await sleep(50);
    const across = vi.spyOn(t.store, 'findAcrossScopes');
    const byField = vi.spyOn(t.store, 'findBy');
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) ids.push(await enqueue(t, 'disbursementFinished', `${merchant.url}/${n}`));
    const delivered = await Promise.all(ids.map((id) => settled(t, id, (d) => d.state === 'delivered')));
    // Twenty attempts failed, one per delivery: each was retried from its own timer.
    expect(delivered.reduce((attempts, d) => attempts + d.attempts.length, 0)).toBe(40);
    const lookups = [...across.mock.calls, ...byField.mock.calls].filter(
      ([collection]) => collection === DELIVERIES_COLLECTION,
    );
    // `enqueue` above reads the newest delivery back once per call; the dispatcher adds no look of its own.
    expect(lookups.filter(([, field]) => field === 'state')).toHaveLength(0);
    // Forty attempts and twenty enqueues: generous on a machine the whole suite shares.
  }, 30_000);

  it('loses nothing and repeats nothing acknowledged across a restart', async () => {
    const dir = tempDataDir();
    const ok = await receiver(() => 200);
    let flakyCalls = 0;
    const flaky = await receiver(() => (++flakyCalls === 1 ? 500 : 200));

    const first = await open(dir, { callbackRetryDelayMs: 300 });
    await first.platform.dispatcher.start();
    const acknowledged = await enqueue(first, 'ewalletPayment', ok.url);
    const retrying = await enqueue(first, 'fixedVirtualAccountPaid', flaky.url);
    await settled(first, acknowledged, (d) => d.state === 'delivered');
    await settled(first, retrying, (d) => d.attempts.length === 1 && d.state === 'pending');
    // Recorded while nothing sends (the process is going down): it must still go out after the restart.
    await first.platform.dispatcher.stop();
    const unsent = await enqueue(first, 'fixedPaymentCodePaid', ok.url);
    await first.close();

    const second = await open(dir, { callbackRetryDelayMs: 300 });
    await second.platform.dispatcher.start();
    const retried = await settled(second, retrying, (d) => d.state === 'delivered');
    const resumed = await settled(second, unsent, (d) => d.state === 'delivered');
    await sleep(400);
    expect(retried.attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(resumed.attempts).toHaveLength(1);
    expect(flaky.received).toHaveLength(2);
    // The acknowledged one once, the one recorded before the restart once.
    expect(ok.received.map((r) => (JSON.parse(r.body) as { id?: string }).id)).toEqual([
      webhookExample('ewalletPayment').id,
      webhookExample('fixedPaymentCodePaid').id,
    ]);
  });

  it('never sends a delivery before its transaction commits, nor one whose transaction rolled back', async () => {
    const merchant = await receiver();
    const t = await open(tempDataDir());
    await t.platform.dispatcher.start();

    await expect(
      t.store.transaction(async (tx) => {
        await t.platform.callbacks.enqueue(
          tx,
          MERCHANT,
          'ewalletPayment',
          webhookExample('ewalletPayment'),
          merchant.url,
        );
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await t.platform.dispatcher.runDue();
    await sleep(200);
    expect(merchant.received).toHaveLength(0);
    expect(await t.platform.callbacks.list(MERCHANT)).toEqual([]);

    let sentBeforeCommit = -1;
    await t.store.transaction(async (tx) => {
      await t.platform.callbacks.enqueue(
        tx,
        MERCHANT,
        'ewalletPayment',
        webhookExample('ewalletPayment'),
        merchant.url,
      );
      await sleep(150); // the dispatcher was told; it must wait for the commit
      sentBeforeCommit = merchant.received.length;
    });
    expect(sentBeforeCommit).toBe(0);
    await merchant.waitFor(1);
  });

  it('records a callback without a configured URL as failed at once, without attempts or alert', async () => {
    const t = await open(tempDataDir());
    await t.platform.dispatcher.start();
    const id = await enqueue(t, 'fixedVirtualAccountChanged', null);
    const delivery = await t.platform.callbacks.get(MERCHANT, id);
    expect(delivery).toMatchObject({
      state: 'failed',
      failure_reason: NO_CALLBACK_URL,
      attempts: [],
      alert: false,
      next_attempt_at: null,
    });
    expect(t.alerts).toEqual([]);
  });

  it('fails a callback that cannot be sent at all (a URL with credentials, stored before such URLs were refused) with an alert, never silently', async () => {
    const t = await open(tempDataDir());
    await t.platform.dispatcher.start();
    const id = await enqueue(t, 'disbursementFinished', 'https://merchant:hunter2@127.0.0.1:9/cb');
    const failed = await settled(t, id, (d) => d.state === 'failed');
    expect(failed).toMatchObject({
      attempts: [],
      alert: true,
      next_attempt_at: null,
      failure_reason: expect.stringMatching(/could not be built/),
    });
    expect(t.alerts.map((a) => a.id)).toEqual([id]);
    expect(failed.failure_reason).not.toContain('hunter2');
  });

  it('masks the credentials of URLs in what it shows and logs', () => {
    expect(maskUrlCredentials('cannot reach https://merchant:hunter2@host.example/cb?a=b@c')).toBe(
      'cannot reach https://***@host.example/cb?a=b@c',
    );
    expect(maskUrlCredentials('https://host.example/cb')).toBe('https://host.example/cb');
  });

  it('refuses a payload that breaks the webhook schema, rolling the whole change back', async () => {
    const t = await open(tempDataDir());
    const broken = { ...webhookExample('ewalletPayment'), amount: 'a lot' };
    await expect(
      t.store.transaction(async (tx) => {
        await tx.insert(DELIVERIES_COLLECTION, MERCHANT, { id: 'marker' });
        await t.platform.callbacks.enqueue(tx, MERCHANT, 'ewalletPayment', broken, 'http://127.0.0.1:9/x');
      }),
    ).rejects.toBeInstanceOf(WebhookPayloadError);
    expect(await t.store.get(DELIVERIES_COLLECTION, MERCHANT, 'marker')).toBeUndefined();
    await expect(
      t.store.transaction((tx) => t.platform.callbacks.enqueue(tx, MERCHANT, 'noSuchWebhook', {}, null)),
    ).rejects.toThrow(/not a webhook/);
  });

  it('makes the next attempt when the sandbox clock is advanced past the retry delay, without waiting for it', async () => {
    const merchant = await receiver(() => 503);
    const t = await open(tempDataDir(), { callbackRetryDelayMs: 60_000 });
    await t.platform.dispatcher.start();
    const id = await enqueue(t, 'ewalletPayment', merchant.url);
    await settled(t, id, (d) => d.attempts.length === 1);
    await t.platform.clock.advance(MERCHANT, 30_000);
    expect(merchant.received).toHaveLength(1);
    await t.platform.clock.advance(MERCHANT, 30_000);
    expect(merchant.received).toHaveLength(2); // advance answers once what became due has run
    await t.platform.clock.advance(MERCHANT, 60_000);
    const failed = await settled(t, id, (d) => d.state === 'failed');
    expect(failed.attempts.map((a) => a.status)).toEqual([503, 503, 503]);
    expect(Date.parse(failed.attempts[1]!.at) - Date.parse(failed.attempts[0]!.at)).toBeGreaterThanOrEqual(60_000);
  });

  it("retries by the clock of the delivery's own merchant and mode: another's advance makes none of its attempts due", async () => {
    const live: Scope = { ...MERCHANT, mode: 'live' };
    const otherMerchant: Scope = { merchantId: 'merchant-b', mode: 'test' };
    const scopes = [MERCHANT, live, otherMerchant];
    const endpoints = await Promise.all(scopes.map(() => receiver(() => 503)));
    const t = await open(tempDataDir(), { callbackRetryDelayMs: 60_000 });
    await t.platform.dispatcher.start();
    const ids = await Promise.all(
      scopes.map((scope, index) => enqueue(t, 'ewalletPayment', endpoints[index]!.url, scope)),
    );
    const firstTries = await Promise.all(
      scopes.map((scope, index) => settled(t, ids[index]!, (d) => d.attempts.length === 1, scope)),
    );

    await t.platform.clock.advance(MERCHANT, 60_000);
    expect(endpoints.map((endpoint) => endpoint.received.length)).toEqual([2, 1, 1]);
    await t.platform.dispatcher.runDue();
    const after = await Promise.all(scopes.map((scope, index) => t.platform.callbacks.get(scope, ids[index]!)));
    expect(after.map((d) => d?.attempts.length)).toEqual([2, 1, 1]);
    // The others' next attempts are still a real minute away, where their own clocks put them.
    expect(after.slice(1).map((d) => d?.next_attempt_at)).toEqual(firstTries.slice(1).map((d) => d.next_attempt_at));

    await t.platform.clock.advance(otherMerchant, 60_000);
    expect(endpoints.map((endpoint) => endpoint.received.length)).toEqual([2, 1, 2]);
  });

  it('counts an attempt that gets no answer in time, or no connection, as failed', async () => {
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const t = await open(tempDataDir(), { fetch: hanging, callbackTimeoutMs: 50, callbackRetryDelayMs: 20 });
    await t.platform.dispatcher.start();
    const id = await enqueue(t, 'ewalletPayment', 'http://127.0.0.1:9/never');
    const failed = await settled(t, id, (d) => d.state === 'failed');
    expect(failed.attempts).toHaveLength(3);
    expect(failed.attempts.every((a) => a.status === null && /timed out/.test(a.error ?? ''))).toBe(true);

    const closed = await receiver();
    const url = closed.url;
    await closed.close();
    receivers.splice(receivers.indexOf(closed), 1);
    const refused = await open(tempDataDir(), { callbackRetryDelayMs: 20 });
    await refused.platform.dispatcher.start();
    const refusedId = await enqueue(refused, 'ewalletPayment', url);
    const gaveUp = await settled(refused, refusedId, (d) => d.state === 'failed');
    expect(gaveUp.attempts.every((a) => a.status === null && a.error !== null)).toBe(true);
    expect(gaveUp.alert).toBe(true);
  });

  it('records an attempt whose sending thread ended under it as failed, with why, and makes the next one in a new thread', async () => {
    const threads: Worker[] = [];
    const merchant = await receiver();
    const hanging = await startHangingReceiver();
    const t = await open(tempDataDir(), {
      callbackRetryDelayMs: 20,
      onSendingThread: (worker) => void threads.push(worker),
    });
    await t.platform.dispatcher.start();
    const id = await enqueue(t, 'ewalletPayment', hanging.url);
    await hanging.waitFor(1, 10_000);
    // The URL is changed before the thread ends, so the retry goes to a receiver that answers.
    await t.store.transaction(async (tx) => {
      const delivery = await tx.get<DeliveryRecord>(DELIVERIES_COLLECTION, MERCHANT, id);
      await tx.update(DELIVERIES_COLLECTION, MERCHANT, { ...delivery!, url: merchant.url });
    });
    await threads[0]!.terminate();
    const delivered = await settled(t, id, (d) => d.state === 'delivered');
    await hanging.close();
    expect(delivered.attempts[0]?.status).toBeNull();
    expect(delivered.attempts[0]?.error).toMatch(
      /the callbacks' sending thread ended .* before the attempt had an answer/,
    );
    expect(delivered.attempts[1]?.status).toBe(200);
    expect(threads).toHaveLength(2);
  });

  it('records why an attempt failed on one line, within 1024 characters', async () => {
    const failing: typeof fetch = () => Promise.reject(new Error(`first line\nsecond line ${'x'.repeat(2000)}`));
    const t = await open(tempDataDir(), { fetch: failing, callbackRetryDelayMs: 20 });
    await t.platform.dispatcher.start();
    const failed = await settled(
      t,
      await enqueue(t, 'ewalletPayment', 'http://127.0.0.1:9/never'),
      (d) => d.state === 'failed',
    );
    const [error] = failed.attempts.map((attempt) => attempt.error ?? '');
    expect(error).toMatch(/^first line\\u000asecond line x+…$/);
    expect(error).toHaveLength(1024);
    expect(failed.failure_reason!.length).toBeLessThanOrEqual(2048);
  });

  it('resends a settled delivery to the URL configured now, and refuses one still pending', async () => {
    const merchant = await receiver();
    const t = await open(tempDataDir(), { callbackRetryDelayMs: 60_000 });
    await t.platform.dispatcher.start();
    const unconfigured = await enqueue(t, 'disbursementFinished', null);
    await t.platform.settings.update(MERCHANT, {
      callback_urls: { [webhookMetadata.disbursementFinished.delivery.destination.dashboard_setting]: merchant.url },
    });
    const outcome = await t.platform.callbacks.resend(MERCHANT, unconfigured);
    if (outcome.kind !== 'resent') throw new Error(`expected a resend, got ${outcome.kind}`);
    expect(outcome.delivery).toMatchObject({
      url: merchant.url,
      resent_from: unconfigured,
      payload: webhookExample('disbursementFinished'),
    });
    await merchant.waitFor(1);
    await settled(t, outcome.delivery.id, (d) => d.state === 'delivered');
    expect((await t.platform.callbacks.get(MERCHANT, unconfigured))?.state).toBe('failed');

    const down = await receiver(() => 500);
    const pending = await enqueue(t, 'directDebitPayment', down.url);
    await settled(t, pending, (d) => d.attempts.length === 1);
    expect((await t.platform.callbacks.resend(MERCHANT, pending)).kind).toBe('pending');
    expect((await t.platform.callbacks.resend(MERCHANT, 'nope')).kind).toBe('not_found');
    expect((await t.platform.callbacks.resend({ ...MERCHANT, mode: 'live' }, unconfigured)).kind).toBe('not_found');
  });
});
