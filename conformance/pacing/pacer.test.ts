// The pacer against a simulated target on a fake clock: requests counted at any moment between send and
// answer, in fixed windows of any phase. Time moves only when every request is waiting, so nothing depends
// on the machine's speed.
import { describe, expect, it } from 'vitest';
import type { RateLimitModel } from '@payments-contract/contract/model/types';
import { createPacer, type Pacer, type PacerClock, type PacedRequest } from './pacer.js';

interface FakeClock extends PacerClock {
  sleep: (ms: number) => Promise<void>;
  /** Runs until nothing is left to do: microtasks first, then the earliest timer. */
  settle: () => Promise<void>;
}

function fakeClock(): FakeClock {
  let now = 0;
  let timers: { at: number; fire: () => void }[] = [];
  const setTimer = (ms: number, fire: () => void): (() => void) => {
    const timer = { at: now + ms, fire };
    timers.push(timer);
    return () => void (timers = timers.filter((other) => other !== timer));
  };
  const idle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    setTimer,
    sleep: (ms) => new Promise((resolve) => void setTimer(ms, resolve)),
    settle: async () => {
      for (await idle(); timers.length > 0; await idle()) {
        const next = timers.reduce((a, b) => (b.at < a.at ? b : a));
        timers = timers.filter((timer) => timer !== next);
        now = Math.max(now, next.at);
        next.fire();
      }
    },
  };
}

/** A deterministic pseudo-random sequence (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OTP: RateLimitModel = { group: 'otp', limit: 5, windowSeconds: 1 };
const WRITE: RateLimitModel = { group: 'write', limit: 50, windowSeconds: 1 };

/**
 * A target counting each key and group in fixed windows starting at `phase` (ms), answering RateLimit-*
 * on every answer; `foreign` adds requests of another client of the key before a given count.
 */
function fixedWindowTarget(clock: FakeClock, phase: number) {
  const counted = new Map<string, number[]>();
  let refused = 0;
  const count = (
    key: string,
    limit: RateLimitModel,
    extra = 0,
  ): { status: number; headers: Record<string, string> } => {
    const length = limit.windowSeconds * 1000;
    const now = clock.now();
    const start = now - ((((now - phase) % length) + length) % length);
    const id = `${key}/${limit.group}`;
    const times = counted.get(id) ?? [];
    counted.set(id, times);
    for (let i = 0; i < extra; i++) times.push(now);
    const used = times.filter((time) => time >= start).length;
    const headers = (left: number) => ({
      'ratelimit-limit': String(limit.limit),
      'ratelimit-remaining': String(left),
      'ratelimit-reset': String(Math.max(1, Math.ceil((start + length - now) / 1000))),
    });
    if (used >= limit.limit) {
      refused++;
      return { status: 429, headers: headers(0) };
    }
    times.push(now);
    return { status: 200, headers: headers(limit.limit - used - 1) };
  };
  /** The most requests of `id` counted in any span of `length` ms (so in any fixed window, whatever its phase). */
  const busiest = (id: string, length: number): number => {
    const times = [...(counted.get(id) ?? [])].sort((a, b) => a - b);
    return times.reduce(
      (most, time, index) => Math.max(most, times.slice(index).filter((other) => other < time + length).length),
      0,
    );
  };
  return { count, busiest, refused: () => refused };
}

/** Sends `requests` through the pacer from `workers` concurrent loops; the target counts each at a random moment of its round trip. */
async function drive(
  pacer: Pacer,
  clock: FakeClock,
  target: ReturnType<typeof fixedWindowTarget>,
  workers: number,
  requests: readonly PacedRequest[],
  seed: number,
): Promise<void> {
  const next = random(seed);
  let index = 0;
  const worker = async (): Promise<void> => {
    while (index < requests.length) {
      const request = requests[index++]!;
      const admission = await pacer.admit(request);
      await clock.sleep(Math.floor(next() * 40));
      const answer = target.count(request.key!, request.limit!);
      await clock.sleep(Math.floor(next() * 40));
      admission.answered(answer.status, answer.headers);
      // Sometimes a pause, so requests come in bursts that can fall either side of a window's edge.
      if (next() < 0.1) await clock.sleep(Math.floor(next() * 900));
    }
  };
  const done = Promise.all(Array.from({ length: workers }, worker));
  await clock.settle();
  await done;
}

const paced = (key: string, limit: RateLimitModel): PacedRequest => ({ key, keyLabel: key, limit, paced: true });

/** When each of `count` concurrent requests was let through, each answered at once without RateLimit fields. */
async function sendTimes(pacer: Pacer, clock: FakeClock, count: number, request: PacedRequest): Promise<number[]> {
  const sentAt: number[] = [];
  const all = Promise.all(
    Array.from({ length: count }, async () => {
      const admission = await pacer.admit(request);
      sentAt.push(clock.now());
      admission.answered(200, {});
    }),
  );
  await clock.settle();
  await all;
  return sentAt;
}

describe('the pacer', () => {
  it.each([0, 1, 250, 500, 999])(
    'never lets more than the limit be counted in a window, across window edges (windows starting at %i ms)',
    async (phase) => {
      const clock = fakeClock();
      const pacer = createPacer({ clock });
      const target = fixedWindowTarget(clock, phase);
      const requests = Array.from({ length: 60 }, (_, i) =>
        paced(i % 2 === 0 ? 'key-a' : 'key-b', i % 3 === 0 ? WRITE : OTP),
      );
      await drive(pacer, clock, target, 8, requests, phase + 1);
      expect(target.refused()).toBe(0);
      for (const id of ['key-a/otp', 'key-b/otp', 'key-a/write', 'key-b/write'])
        expect(target.busiest(id, 1000)).toBeLessThanOrEqual(id.endsWith('otp') ? OTP.limit : WRITE.limit);
      expect(pacer.tally().rateLimited).toBe(0);
    },
  );

  it('counts each key and group on its own: another key or group is not held back', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ clock });
    const target = fixedWindowTarget(clock, 0);
    // The first answer shows the key is limited; then six more overfill its otp window.
    await drive(pacer, clock, target, 1, [paced('key-a', OTP)], 1);
    const started = clock.now();
    const sentAt: Record<string, number[]> = {};
    const send = async (request: PacedRequest): Promise<void> => {
      const admission = await pacer.admit(request);
      (sentAt[`${request.key}/${request.limit!.group}`] ??= []).push(clock.now());
      const answer = target.count(request.key!, request.limit!);
      admission.answered(answer.status, answer.headers);
    };
    const all = Promise.all([
      ...Array.from({ length: OTP.limit + 1 }, () => send(paced('key-a', OTP))),
      send(paced('key-a', WRITE)),
      send(paced('key-b', OTP)),
    ]);
    await clock.settle();
    await all;
    expect(sentAt['key-a/write']).toEqual([started]);
    expect(sentAt['key-b/otp']).toEqual([started]);
    expect(Math.max(...sentAt['key-a/otp']!)).toBeGreaterThanOrEqual(started + 1000);
  });

  it('sends no more than a lower RateLimit-Remaining allows until its reset, as when another client shares the key', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ clock });
    const first = await pacer.admit(paced('key-a', WRITE));
    // Another client has used 47 of 50: three are left in this window, though the pacer has sent one.
    first.answered(200, { 'ratelimit-limit': '50', 'ratelimit-remaining': '3', 'ratelimit-reset': '1' });
    const sentAt = await sendTimes(pacer, clock, 6, paced('key-a', WRITE));
    expect(sentAt.filter((time) => time < 1000)).toHaveLength(3);
    expect(sentAt.filter((time) => time >= 1000)).toHaveLength(3);
  });

  it('follows a RateLimit-Limit lower than the contract', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ clock });
    const first = await pacer.admit(paced('key-a', WRITE));
    first.answered(200, { 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '1' });
    const sentAt = await sendTimes(pacer, clock, 4, paced('key-a', WRITE));
    expect(sentAt.filter((time) => time < 1000)).toHaveLength(1);
  });

  it('does not pace the rate_limit check: an unpaced request goes at once, though the key has no place left, and its 429 is counted apart', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ clock });
    const target = fixedWindowTarget(clock, 0);
    // The pacer's own requests spend the key's otp window first.
    await drive(
      pacer,
      clock,
      target,
      5,
      Array.from({ length: OTP.limit }, () => paced('key-a', OTP)),
      3,
    );
    const before = clock.now();
    const burst = await Promise.all(
      Array.from({ length: OTP.limit + 1 }, () => pacer.admit({ ...paced('key-a', OTP), paced: false })),
    );
    expect(clock.now()).toBe(before);
    for (const admission of burst) {
      const answer = target.count('key-a', OTP);
      admission.answered(answer.status, answer.headers);
    }
    expect(target.refused()).toBe(OTP.limit + 1);
    expect(pacer.tally()).toMatchObject({ rateLimited: OTP.limit + 1, rateLimitedPaced: 0 });
    // A paced request after the burst waits out a window after it.
    const next = pacer.admit(paced('key-a', OTP));
    await clock.settle();
    await next;
    expect(clock.now()).toBeGreaterThanOrEqual(before + 1000);
  });

  it('does not slow down a key the target does not limit: after one answer without RateLimit fields, all go at once', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ clock });
    const first = await pacer.admit(paced('key-a', OTP));
    first.answered(200, {});
    const admissions = await Promise.all(Array.from({ length: 20 }, () => pacer.admit(paced('key-a', OTP))));
    expect(admissions).toHaveLength(20);
    expect(clock.now()).toBe(0);
  });

  it('sends one request of a new key at a time until an answer shows whether the key is limited', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ clock });
    let admitted = 0;
    const pending = Array.from({ length: 3 }, () =>
      pacer.admit(paced('key-a', WRITE)).then((admission) => (admitted++, admission)),
    );
    await clock.settle();
    expect(admitted).toBe(1);
    (await pending[0]!).answered(401, {});
    await clock.settle();
    expect(admitted).toBe(2);
  });
});
