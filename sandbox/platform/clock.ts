// Sandbox time, one clock per merchant and mode (decision `sandbox-clock-per-merchant-and-mode`): real time
// plus an offset that only moves forward and only when that merchant advances it in that mode. Like a
// provider's test clock, it moves only what is attached to it, so one team's test never expires another
// team's OTPs or accounts. The offset is a record of its scope, so a restart keeps the time where the
// control API moved it, and a reset (which clears the scope) puts it back to where every scope starts.
// This is the one place of the sandbox that reads the real clock; everything else asks `Clock.now(scope)`.
import type { Clock } from '../context.js';
import type { CollectionDefinition, JsonRecord, Scope, Store } from '../store/store.js';
import { scopeKey } from '../store/scope-key.js';

export const CLOCK_COLLECTION = 'sandbox_clock';
export const clockCollections: CollectionDefinition[] = [{ name: CLOCK_COLLECTION }];

/**
 * Where the one clock of earlier versions, shared by every merchant, kept its offset (a scope no key maps
 * to). A data directory that has it starts every scope at that offset, so what it expired stays expired
 * and no scope's time goes back on upgrade; it is read at start-up and never written again.
 */
export const LEGACY_SHARED_SCOPE: Scope = { merchantId: '__sandbox__', mode: 'test' };
const CLOCK_ID = 'clock';

interface ClockRecord extends JsonRecord {
  offset_ms: number;
}

export interface SandboxClock extends Clock {
  /** Milliseconds the scope's time is ahead of real time. */
  offsetMs(scope: Scope): number;
  /** Drops the cached offset of a scope whose records were cleared (reset): its time is back at the start. */
  forget(scope: Scope): void;
  /** Reads every stored offset again (another process sharing the store may have moved a clock or reset a scope). */
  reload(): Promise<void>;
}

/**
 * An advance that would take a scope's time past the latest time its clock may show (decision
 * `sandbox-clock-range`): refused before anything is written. `allowedMs` is how far it can still go.
 */
export class ClockRangeError extends RangeError {
  constructor(
    readonly latestMs: number,
    readonly allowedMs: number,
  ) {
    super(`the sandbox clock cannot be moved past ${new Date(latestMs).toISOString()} (at most ${allowedMs} ms more)`);
    this.name = 'ClockRangeError';
  }
}

export interface ClockOptions {
  store: Store;
  /**
   * The latest time (ms) an advance may take a scope to; further ones throw ClockRangeError. Default: the
   * end of year 9999, the last a four-digit ISO 8601 year writes; the sandbox passes the contract's bound.
   */
  latestMs?: number;
  /** The real clock in milliseconds; tests replace it. */
  realTime?: () => number;
  /** Told when a listener throws; the advance itself still succeeds. */
  onListenerError?: (error: unknown) => void;
  /** Told after an advance is committed, or a reset forgotten (other sandboxes keep copies of the offsets). */
  onChange?: () => void;
}

// A caller is a scope with more fields; only these two select the clock (and go to the listeners).
const onlyScope = (scope: Scope): Scope => ({ merchantId: scope.merchantId, mode: scope.mode });
const isLegacy = (scope: Scope): boolean => scopeKey(scope) === scopeKey(LEGACY_SHARED_SCOPE);

export async function createClock(options: ClockOptions): Promise<SandboxClock> {
  const { store } = options;
  const realTime = options.realTime ?? (() => Date.now());
  const latestMs = options.latestMs ?? Date.parse('9999-12-31T23:59:59.999Z');
  const changed = options.onChange ?? (() => undefined);
  const reportListenerError =
    options.onListenerError ?? ((error: unknown) => console.error('sandbox clock listener failed:', error));
  // `now` is synchronous and asked at every request, so every stored offset is held in memory.
  let start = 0;
  let offsets = new Map<string, number>();
  // Offsets this process moved while a reload was reading: the reload may have read before that commit, and
  // the advance's listeners, still to run, must not see the time go back.
  let reloading = 0;
  const movedDuringReload = new Map<string, number>();
  const reload = async (): Promise<void> => {
    reloading++;
    try {
      const loaded = new Map<string, number>();
      for (const { scope, record } of await store.findAcrossScopes<ClockRecord>(CLOCK_COLLECTION, 'id', CLOCK_ID)) {
        if (isLegacy(scope)) start = record.offset_ms;
        else loaded.set(scopeKey(scope), record.offset_ms);
      }
      for (const [key, offset] of movedDuringReload) loaded.set(key, Math.max(offset, loaded.get(key) ?? offset));
      // Replaced whole: a scope reset elsewhere has no record any more, and its time is back at the start.
      offsets = loaded;
    } finally {
      if (--reloading === 0) movedDuringReload.clear();
    }
  };
  await reload();
  const listeners: ((scope: Scope, now: Date) => void | Promise<void>)[] = [];

  const offsetMs = (scope: Scope): number => offsets.get(scopeKey(scope)) ?? start;
  const now = (scope: Scope): Date => new Date(realTime() + offsetMs(scope));
  return {
    now,
    offsetMs,
    forget: (scope) => {
      offsets.delete(scopeKey(scope));
      changed();
    },
    reload,
    onAdvance: (listener) => void listeners.push(listener),
    advance: async (given, ms) => {
      if (!Number.isFinite(ms) || ms < 0)
        throw new RangeError(`the sandbox clock only moves forward (asked to move ${ms} ms)`);
      const scope = onlyScope(given);
      // Read-modify-write in one transaction, so concurrent advances add up instead of overwriting each other.
      const offset = await store.transaction(async (tx) => {
        const existing = await tx.get<ClockRecord>(CLOCK_COLLECTION, scope, CLOCK_ID);
        const current = existing?.offset_ms ?? start;
        // Checked on the stored offset, inside the transaction, so concurrent advances cannot add up past it;
        // a move by 0 moves nothing and stays allowed wherever the clock is.
        const allowedMs = Math.max(0, latestMs - (realTime() + current));
        if (ms > allowedMs) throw new ClockRangeError(latestMs, allowedMs);
        const next: ClockRecord = { id: CLOCK_ID, offset_ms: current + ms };
        if (existing) await tx.update(CLOCK_COLLECTION, scope, next);
        else await tx.insert(CLOCK_COLLECTION, scope, next);
        return next.offset_ms;
      });
      offsets.set(scopeKey(scope), offset);
      changed();
      if (reloading > 0) movedDuringReload.set(scopeKey(scope), offset);
      const moved = now(scope);
      // Listeners run one after another and are awaited, so when the control API answers, what became due
      // for this scope (its callback retries) has run.
      for (const listener of listeners) {
        try {
          await listener(scope, moved);
        } catch (error) {
          reportListenerError(error);
        }
      }
      return moved;
    },
  };
}
