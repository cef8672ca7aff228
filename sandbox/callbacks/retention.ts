// How many callback deliveries the sandbox keeps. Every callback is recorded, sent or not (one with no URL
// configured is recorded failed, as the control contract says, so that it is listed and can be resent once
// a URL is set), and busy test traffic records thousands a minute: kept forever, they became most of the
// data and of the journal. As a provider's dashboard lists recent events, each merchant and mode keeps its
// newest deliveries (DELIVERIES_KEPT), and older ones are removed once finished: delivered, or failed after
// their attempts. A pending delivery is never removed; its attempts are under way.
// By count, not age: sandbox time jumps when a test advances a clock, and an age would then remove the
// deliveries that test is about to look at.
import type { Scope, Transaction } from '../store/store.js';
import type { DeliveryRecord } from './outbox.js';
import { scopeKey } from '../store/scope-key.js';

/** Deliveries each merchant and mode keeps, newest first, beyond which finished ones are removed. */
export const DELIVERIES_KEPT = 1000;

export interface RetentionOptions {
  /** Deliveries kept per merchant and mode (default DELIVERIES_KEPT). */
  kept?: number;
  /**
   * Deliveries recorded in a scope between two looks for ones to remove (default 100): a look lists the
   * deliveries past the kept ones, which is not worth doing for every callback. The first delivery a scope
   * records after a start looks at once.
   */
  every?: number;
}

export interface Retention {
  /** Told, in its transaction, of a delivery just recorded in `scope`; removes what the rule no longer keeps. */
  recorded(tx: Transaction, scope: Scope): Promise<void>;
}

/** Most deliveries removed by one look, so that a backlog (data kept before this rule) goes in steps. */
const REMOVED_PER_LOOK = 1000;

export function createRetention(collection: string, options: RetentionOptions = {}): Retention {
  const kept = options.kept ?? DELIVERIES_KEPT;
  const every = options.every ?? 100;
  /** Deliveries recorded per scope since its last look. */
  const recordedSince = new Map<string, number>();
  return {
    recorded: async (tx, scope) => {
      const key = scopeKey(scope);
      const since = recordedSince.get(key) ?? 0;
      recordedSince.set(key, (since + 1) % every);
      if (since !== 0) return;
      const older = await tx.list<DeliveryRecord>(collection, scope, { offset: kept, limit: REMOVED_PER_LOOK });
      // Discarded, not deleted: a store that can sends them all without waiting for each answer, so a look
      // holds the scope's lock for one round trip, not a hundred.
      for (const delivery of older) if (delivery.state !== 'pending') await tx.discard(collection, scope, delivery.id);
    },
  };
}
