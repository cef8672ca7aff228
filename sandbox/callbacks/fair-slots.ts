// Attempt slots shared fairly between scopes (a merchant in a mode). A global pool bounds the sockets the
// sandbox holds; a cap per scope keeps one merchant's hanging receiver from taking all of them, so it costs
// that merchant its own attempts only (webhook platforms isolate endpoints the same way). A freed slot goes
// to the scopes with queued attempts in turn: a scope just served waits behind every other scope waiting.

export interface FairSlots {
  /** Resolves once `key` may start one more attempt: under both caps, in its turn. */
  acquire(key: string): Promise<void>;
  /** Gives back a slot `key` acquired. */
  release(key: string): void;
}

export interface FairSlotsOptions {
  /** Slots in use at once, all keys together. */
  total: number;
  /** Slots one key may use at once. */
  perKey: number;
}

export function createFairSlots({ total, perKey }: FairSlotsOptions): FairSlots {
  if (!(total >= 1 && perKey >= 1))
    throw new Error(`attempt slots need total and perKey of at least 1, not ${total} and ${perKey}`);
  let active = 0;
  const activeOf = new Map<string, number>();
  /** Queued acquisitions per key; the Map's order is the order of the keys' turns. */
  const queues = new Map<string, (() => void)[]>();

  const grant = (key: string): void => {
    active++;
    activeOf.set(key, (activeOf.get(key) ?? 0) + 1);
  };

  const dispatch = (): void => {
    // A key served goes to the back of the line; the loop reaches it again only after every key before it.
    // A key at its cap is passed over and keeps its place.
    for (const [key, queue] of queues) {
      if (active >= total) return;
      if ((activeOf.get(key) ?? 0) >= perKey) continue;
      const next = queue.shift();
      queues.delete(key);
      if (queue.length > 0) queues.set(key, queue);
      if (!next) continue;
      grant(key);
      next();
    }
  };

  return {
    acquire: (key) => {
      // After every dispatch, a queued key is at its cap or the pool is full: a key under its cap with a free
      // slot overtakes nobody.
      if (active < total && (activeOf.get(key) ?? 0) < perKey) {
        grant(key);
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const queue = queues.get(key);
        if (queue) queue.push(resolve);
        else queues.set(key, [resolve]);
      });
    },
    release: (key) => {
      const left = (activeOf.get(key) ?? 0) - 1;
      if (left < 0) throw new Error(`released a slot ${key} did not hold`);
      active--;
      if (left === 0) activeOf.delete(key);
      else activeOf.set(key, left);
      dispatch();
    },
  };
}
