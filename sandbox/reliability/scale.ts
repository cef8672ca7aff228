// How big a reliability run is. `full` (the default, `npm run test:reliability`) is the run whose figures the
// README quotes; `ci` (RELIABILITY_SCALE=ci, `npm run test:reliability:ci`) is the same checks at a size that
// fits beside the rest of `npm test`. Every loop of the suite is bounded by one of these figures.

export type Scale = 'full' | 'ci';

export interface Figures {
  /** Hostile requests: at least this many are sent (the full set derived from the contracts, or a spread sample of it). */
  hostileRequests: number;
  /** Hostile requests in flight at once. */
  hostileConcurrency: number;
  /** A request that gets no answer within this is a hang. */
  requestTimeoutMs: number;
  /** Slow clients held open at once, and how long the normal client is measured beside them. */
  slowClients: number;
  slowHoldMs: number;
  /** Wait for the server's own timeouts of slow clients (a 408 or a close), at most this long; 0 skips waiting. */
  slowTimeoutWaitMs: number;
  /** Connections of each slow kind held against short configured deadlines, per scheme (HTTP, HTTPS). */
  deadlineClients: number;
  /** Requests that race with one idempotency key or one unique value. */
  raceSize: number;
  /** SIGKILLs of a sandbox under write load, per store. */
  kills: number;
  /** Creations in flight during the write load. */
  writersInFlight: number;
  /** Size the large journal is grown past before it is reopened. */
  journalBytes: number;
}

const MiB = 1024 * 1024;

export const FIGURES: Record<Scale, Figures> = {
  full: {
    hostileRequests: 10_000,
    hostileConcurrency: 16,
    requestTimeoutMs: 15_000,
    slowClients: 100,
    slowHoldMs: 20_000,
    // Node's own requestTimeout (300 s) checked every connectionsCheckingInterval (30 s), with room.
    slowTimeoutWaitMs: 345_000,
    deadlineClients: 40,
    raceSize: 100,
    kills: 6,
    writersInFlight: 32,
    journalBytes: 1024 * MiB + 64 * MiB,
  },
  ci: {
    hostileRequests: 2_500,
    hostileConcurrency: 16,
    requestTimeoutMs: 15_000,
    slowClients: 30,
    slowHoldMs: 5_000,
    slowTimeoutWaitMs: 0,
    deadlineClients: 8,
    raceSize: 100,
    kills: 2,
    writersInFlight: 16,
    journalBytes: 96 * MiB,
  },
};

function scaleOf(value: string | undefined): Scale {
  if (value === undefined || value === '' || value === 'full') return 'full';
  if (value === 'ci') return 'ci';
  throw new Error(`RELIABILITY_SCALE must be full or ci, not ${value}`);
}

export const SCALE: Scale = scaleOf(process.env.RELIABILITY_SCALE);
export const figures: Figures = FIGURES[SCALE];

/** One line of figures for a test's summary: `label: a=1 b=2`. */
export function summaryLine(label: string, counts: Record<string, number | string>): string {
  return `[reliability ${SCALE}] ${label}: ${Object.entries(counts)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')}`;
}
