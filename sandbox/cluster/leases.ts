// Claims on background work when several sandboxes share one store: before a callback attempt or an automatic
// progression is made, the sandbox takes a lease on it, in a transaction of the work's scope (which the
// store runs one at a time for that scope, whatever process asks), so exactly one sandbox does each piece.
// A lease lasts a fixed real time: a sandbox that dies holding one leaves it to expire, and another takes
// the work up then (the graphile-worker / pg-boss pattern, with the store's scope lock for SKIP LOCKED).
// Real time, not sandbox time: an advance of the clock must not hand a lease under way to someone else.
import { randomUUID } from 'node:crypto';
import type { CollectionDefinition, JsonRecord, Scope, Store, Transaction } from '../store/store.js';

export const LEASES_COLLECTION = 'sandbox_leases';
export const leasesCollections: CollectionDefinition[] = [{ name: LEASES_COLLECTION }];

interface LeaseRecord extends JsonRecord {
  holder: string;
  /** Real time (ms since the epoch) at which the lease lapses unless given up before. */
  until_ms: number;
}

export interface Leases {
  /** Who this process is, in leases. */
  readonly holder: string;
  /** Inside a transaction of `scope`: takes the lease `name` unless another holder's is still running; true if taken. */
  take(tx: Transaction, scope: Scope, name: string): Promise<boolean>;
  /**
   * Inside the transaction that creates the work `name` names (so no lease on it can exist yet): takes its
   * lease, and gives the real time at which it lapses.
   */
  grant(tx: Transaction, scope: Scope, name: string): Promise<number>;
  /** Real milliseconds left of a lease of this process that lapses at `untilMs`. */
  lastsFor(untilMs: number): number;
  /** Outside a transaction, without waiting for the scope: whether another holder's lease on `name` is running now. */
  heldElsewhere(scope: Scope, name: string): Promise<boolean>;
  /** Inside a transaction: gives the lease up (its work is recorded). */
  release(tx: Transaction, scope: Scope, name: string): Promise<void>;
  /**
   * Waits until `done()` says the work was recorded, or no other holder has a running lease on it (it gave
   * it up, or died and it lapsed); polls the store. At most one lease's length.
   */
  waitForOthers(scope: Scope, name: string, done: () => Promise<boolean>): Promise<void>;
}

export interface LeasesOptions {
  store: Store;
  /** How long a lease runs (real ms): longer than the work can take. */
  leaseMs: number;
  /** Real time; tests replace it. */
  realTime?: () => number;
  /** How often `waitForOthers` looks. Default 25 ms. */
  pollMs?: number;
}

export function createLeases(options: LeasesOptions): Leases {
  const { store, leaseMs } = options;
  const realTime = options.realTime ?? (() => Date.now());
  const pollMs = options.pollMs ?? 25;
  const holder = randomUUID();
  const heldByOther = (lease: LeaseRecord | undefined): boolean =>
    lease !== undefined && lease.holder !== holder && lease.until_ms > realTime();
  return {
    holder,
    take: async (tx, scope, name) => {
      const lease = await tx.get<LeaseRecord>(LEASES_COLLECTION, scope, name);
      if (heldByOther(lease)) return false;
      const next: LeaseRecord = { id: name, holder, until_ms: realTime() + leaseMs };
      if (lease) await tx.update(LEASES_COLLECTION, scope, next);
      else await tx.insert(LEASES_COLLECTION, scope, next);
      return true;
    },
    grant: async (tx, scope, name) => {
      const lease: LeaseRecord = { id: name, holder, until_ms: realTime() + leaseMs };
      await tx.insert(LEASES_COLLECTION, scope, lease);
      return lease.until_ms;
    },
    lastsFor: (untilMs) => untilMs - realTime(),
    heldElsewhere: async (scope, name) => heldByOther(await store.get<LeaseRecord>(LEASES_COLLECTION, scope, name)),
    release: async (tx, scope, name) => void (await tx.delete(LEASES_COLLECTION, scope, name)),
    waitForOthers: async (scope, name, done) => {
      const giveUpAt = realTime() + leaseMs;
      while (realTime() < giveUpAt) {
        if (await done()) return;
        if (!heldByOther(await store.get<LeaseRecord>(LEASES_COLLECTION, scope, name))) return;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
  };
}
