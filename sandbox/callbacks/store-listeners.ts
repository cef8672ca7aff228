// Live listeners kept in the store, for several sandboxes on one database: a listener polling sandbox A gets
// the attempts sandbox B makes. A poll writes the listener's record (when it was seen, how long its poll is
// open); every sandbox reads the live ones every `refreshMs`, so whether a scope has one is known without a
// read per attempt. An attempt writes one forward record per live listener and looks for their answers every
// `lookMs`; a poll, on whichever sandbox, takes the waiting forwards of its listener in a transaction (no two
// polls take one), and an answer, on whichever sandbox, is written into its record. Same interface and rules
// as the in-process registry (listeners.ts), which a sandbox with a store of its own keeps.
import { randomBytes } from 'node:crypto';
import type { CollectionDefinition, Scope, Store } from '../store/store.js';
import { scopeKey } from '../store/scope-key.js';
import {
  FORWARDS_PER_POLL,
  LISTENER_BEHIND,
  LISTENER_QUEUE_LIMIT,
  LISTENER_STOPPED,
  LIVE_AFTER_POLL_MS,
  NO_LISTENER_ANSWER,
  outcomeOf,
  type CallbackForward,
  type ForwardAnswer,
  type Listeners,
  type ListenersOptions,
} from './listeners.js';

export const LISTENERS_COLLECTION = 'sandbox_listeners';
export const FORWARDS_COLLECTION = 'sandbox_listener_forwards';
export const storeListenersCollections: CollectionDefinition[] = [
  { name: LISTENERS_COLLECTION, indexed: ['state'] },
  { name: FORWARDS_COLLECTION, indexed: ['listener_id'] },
];

type ListenerRecord = {
  id: string;
  /** Always `live` while the record exists: what the sandboxes look every listener up by. */
  state: 'live';
  seen_ms: number;
  /** Until when its open poll waits (real ms); 0 when none is open. */
  polling_until_ms: number;
};

type ForwardRecord = {
  id: string;
  listener_id: string;
  state: 'waiting' | 'taken' | 'answered';
  created_ms: number;
  deadline_ms: number;
  forward: CallbackForward;
  answer: ForwardAnswer | null;
};

export interface StoreListenersOptions extends ListenersOptions {
  store: Store;
  /** How often the live listeners are read again (real ms). Default 250. */
  refreshMs?: number;
  /** How often a poll looks for forwards and an attempt for answers (real ms). Default 100. */
  lookMs?: number;
}

/** How long after it was last seen a listener's record is removed (real ms). */
export const FORGOTTEN_AFTER_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function createStoreListeners(options: StoreListenersOptions): Listeners & { refresh(): Promise<void> } {
  const { store } = options;
  const realTime = options.realTime ?? (() => Date.now());
  const lookMs = options.lookMs ?? 100;
  /** The listener records of every scope, as last read. */
  let known = new Map<string, ListenerRecord[]>();
  let closed = false;

  const isLive = (listener: ListenerRecord, now: number): boolean =>
    listener.polling_until_ms >= now || now - listener.seen_ms <= LIVE_AFTER_POLL_MS;
  const liveOf = (scope: Scope): ListenerRecord[] => {
    const now = realTime();
    return (known.get(scopeKey(scope)) ?? []).filter((listener) => isLive(listener, now));
  };

  const refresh = async (): Promise<void> => {
    const found = await store.findAcrossScopes<ListenerRecord>(LISTENERS_COLLECTION, 'state', 'live');
    const next = new Map<string, ListenerRecord[]>();
    const now = realTime();
    for (const { scope, record } of found) {
      // A listener that ended without saying so (killed) is forgotten after a while, with what waited for it.
      if (now - Math.max(record.seen_ms, record.polling_until_ms) > FORGOTTEN_AFTER_MS) await forget(scope, record.id);
      else next.set(scopeKey(scope), [...(next.get(scopeKey(scope)) ?? []), record]);
    }
    known = next;
  };
  const timer = setInterval(() => void refresh().catch(() => undefined), options.refreshMs ?? 250);
  timer.unref();

  const forget = (scope: Scope, listenerId: string): Promise<void> =>
    store.transaction(async (tx) => {
      await tx.delete(LISTENERS_COLLECTION, scope, listenerId);
      for (const record of await tx.findBy<ForwardRecord>(FORWARDS_COLLECTION, scope, 'listener_id', listenerId))
        if (record.deadline_ms < realTime()) await tx.delete(FORWARDS_COLLECTION, scope, record.id);
    });

  /**
   * Writes the listener's record, and keeps it in what this sandbox knows at once. At a poll's end (`again`)
   * only a record still there is written: a listener that stopped meanwhile stays stopped.
   */
  const seen = async (scope: Scope, listenerId: string, pollingUntilMs: number, again = false): Promise<void> => {
    const record: ListenerRecord = {
      id: listenerId,
      state: 'live',
      seen_ms: realTime(),
      polling_until_ms: pollingUntilMs,
    };
    const written = await store.transaction(async (tx) => {
      if (await tx.get(LISTENERS_COLLECTION, scope, listenerId)) await tx.update(LISTENERS_COLLECTION, scope, record);
      else if (again) return false;
      else await tx.insert(LISTENERS_COLLECTION, scope, record);
      return true;
    });
    if (!written) return;
    const others = (known.get(scopeKey(scope)) ?? []).filter((listener) => listener.id !== listenerId);
    known.set(scopeKey(scope), [...others, record]);
  };

  /** The waiting forwards of the listener, oldest first, taken (a page at most). */
  const take = (scope: Scope, listenerId: string): Promise<CallbackForward[]> =>
    store.transaction(async (tx) => {
      const now = realTime();
      const waiting = (await tx.findBy<ForwardRecord>(FORWARDS_COLLECTION, scope, 'listener_id', listenerId))
        .filter((record) => record.state === 'waiting' && record.deadline_ms > now)
        .sort((a, b) => a.created_ms - b.created_ms)
        .slice(0, FORWARDS_PER_POLL);
      for (const record of waiting) await tx.update(FORWARDS_COLLECTION, scope, { ...record, state: 'taken' });
      return waiting.map((record) => ({ ...record.forward, timeout_ms: Math.max(1, record.deadline_ms - now) }));
    });

  /** Writes an answer into a forward still owed one; the forward, or undefined. */
  const answerRecord = (scope: Scope, forwardId: string, answer: ForwardAnswer) =>
    store.transaction(async (tx) => {
      const record = await tx.get<ForwardRecord>(FORWARDS_COLLECTION, scope, forwardId);
      if (!record || record.state === 'answered') return undefined;
      await tx.update(FORWARDS_COLLECTION, scope, { ...record, state: 'answered', answer });
      return record;
    });

  return {
    refresh,

    live: (scope) => !closed && liveOf(scope).length > 0,

    forward: (scope, request, timeoutMs) => {
      if (closed) return undefined;
      const listeners = liveOf(scope);
      if (listeners.length === 0) return undefined;
      return (async (): Promise<ForwardAnswer> => {
        const created = realTime();
        const deadline = created + timeoutMs;
        const answers: ForwardAnswer[] = [];
        const written = await store.transaction(async (tx) => {
          const ids: string[] = [];
          for (const listener of listeners) {
            const waiting = (
              await tx.findBy<ForwardRecord>(FORWARDS_COLLECTION, scope, 'listener_id', listener.id)
            ).filter((record) => record.state === 'waiting');
            if (waiting.length >= LISTENER_QUEUE_LIMIT) {
              answers.push({ status: null, error: LISTENER_BEHIND });
              continue;
            }
            const id = `fwd_${randomBytes(12).toString('hex')}`;
            await tx.insert<ForwardRecord>(FORWARDS_COLLECTION, scope, {
              id,
              listener_id: listener.id,
              state: 'waiting',
              created_ms: created,
              deadline_ms: deadline,
              forward: { ...request, id, timeout_ms: timeoutMs },
              answer: null,
            });
            ids.push(id);
          }
          return ids;
        });
        const ids = [...written];
        try {
          for (;;) {
            const outcome = outcomeOf(answers, ids.length);
            if (outcome) return outcome;
            if (realTime() >= deadline || closed)
              return outcomeOf(answers, 0) ?? { status: null, error: NO_LISTENER_ANSWER };
            await sleep(lookMs);
            for (const id of [...ids]) {
              const record = await store.get<ForwardRecord>(FORWARDS_COLLECTION, scope, id);
              if (record?.state !== 'answered' && record !== undefined) continue;
              ids.splice(ids.indexOf(id), 1);
              answers.push(record?.answer ?? { status: null, error: LISTENER_STOPPED });
            }
          }
        } finally {
          // The shares still out are dropped with the attempt: never handed out, an answer to them too late.
          await store.transaction(async (tx) => {
            for (const id of written) await tx.delete(FORWARDS_COLLECTION, scope, id);
          });
        }
      })();
    },

    next: async (scope, listenerId, waitMs) => {
      if (closed) return [];
      const until = realTime() + (closed ? 0 : waitMs);
      await seen(scope, listenerId, until);
      let taken = await take(scope, listenerId);
      while (taken.length === 0 && !closed && realTime() < until) {
        await sleep(Math.min(lookMs, Math.max(0, until - realTime())));
        if (closed) break;
        // Stopped meanwhile (by a request to another sandbox): the poll ends.
        if (!(await store.get(LISTENERS_COLLECTION, scope, listenerId))) return [];
        taken = await take(scope, listenerId);
      }
      // Closed meanwhile: the sandbox is stopping, and its store with it.
      if (!closed) await seen(scope, listenerId, 0, true);
      return taken;
    },

    leave: async (scope, listenerId) => {
      await store.transaction(async (tx) => {
        await tx.delete(LISTENERS_COLLECTION, scope, listenerId);
        for (const record of await tx.findBy<ForwardRecord>(FORWARDS_COLLECTION, scope, 'listener_id', listenerId))
          if (record.state !== 'answered')
            await tx.update(FORWARDS_COLLECTION, scope, {
              ...record,
              state: 'answered',
              answer: { status: null, error: LISTENER_STOPPED },
            });
      });
      known.set(
        scopeKey(scope),
        (known.get(scopeKey(scope)) ?? []).filter((listener) => listener.id !== listenerId),
      );
    },

    answer: async (scope, forwardId, answer) => {
      const record = await answerRecord(scope, forwardId, answer);
      return record ? { deliveryId: record.forward.delivery_id } : undefined;
    },

    close: () => {
      closed = true;
      clearInterval(timer);
    },
  };
}
