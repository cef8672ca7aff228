// Live listeners (`payments-sandbox listen`, control operations nextCallbackForwards and answerCallbackForward):
// per merchant and mode, the listeners that asked for callbacks over a request of their own, each with a
// bounded queue of attempts not yet taken. The dispatcher hands an attempt to every live listener of its scope
// instead of sending it to the URL, and records the outcome the listeners report (decision
// sandbox-callback-listeners). Kept in this process: a listener gets the attempts of the sandbox it calls.
import { randomBytes } from 'node:crypto';
import type { components } from '@payments-contract/server/sandbox/types';
import { isObject } from '@payments-contract/contract/model';
import { controlComponentSchema } from '../contract.js';
import type { Scope } from '../store/store.js';
import { scopedKey, scopeKey } from '../store/scope-key.js';

type ControlSchemas = components['schemas'];
export type CallbackForward = ControlSchemas['CallbackForward'];
export type ForwardAnswer = ControlSchemas['CallbackForwardAnswer'];

/** What the dispatcher would have sent: the forward without its id and timeout, which the registry sets. */
export type ForwardRequest = Omit<CallbackForward, 'id' | 'timeout_ms'>;

/** A listener is live while it has a poll open, or polled within this long (real ms). */
export const LIVE_AFTER_POLL_MS = 5_000;
/** Attempts one listener holds not yet taken; one more counts for it as no answer. */
export const LISTENER_QUEUE_LIMIT = 64;
/** Forwards one poll answers at most: the control contract's bound on CallbackForwardList.forwards. */
export const FORWARDS_PER_POLL: number = (() => {
  const properties = controlComponentSchema('CallbackForwardList').properties;
  const forwards = isObject(properties) ? properties.forwards : undefined;
  const maximum = isObject(forwards) ? forwards.maxItems : undefined;
  if (typeof maximum !== 'number')
    throw new Error('the control contract gives CallbackForwardList.forwards no maxItems');
  return maximum;
})();

export interface ListenersOptions {
  /** The real clock in ms; tests replace it. */
  realTime?: () => number;
}

export interface Listeners {
  /** Whether a listener of `scope` is live now. */
  live(scope: Scope): boolean;
  /**
   * Hands the attempt to every live listener of `scope` and resolves with the outcome: the first 2xx answer,
   * else, once all answered or `timeoutMs` passed, the first answer that came (or no answer). Undefined when
   * no listener is live: the attempt goes to the URL.
   */
  forward(scope: Scope, request: ForwardRequest, timeoutMs: number): Promise<ForwardAnswer> | undefined;
  /** A poll: the forwards waiting for `listenerId`, as soon as there is one, or none after `waitMs`. */
  next(scope: Scope, listenerId: string, waitMs: number): Promise<CallbackForward[]>;
  /** The listener stops: no longer live, what waits for it counts for it as no answer, its open polls end. */
  leave(scope: Scope, listenerId: string): Promise<void>;
  /** A listener's report; the delivery's id, or undefined when no forward of that id awaits an answer. */
  answer(scope: Scope, forwardId: string, answer: ForwardAnswer): Promise<{ deliveryId: string } | undefined>;
  /** Answers every open poll now (with what waits) and refuses new forwards: the sandbox is stopping. */
  close(): void;
}

interface Listener {
  id: string;
  /** Forwards not yet taken, oldest first. */
  queue: Queued[];
  /** Polls open now; each ends when woken or at its wait. */
  polls: Set<() => void>;
  /** When the last poll began or ended (real ms). */
  seenMs: number;
}

interface Queued {
  forward: CallbackForward;
  attempt: Attempt;
}

/** One attempt fanned out to several listeners, settled once. */
interface Attempt {
  deadlineMs: number;
  /** Forward ids still owed an answer. */
  owed: Set<string>;
  /** The listeners' reports so far, in the order they came. */
  answers: ForwardAnswer[];
  settle(answer: ForwardAnswer): void;
}

const isSuccess = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/**
 * An attempt's outcome from its listeners' reports in the order they came, `owed` of them still out: the first
 * 2xx at once; once none is owed, the first status a receiver answered, else the first reason none did.
 * Undefined while it must still wait (or, with none owed, when no report came at all).
 */
export function outcomeOf(answers: readonly ForwardAnswer[], owed: number): ForwardAnswer | undefined {
  const acknowledged = answers.find((answer) => isSuccess(answer.status));
  if (acknowledged || owed > 0) return acknowledged;
  return answers.find((answer) => answer.status !== null) ?? answers[0];
}

export const NO_LISTENER_ANSWER = 'no answer from a listener before the attempt timed out';
export const LISTENER_BEHIND = `the listener had ${LISTENER_QUEUE_LIMIT} callbacks not yet taken`;
export const LISTENER_STOPPED = 'the listener stopped before it answered';

export function createListeners(options: ListenersOptions = {}): Listeners {
  const realTime = options.realTime ?? (() => Date.now());
  const scopes = new Map<string, Map<string, Listener>>();
  /** Forwards owed an answer, by scope and forward id. */
  const owed = new Map<string, { scope: Scope; attempt: Attempt; deliveryId: string; listener: Listener }>();
  let closed = false;

  const isLive = (listener: Listener, now: number): boolean =>
    listener.polls.size > 0 || now - listener.seenMs <= LIVE_AFTER_POLL_MS;

  /** The live listeners of a scope; those gone quiet are forgotten (their queue is settled by its attempts' timers). */
  const liveListeners = (scope: Scope): Listener[] => {
    const listeners = scopes.get(scopeKey(scope));
    if (!listeners) return [];
    const now = realTime();
    for (const [id, listener] of listeners) if (!isLive(listener, now)) listeners.delete(id);
    if (listeners.size === 0) scopes.delete(scopeKey(scope));
    return [...listeners.values()];
  };

  /** One listener's share of an attempt is answered (or given up): the attempt settles when it can. */
  const answered = (scope: Scope, attempt: Attempt, forwardId: string, answer: ForwardAnswer): void => {
    if (!attempt.owed.delete(forwardId)) return;
    owed.delete(scopedKey(scope, forwardId));
    attempt.answers.push(answer);
    const outcome = outcomeOf(attempt.answers, attempt.owed.size);
    if (outcome) attempt.settle(outcome);
  };

  const take = (listener: Listener): CallbackForward[] => {
    const now = realTime();
    return listener.queue
      .splice(0, FORWARDS_PER_POLL)
      .filter(({ attempt, forward }) => attempt.owed.has(forward.id) && attempt.deadlineMs > now)
      .map(({ forward, attempt }) => ({ ...forward, timeout_ms: Math.max(1, Math.ceil(attempt.deadlineMs - now)) }));
  };

  return {
    live: (scope) => !closed && liveListeners(scope).length > 0,

    forward: (scope, request, timeoutMs) => {
      if (closed) return undefined;
      const listeners = liveListeners(scope);
      if (listeners.length === 0) return undefined;
      return new Promise<ForwardAnswer>((resolve) => {
        let settled = false;
        const attempt: Attempt = {
          deadlineMs: realTime() + timeoutMs,
          owed: new Set(),
          answers: [],
          settle: (answer) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            // The shares still owed are dropped: an answer to them is too late, a queued one is never handed out.
            for (const id of attempt.owed) owed.delete(scopedKey(scope, id));
            attempt.owed.clear();
            resolve(answer);
          },
        };
        const timer = setTimeout(
          () => attempt.settle(outcomeOf(attempt.answers, 0) ?? { status: null, error: NO_LISTENER_ANSWER }),
          timeoutMs,
        );
        timer.unref();
        const shares: { listener: Listener; id: string }[] = listeners.map((listener) => ({
          listener,
          id: `fwd_${randomBytes(12).toString('hex')}`,
        }));
        for (const { listener, id } of shares) {
          attempt.owed.add(id);
          owed.set(scopedKey(scope, id), { scope, attempt, deliveryId: request.delivery_id, listener });
        }
        for (const { listener, id } of shares) {
          if (listener.queue.length >= LISTENER_QUEUE_LIMIT) {
            answered(scope, attempt, id, { status: null, error: LISTENER_BEHIND });
            continue;
          }
          listener.queue.push({ forward: { ...request, id, timeout_ms: timeoutMs }, attempt });
          for (const wake of listener.polls) wake();
        }
      });
    },

    next: async (scope, listenerId, waitMs) => {
      const key = scopeKey(scope);
      let listeners = scopes.get(key);
      if (!listeners) scopes.set(key, (listeners = new Map()));
      let listener = listeners.get(listenerId);
      if (!listener) listeners.set(listenerId, (listener = { id: listenerId, queue: [], polls: new Set(), seenMs: 0 }));
      listener.seenMs = realTime();
      if (listener.queue.length === 0 && waitMs > 0 && !closed) {
        const self = listener;
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            clearTimeout(timer);
            self.polls.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, waitMs);
          timer.unref();
          self.polls.add(wake);
        });
      }
      listener.seenMs = realTime();
      return take(listener);
    },

    leave: async (scope, listenerId) => {
      const listeners = scopes.get(scopeKey(scope));
      const listener = listeners?.get(listenerId);
      if (!listener) return;
      listeners?.delete(listenerId);
      listener.queue.splice(0);
      // Taken or not, what it still owes an answer is given up now rather than at the attempt's timeout.
      for (const [key, entry] of owed)
        if (entry.listener === listener)
          answered(scope, entry.attempt, key.slice(key.lastIndexOf('\u0000') + 1), {
            status: null,
            error: LISTENER_STOPPED,
          });
      for (const wake of listener.polls) wake();
    },

    answer: async (scope, forwardId, answer) => {
      const entry = owed.get(scopedKey(scope, forwardId));
      if (!entry) return undefined;
      answered(scope, entry.attempt, forwardId, answer);
      return { deliveryId: entry.deliveryId };
    },

    close: () => {
      closed = true;
      for (const listeners of scopes.values())
        for (const listener of listeners.values()) for (const wake of listener.polls) wake();
    },
  };
}
