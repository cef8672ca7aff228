// Fires the callback events phase by phase (each phase's events inside its enter/leave) and settles each
// phase before the next begins. A phase in which the target finishes its objects by itself moves the
// target's clock to bring that on (Phase.finishing), and the clock is shared by every case of the merchant:
// were the next phase begun while the retries of this phase's timed events were still coming, its move
// would land inside a gap being measured. So a phase's callbacks arrive and its timed retries are measured
// (settled) while nothing else runs, and only then does the next phase begin.
import { mapPool } from '../pool.js';
import type { CallbackEvent, Fired, Phase } from './events.js';

export interface Watched {
  event: CallbackEvent;
  fired: Fired;
}

/**
 * What the caller does around one phase's events: `prepare` runs before any of them is fired (a reading of
 * the target's clock) and answers what settles them once fired (their arrivals, their retries).
 */
export type PrepareSettle = (own: readonly CallbackEvent[]) => Promise<(inPhase: Watched[]) => Promise<void>>;

/** The phases in firing order: each phased group, then the events without a phase. */
function phasesOf(events: readonly CallbackEvent[]): (Phase | undefined)[] {
  return [...new Set(events.flatMap((e) => (e.phase ? [e.phase] : []))), undefined];
}

/**
 * Fires every event, phase by phase, the timed ones last within each (their attempts then arrive while the
 * suite is idle rather than busy firing: the receiver stamps arrivals on the suite's own event loop), and
 * settles each phase before leaving it.
 */
export async function fireAll(
  events: readonly CallbackEvent[],
  timed: ReadonlySet<CallbackEvent>,
  concurrency: number,
  prepare: PrepareSettle,
): Promise<Watched[]> {
  const fire = (list: CallbackEvent[]): Promise<Watched[]> =>
    mapPool(list, concurrency, async (event) => ({ event, fired: await event.fire() }));
  const watched: Watched[] = [];
  for (const phase of phasesOf(events)) {
    const own = events.filter((e) => e.phase === phase);
    if (own.length === 0) continue;
    const entered = phase ? await phase.enter() : ({ ok: true } as const);
    if (!entered.ok) {
      watched.push(
        ...own.map((event) => ({
          event,
          fired: { fired: false, reason: `${phase?.label ?? ''}: ${entered.reason}` } as Fired,
        })),
      );
      continue;
    }
    try {
      const settle = await prepare(own);
      const inPhase = [
        ...(await fire(own.filter((e) => !timed.has(e)))),
        ...(await fire(own.filter((e) => timed.has(e)))),
      ];
      watched.push(...inPhase);
      await phase?.finishing?.bringOn();
      await settle(inPhase);
    } finally {
      await phase?.leave();
    }
  }
  return watched;
}
