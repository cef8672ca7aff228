// Reading shared state again before a request, without a query per request under load. What a sandbox
// keeps in memory of state other sandboxes change (clocks, settings, which scopes have faults) is used for
// at most `maxAgeMs` after the read that produced it began; a caller that finds it older waits for a read
// that began after it asked, and callers meanwhile share that read. A change, in turn, is answered only
// `maxAgeMs` after it was committed (`published`): by the time its client has the answer, every sandbox's
// copy was read after the commit, so a change made through one sandbox is seen by the next request to any.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long a sandbox sharing its store reuses what it read of the shared state, and so how long a change of
 * it waits before its answer. Under load this turns three reads per request into three per 25 ms.
 */
export const SHARED_STATE_MAX_AGE_MS = 25;

/**
 * `fresh()` resolves once the caller may rely on `load` having read everything committed before it asked,
 * give or take `maxAgeMs`: at once when the newest finished run began less than `maxAgeMs` ago, else after
 * a run that began since (or rejects with its error). With `maxAgeMs` 0 every caller waits for a run that
 * began after it asked.
 */
export function coalesced(
  load: () => Promise<void>,
  maxAgeMs = 0,
  now: () => number = () => performance.now(),
): () => Promise<void> {
  let newestStart = -Infinity;
  let running: { start: number; done: Promise<void> } | undefined;
  let next: Promise<void> | undefined;
  const begin = (): Promise<void> => {
    const start = now();
    const done = load()
      .then(() => void (newestStart = Math.max(newestStart, start)))
      .finally(() => {
        if (running?.done === done) running = undefined;
      });
    running = { start, done };
    return done;
  };
  return () => {
    const asked = now();
    if (asked - newestStart < maxAgeMs) return Promise.resolve();
    if (!running) return begin();
    if (asked - running.start < maxAgeMs) return running.done;
    // A load is under way, begun too long before this call: wait for it, then share the one after it.
    next ??= running.done
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return begin();
      });
    return next;
  };
}

export interface SharedStateReads {
  /** Resolves when what this process holds of the shared state may be used for a request arriving now. */
  fresh(): Promise<void>;
  /** Notes that this process has just committed a change of the shared state. */
  changed(): void;
  /**
   * Resolves when a change this process committed since `since` (a `now()` reading) is in every sandbox's
   * copy: `maxAgeMs` after the change. At once when there was none.
   */
  published(since: number): Promise<void>;
  now(): number;
}

export function createSharedStateReads(
  load: () => Promise<void>,
  maxAgeMs = SHARED_STATE_MAX_AGE_MS,
  now: () => number = () => performance.now(),
): SharedStateReads {
  const fresh = coalesced(load, maxAgeMs, now);
  let lastChange = -Infinity;
  return {
    fresh,
    changed: () => void (lastChange = now()),
    published: async (since) => {
      if (lastChange < since) return;
      const until = lastChange + maxAgeMs;
      // A timer may fire a little early: wait until the time has really passed.
      for (let left = until - now(); left > 0; left = until - now()) await sleep(Math.ceil(left));
    },
    now,
  };
}
