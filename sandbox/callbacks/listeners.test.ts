// The registry of live listeners: who is live, how an attempt fans out to each listener and settles on their
// answers (the first 2xx, else the first answer, else none in time), and the bound on what a listener holds.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Scope } from '../store/store.js';
import {
  createListeners,
  LISTENER_BEHIND,
  LISTENER_QUEUE_LIMIT,
  LISTENER_STOPPED,
  LIVE_AFTER_POLL_MS,
  NO_LISTENER_ANSWER,
  type ForwardRequest,
} from './listeners.js';

const scope: Scope = { merchantId: 'm1', mode: 'test' };
const other: Scope = { merchantId: 'm2', mode: 'test' };

const request = (n = 1): ForwardRequest => ({
  delivery_id: `${n}`.padStart(24, '0'),
  webhook: 'ewalletPayment',
  event: 'ewallet.payment',
  attempt: 1,
  url: null,
  http_headers: { 'content-type': 'application/json', 'x-callback-token': 'cbt_test' },
  body: `{"n":${n}}`,
});

afterEach(() => vi.useRealTimers());

describe('listeners', () => {
  it('is live while polling and for a while after a poll, per merchant and mode', async () => {
    let now = 1_000_000;
    const listeners = createListeners({ realTime: () => now });
    expect(listeners.live(scope)).toBe(false);
    await listeners.next(scope, 'listener-a', 0);
    expect(listeners.live(scope)).toBe(true);
    expect(listeners.live(other)).toBe(false);
    expect(listeners.live({ ...scope, mode: 'live' })).toBe(false);
    now += LIVE_AFTER_POLL_MS;
    expect(listeners.live(scope)).toBe(true);
    now += 1;
    expect(listeners.live(scope)).toBe(false);
    // Nobody live: the attempt goes to the URL.
    expect(listeners.forward(scope, request(), 1000)).toBeUndefined();
  });

  it('hands a waiting poll the attempt at once, and the answer reported settles the attempt', async () => {
    const listeners = createListeners();
    const poll = listeners.next(scope, 'listener-a', 20_000);
    const outcome = listeners.forward(scope, request(), 10_000);
    const [forward] = await poll;
    expect(forward).toMatchObject({ ...request(), timeout_ms: expect.any(Number) });
    expect(forward!.id).toMatch(/^fwd_[0-9a-f]+$/);
    expect(await listeners.answer(other, forward!.id, { status: 200, error: null })).toBeUndefined();
    expect(await listeners.answer(scope, forward!.id, { status: 200, error: null, answer_bytes: 2 })).toEqual({
      deliveryId: request().delivery_id,
    });
    await expect(outcome).resolves.toEqual({ status: 200, error: null, answer_bytes: 2 });
    // Answered once: a second answer finds nothing.
    expect(await listeners.answer(scope, forward!.id, { status: 500, error: null })).toBeUndefined();
  });

  it('gives each live listener each attempt: one 2xx acknowledges, else the first status, else the first error', async () => {
    const listeners = createListeners();
    await listeners.next(scope, 'listener-a', 0);
    await listeners.next(scope, 'listener-b', 0);
    const first = listeners.forward(scope, request(1), 10_000);
    const [a] = await listeners.next(scope, 'listener-a', 0);
    const [b] = await listeners.next(scope, 'listener-b', 0);
    expect(a!.body).toBe(b!.body);
    expect(a!.id).not.toBe(b!.id);
    await listeners.answer(scope, a!.id, { status: 500, error: null });
    await listeners.answer(scope, b!.id, { status: 204, error: null });
    await expect(first).resolves.toEqual({ status: 204, error: null });

    const second = listeners.forward(scope, request(2), 10_000);
    const [a2] = await listeners.next(scope, 'listener-a', 0);
    const [b2] = await listeners.next(scope, 'listener-b', 0);
    await listeners.answer(scope, b2!.id, { status: null, error: 'connect ECONNREFUSED 127.0.0.1:8787' });
    await listeners.answer(scope, a2!.id, { status: 500, error: null });
    await expect(second).resolves.toEqual({ status: 500, error: null });

    const third = listeners.forward(scope, request(3), 10_000);
    for (const name of ['listener-a', 'listener-b']) {
      const [forward] = await listeners.next(scope, name, 0);
      await listeners.answer(scope, forward!.id, { status: null, error: `${name} refused` });
    }
    await expect(third).resolves.toEqual({ status: null, error: 'listener-a refused' });
  });

  it('settles on a 2xx at once, without waiting for a listener that does not answer', async () => {
    vi.useFakeTimers();
    const listeners = createListeners();
    await listeners.next(scope, 'silent', 0);
    await listeners.next(scope, 'prompt', 0);
    let outcome: unknown;
    void listeners.forward(scope, request(), 10_000)?.then((answer) => (outcome = answer));
    const [forward] = await listeners.next(scope, 'prompt', 0);
    await listeners.answer(scope, forward!.id, { status: 200, error: null });
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toEqual({ status: 200, error: null });
    // The silent one's share is dropped with the attempt: it is never handed out.
    expect(await listeners.next(scope, 'silent', 0)).toEqual([]);
  });

  it('counts a listener that does not answer in time as no answer, and then forgets the forward', async () => {
    vi.useFakeTimers();
    const listeners = createListeners();
    await listeners.next(scope, 'listener-a', 0);
    const outcome = listeners.forward(scope, request(), 1000);
    const [forward] = await listeners.next(scope, 'listener-a', 0);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(outcome).resolves.toEqual({ status: null, error: NO_LISTENER_ANSWER });
    expect(await listeners.answer(scope, forward!.id, { status: 200, error: null })).toBeUndefined();
  });

  it('holds at most its limit for a listener that does not take them; one over counts as no answer for it', async () => {
    vi.useFakeTimers();
    const listeners = createListeners();
    await listeners.next(scope, 'slow', 0);
    const held = Array.from({ length: LISTENER_QUEUE_LIMIT }, (_, n) => listeners.forward(scope, request(n), 10_000));
    await expect(listeners.forward(scope, request(999), 10_000)).resolves.toEqual({
      status: null,
      error: LISTENER_BEHIND,
    });
    // A poll takes at most a page of them, oldest first.
    const page = await listeners.next(scope, 'slow', 0);
    expect(page.length).toBeLessThan(LISTENER_QUEUE_LIMIT);
    expect(page[0]!.body).toBe('{"n":0}');
    await vi.advanceTimersByTimeAsync(10_000);
    for (const outcome of held) await expect(outcome).resolves.toMatchObject({ status: null });
    // Those never taken are not handed out after their attempt ended.
    await listeners.next(scope, 'slow', 0);
    expect(await listeners.next(scope, 'slow', 0)).toEqual([]);
  });

  it('lets a listener stop: no longer live, what waits for it is no answer, its open poll ends', async () => {
    const listeners = createListeners();
    await listeners.next(scope, 'leaving', 0);
    await listeners.next(scope, 'staying', 0);
    const outcome = listeners.forward(scope, request(), 10_000);
    const open = listeners.next(scope, 'leaving', 20_000);
    await listeners.leave(scope, 'leaving');
    await open;
    const [forward] = await listeners.next(scope, 'staying', 0);
    await listeners.answer(scope, forward!.id, { status: 500, error: null });
    // Both shares are in at once (the one that left, given up; the other's 500): the status stands.
    await expect(outcome).resolves.toEqual({ status: 500, error: null });
    // Alone, a listener that stops with a callback taken and not answered settles it at once.
    await listeners.leave(scope, 'staying');
    await listeners.next(scope, 'alone', 0);
    const taken = listeners.forward(scope, request(2), 10_000);
    await listeners.next(scope, 'alone', 0);
    await listeners.leave(scope, 'alone');
    await expect(taken).resolves.toEqual({ status: null, error: LISTENER_STOPPED });
    expect(listeners.live(scope)).toBe(false);
  });

  it('ends open polls when closed, and then takes no attempt', async () => {
    const listeners = createListeners();
    const poll = listeners.next(scope, 'listener-a', 20_000);
    listeners.close();
    await expect(poll).resolves.toEqual([]);
    expect(listeners.live(scope)).toBe(false);
    expect(listeners.forward(scope, request(), 1000)).toBeUndefined();
  });
});
