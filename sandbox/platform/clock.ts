// Sandbox time: real time plus an offset that only moves forward. The offset is stored, so a restart keeps
// the time where the control API moved it (an account expired by an advance stays expired). This is the one
// place of the sandbox that reads the real clock; everything else asks `Clock.now()`.
import type { Clock } from '../context.js';
import type { CollectionDefinition, JsonRecord, Scope, Store } from '../store/store.js';

export const CLOCK_COLLECTION = 'sandbox_clock';
export const clockCollections: CollectionDefinition[] = [{ name: CLOCK_COLLECTION }];

/** The clock belongs to the whole sandbox, not to a merchant: its record lives in a scope no key maps to. */
export const SANDBOX_SCOPE: Scope = { merchantId: '__sandbox__', mode: 'test' };
const CLOCK_ID = 'clock';

interface ClockRecord extends JsonRecord {
  offset_ms: number;
}

export interface SandboxClock extends Clock {
  /** Milliseconds the sandbox is ahead of real time. */
  offsetMs(): number;
}

export interface ClockOptions {
  store: Store;
  /** The real clock in milliseconds; tests replace it. */
  realTime?: () => number;
  /** Told when a listener throws; the advance itself still succeeds. */
  onListenerError?: (error: unknown) => void;
}

export async function createClock(options: ClockOptions): Promise<SandboxClock> {
  const realTime = options.realTime ?? (() => Date.now());
  const stored = await options.store.get<ClockRecord>(CLOCK_COLLECTION, SANDBOX_SCOPE, CLOCK_ID);
  let offset = stored?.offset_ms ?? 0;
  const listeners: ((now: Date) => void | Promise<void>)[] = [];
  const reportListenerError = options.onListenerError ?? ((error: unknown) => console.error('sandbox clock listener failed:', error));

  const now = (): Date => new Date(realTime() + offset);
  return {
    now,
    offsetMs: () => offset,
    onAdvance: (listener) => void listeners.push(listener),
    advance: async (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`the sandbox clock only moves forward (asked to move ${ms} ms)`);
      // Read-modify-write in one transaction, so concurrent advances add up instead of overwriting each other.
      offset = await options.store.transaction(async (tx) => {
        const existing = await tx.get<ClockRecord>(CLOCK_COLLECTION, SANDBOX_SCOPE, CLOCK_ID);
        const next: ClockRecord = { id: CLOCK_ID, offset_ms: (existing?.offset_ms ?? 0) + ms };
        if (existing) await tx.update(CLOCK_COLLECTION, SANDBOX_SCOPE, next);
        else await tx.insert(CLOCK_COLLECTION, SANDBOX_SCOPE, next);
        return next.offset_ms;
      });
      const moved = now();
      // Listeners run one after another and are awaited, so when the control API answers, what became due
      // (callback retries) has run.
      for (const listener of listeners) {
        try {
          await listener(moved);
        } catch (error) {
          reportListenerError(error);
        }
      }
      return moved;
    },
  };
}
