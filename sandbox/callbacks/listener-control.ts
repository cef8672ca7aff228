// The control operations of live listeners (spec/sandbox/paths/sandbox_listeners_*.yaml): a poll for the
// callback attempts to forward, and a listener's report of what its receiver answered (listeners.ts).
import type { Handlers } from '@payments-contract/server/sandbox/server';
import { scopeOf, type Caller } from '../context.js';
import { controlDefaults } from '../contract.js';
import type { Listeners } from './listeners.js';

export type ListenerControlHandlers = Pick<Handlers<Caller>, 'nextCallbackForwards' | 'answerCallbackForward'>;

/** How long a poll waits when it does not say: the contract's default of `wait_ms`. */
const DEFAULT_WAIT_MS = Number(controlDefaults('CallbackListenerPoll').wait_ms);

export function listenerControlHandlers(listeners: Listeners): ListenerControlHandlers {
  return {
    nextCallbackForwards: async ({ body }, { principal }) => {
      const scope = scopeOf(principal);
      if (body.stop === true) {
        await listeners.leave(scope, body.listener_id);
        return { status: 200, body: { forwards: [] } };
      }
      return {
        status: 200,
        body: { forwards: await listeners.next(scope, body.listener_id, body.wait_ms ?? DEFAULT_WAIT_MS) },
      };
    },

    answerCallbackForward: async ({ path, body }, { principal }) => {
      const taken = await listeners.answer(scopeOf(principal), path.id, body);
      if (taken) return { status: 200, body: { id: path.id, delivery_id: taken.deliveryId } };
      return {
        status: 404,
        body: {
          error_code: 'CALLBACK_FORWARD_NOT_FOUND_ERROR',
          message: `No forward with id ${path.id} awaits an answer.`,
        },
      };
    },
  };
}
