// The target's current time as the suite knows it. Examples hold times written against one moment of the
// contract (x-examples-reference-time); the suite sends them moved to the target's own clock, which may run
// ahead of real time (a sandbox whose clock earlier runs moved forward) or simply differ from this machine's.
import type { HttpClient } from './http.js';
import { probeSandbox } from './callbacks/sandbox.js';

export interface TargetClock {
  /** The target's time now, in epoch ms: this machine's time until the target's has been read. */
  now: () => number;
  /** Where the time was read, for notes in the report. */
  source: () => string;
  /** A time read from the target (at this moment of this machine's clock), and where it was read. */
  observe: (targetMs: number, source: string) => void;
}

export function createTargetClock(localNow: () => number = Date.now): TargetClock {
  let offsetMs = 0;
  let readFrom = 'this machine’s clock (the target’s was not read)';
  return {
    now: () => localNow() + offsetMs,
    source: () => readFrom,
    observe: (targetMs, source) => {
      offsetMs = targetMs - localNow();
      readFrom = source;
    },
  };
}

/**
 * Reads the target's time into `clock`: the sandbox control API's clock of the key's merchant and mode where
 * the target offers one (what its rules compare with), else the HTTP Date header of its answer. A target that
 * answers neither leaves the clock on this machine's time.
 */
export async function syncTargetClock(clock: TargetClock, http: HttpClient): Promise<void> {
  const sandbox = await probeSandbox(http);
  const read = sandbox.control?.clock ? await sandbox.control.clock.now() : undefined;
  if (read && 'ms' in read)
    return clock.observe(
      read.ms,
      `the clock of the sandbox control API (${sandbox.control?.clock?.operation.operationId})`,
    );
  const exchange = await http.send({ method: 'GET', path: '/', auth: 'none', rateLimited: 'return' });
  const date = exchange.headers.date === undefined ? Number.NaN : Date.parse(exchange.headers.date);
  if (!Number.isNaN(date)) clock.observe(date, 'the Date header of the target’s answer');
}
