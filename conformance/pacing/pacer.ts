// Paces the suite's requests to the target's documented rate limits, per API key and rate-limit group, so
// that a conforming target never has to refuse it (only the rate_limit check drives a limit past, unpaced).
// Whether the target limits a key at all is learnt from its first answer to the key: until then one request
// of the key is sent at a time; an answer with RateLimit-Limit or RateLimit-Remaining (or a 429) paces the key
// from then on, an answer without them lets it run free (the sandbox with its limits off is not slowed down)
// until a later answer shows a limit. Every request is in the log all along, so pacing is exact once on.
//
// Exact against fixed windows of any phase: the target counts a request at some moment between its send and
// its answer, so each request holds one of the group's `limit` places from its send until one window after
// its answer (plus a margin for whole-millisecond clocks). No window of the limit's length can then hold more
// than `limit` counted requests, whatever the latency, and a burst cannot straddle a window edge twice.
// When the target's RateLimit-Remaining says less is left than this log believes (another client of the key,
// or a target counting otherwise), at most that many more are sent until its RateLimit-Reset has passed;
// a RateLimit-Limit below the contract's is followed from then on.
//
// Not a general limiter library (bottleneck, p-throttle): they count sends, not the span in which the
// target may count, and read no RateLimit-* answer; the contract's fixed windows need both.
import type { RateLimitModel } from '@payments-contract/contract/model/types';

/** Time in milliseconds and timers; tests give a fake one that moves only when told. */
export interface PacerClock {
  now: () => number;
  /** Calls `fire` after `ms`; the returned function cancels it. */
  setTimer: (ms: number, fire: () => void) => () => void;
}

export const realClock: PacerClock = {
  now: () => performance.now(),
  setTimer: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

export interface PacedRequest {
  /** Whose limit it counts against: the key's secret (never shown), or undefined for a request with no key. */
  key: string | undefined;
  /** How reports name the key (the variable holding it). */
  keyLabel: string;
  /** The request's rate-limit group, undefined when the contract gives it none (it is then not paced). */
  limit: RateLimitModel | undefined;
  /** false: sent at once, though still counted (the rate_limit check drives a limit past on purpose). */
  paced: boolean;
}

/** A request let through; `answered` is called once its answer (or failure) is in. */
export interface Admission {
  answered: (status: number, headers: Readonly<Record<string, string>>) => void;
}

export interface PacingTally {
  /** 429 answers met, all of them. */
  rateLimited: number;
  /** 429 answers to requests that were paced (outside the rate_limit check): a conforming target gives none. */
  rateLimitedPaced: number;
  /** Requests counted per key and group (a 401 counts against no key), with the group's documented limit. */
  requests: { keyLabel: string; group: string; limit: number; windowSeconds: number; requests: number }[];
}

export interface Pacer {
  admit: (request: PacedRequest) => Promise<Admission>;
  tally: () => PacingTally;
}

/** One request's hold on a place: from its send until a window after its answer (`end` unset while in flight). */
interface Hold {
  start: number;
  end?: number;
  /** The request that finds out whether the target limits the key. */
  probe?: true;
}

/** What the target said is left: at most `left` more sends until `until`. */
interface Budget {
  left: number;
  until: number;
}

/** What the target has shown of one key's limits, shared by the key's groups. */
interface KeyState {
  shown: 'nothing' | 'limited' | 'unlimited';
  probing: boolean;
  buckets: Bucket[];
}

interface Bucket {
  key: KeyState;
  keyLabel: string;
  documented: RateLimitModel;
  /** The documented limit, or a lower one the target states. */
  limit: number;
  windowMs: number;
  holds: Hold[];
  budgets: Budget[];
  waiting: (() => void)[];
  cancelTimer?: () => void;
  requests: number;
}

/** A header value that is a whole number, else undefined. */
function whole(headers: Readonly<Record<string, string>>, name: string): number | undefined {
  const value = headers[name]?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** Whether an answer says the key is limited: a 429, or a RateLimit field stating its count. */
const showsLimit = (status: number, headers: Readonly<Record<string, string>>): boolean =>
  status === 429 || headers['ratelimit-limit'] !== undefined || headers['ratelimit-remaining'] !== undefined;

export interface PacerOptions {
  clock?: PacerClock;
  /** Added to each hold and budget: the target's clock counts whole milliseconds. */
  marginMs?: number;
}

export function createPacer(options: PacerOptions = {}): Pacer {
  const clock = options.clock ?? realClock;
  const margin = options.marginMs ?? 5;
  const buckets = new Map<string, Bucket>();
  const keys = new Map<string, KeyState>();
  let rateLimited = 0;
  let rateLimitedPaced = 0;

  const bucketOf = (key: string, keyLabel: string, limit: RateLimitModel): Bucket => {
    const id = `${key}\u0000${limit.group}`;
    let bucket = buckets.get(id);
    if (!bucket) {
      let state = keys.get(key);
      if (!state) keys.set(key, (state = { shown: 'nothing', probing: false, buckets: [] }));
      const windowMs = limit.windowSeconds * 1000;
      bucket = {
        key: state,
        keyLabel,
        documented: limit,
        limit: limit.limit,
        windowMs,
        holds: [],
        budgets: [],
        waiting: [],
        requests: 0,
      };
      state.buckets.push(bucket);
      buckets.set(id, bucket);
    }
    return bucket;
  };

  /** Drops what no longer constrains a send made now. */
  const prune = (bucket: Bucket, now: number): void => {
    bucket.holds = bucket.holds.filter((hold) => hold.end === undefined || hold.end + bucket.windowMs + margin > now);
    bucket.budgets = bucket.budgets.filter((budget) => budget.until > now);
  };

  const take = (bucket: Bucket, now: number, probe: boolean): Hold => {
    const hold: Hold = { start: now, ...(probe ? { probe: true as const } : {}) };
    bucket.holds.push(hold);
    bucket.requests++;
    for (const budget of bucket.budgets) budget.left--;
    return hold;
  };

  /** Lets through as many waiting requests as the key's state allows now, and wakes up when the next place frees. */
  const pump = (bucket: Bucket): void => {
    bucket.cancelTimer?.();
    bucket.cancelTimer = undefined;
    const now = clock.now();
    prune(bucket, now);
    const { key } = bucket;
    const open = (): boolean => {
      if (key.shown === 'unlimited') return true;
      if (key.shown === 'nothing') return !key.probing;
      return bucket.holds.length < bucket.limit && bucket.budgets.every((budget) => budget.left > 0);
    };
    while (bucket.waiting.length > 0 && open()) bucket.waiting.shift()!();
    if (bucket.waiting.length === 0 || key.shown !== 'limited') return;
    // Answers in flight pump when they arrive; otherwise the next place frees when a hold or a budget ends.
    const frees = [
      ...bucket.holds.flatMap((hold) => (hold.end === undefined ? [] : [hold.end + bucket.windowMs + margin])),
      ...bucket.budgets.filter((budget) => budget.left <= 0).map((budget) => budget.until),
    ];
    if (frees.length === 0) return;
    bucket.cancelTimer = clock.setTimer(Math.max(0, Math.min(...frees) - now), () => pump(bucket));
  };

  /** What the answer says of the key: limited, not limited (an answer of the key without a limit), or nothing. */
  const learn = (key: KeyState, hold: Hold, status: number, headers: Readonly<Record<string, string>>): void => {
    if (hold.probe) key.probing = false;
    if (showsLimit(status, headers)) key.shown = 'limited';
    // A 401 belongs to no key, and a 5xx or a failure may come before the target's limiter.
    else if (key.shown === 'nothing' && status >= 200 && status < 500 && status !== 401) key.shown = 'unlimited';
  };

  /** The target's RateLimit-* fields: a lower limit is followed; fewer left than the log believes, a budget. */
  const heed = (bucket: Bucket, now: number, headers: Readonly<Record<string, string>>): void => {
    const stated = whole(headers, 'ratelimit-limit');
    if (stated !== undefined && stated >= 1 && stated < bucket.limit) bucket.limit = stated;
    const remaining = whole(headers, 'ratelimit-remaining');
    // The log counts what is in flight too, so a target alone with this suite never says less than this.
    const believed = bucket.limit - bucket.holds.length;
    if (remaining === undefined || remaining >= believed) return;
    const inFlight = bucket.holds.filter((other) => other.end === undefined).length;
    const reset = whole(headers, 'ratelimit-reset');
    // The window ends within Reset (never later than the window's length): until then, only what is left.
    const lasts = Math.min(bucket.windowMs, reset === undefined ? bucket.windowMs : reset * 1000);
    bucket.budgets.push({ left: remaining - inFlight, until: now + lasts + margin });
  };

  const answered = (bucket: Bucket, hold: Hold, status: number, headers: Readonly<Record<string, string>>): void => {
    const now = clock.now();
    hold.end = now;
    // Limits are per key: a request the target did not authenticate (401) was counted against none.
    if (status === 401) {
      bucket.holds = bucket.holds.filter((other) => other !== hold);
      bucket.requests--;
    }
    prune(bucket, now);
    const before = bucket.key.shown;
    learn(bucket.key, hold, status, headers);
    heed(bucket, now, headers);
    // What the key's state now allows may open its other groups too.
    if (hold.probe || bucket.key.shown !== before) for (const other of bucket.key.buckets) pump(other);
    else pump(bucket);
  };

  const admit = async (request: PacedRequest): Promise<Admission> => {
    const count = (status: number): void => {
      if (status !== 429) return;
      rateLimited++;
      if (request.paced) rateLimitedPaced++;
    };
    if (request.key === undefined || request.limit === undefined) return { answered: (status) => count(status) };
    const bucket = bucketOf(request.key, request.keyLabel, request.limit);
    let hold: Hold;
    if (request.paced) {
      hold = await new Promise<Hold>((resolve) => {
        bucket.waiting.push(() => {
          const probe = bucket.key.shown === 'nothing';
          if (probe) bucket.key.probing = true;
          resolve(take(bucket, clock.now(), probe));
        });
        pump(bucket);
      });
    } else {
      hold = take(bucket, clock.now(), false);
    }
    return {
      answered: (status, headers) => {
        count(status);
        answered(bucket, hold, status, headers);
      },
    };
  };

  const tally = (): PacingTally => ({
    rateLimited,
    rateLimitedPaced,
    requests: [...buckets.values()].map(({ keyLabel, documented: { group, limit, windowSeconds }, requests }) => ({
      keyLabel,
      group,
      limit,
      windowSeconds,
      requests,
    })),
  });

  return { admit, tally };
}
