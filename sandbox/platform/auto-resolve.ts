// Auto-resolve (the control contract's `*_auto_resolve` settings): what finishes by itself after a delay in sandbox time (a disbursement the bank
// answers, a direct debit payment the bank settles). Each is a job of the scheduler (scheduler.ts), written
// in the transaction that starts its countdown, so it exists if and only if that change does and a restart
// resumes it; it runs once the clock of its merchant and mode reaches its time. Running one calls the handler
// its module registered for its kind; the handler decides, in a transaction of its own, whether the object
// still finishes (still PENDING, setting still on), so running twice changes nothing.
import type { AutoResolve, AutoResolveHandler, Clock } from '../context.js';
import { JOBS_COLLECTION, type CollectionDefinition, type JsonRecord, type Store } from '../store/store.js';
import { jobId, type Scheduler } from './scheduler.js';

/**
 * Where countdowns were kept (named 'progressions' then) before they were the scheduler's jobs: still read
 * (and emptied) at start, so a countdown an earlier version stored is not lost. Stored names are never renamed.
 */
export const LEGACY_COUNTDOWNS_COLLECTION = 'sandbox_progressions';
export const legacyCountdownsCollections: CollectionDefinition[] = [
  { name: LEGACY_COUNTDOWNS_COLLECTION, indexed: ['state'] },
];

/** A few seconds, as a provider's test mode takes: long enough to see PENDING, short enough to wait for. */
export const DEFAULT_AUTO_PROGRESS_DELAY_MS = 3000;

interface LegacyCountdownRecord extends JsonRecord {
  kind: string;
  resource_id: string;
  due_at: string;
}

/** Auto-resolve, with the start, stop and runDue of the scheduler that runs them (and the callbacks). */
export interface SandboxAutoResolve extends AutoResolve, Pick<Scheduler, 'start' | 'stop' | 'runDue'> {
  /** Names the handler of a kind; every kind scheduled must have one before `start`. */
  handle(kind: string, handler: AutoResolveHandler): void;
}

export interface AutoResolveOptions {
  store: Store;
  clock: Clock;
  scheduler: Scheduler;
  /** Sandbox milliseconds from the start of a countdown to its end. */
  delayMs: number;
  /** Told when a handler throws; the countdown is dropped (its object stays for the control API). */
  onError?: (error: unknown, kind: string, resourceId: string) => void;
}

/** An auto-resolve's job kind: its own kind, apart from every other job's (stored in the job: never renamed). */
const jobKind = (kind: string): string => `progression:${kind}`;

export function createAutoResolve(options: AutoResolveOptions): SandboxAutoResolve {
  const { store, clock, scheduler, delayMs } = options;
  const reportError =
    options.onError ??
    ((error: unknown, kind: string, id: string) => console.error(`auto-resolve ${kind} of ${id} failed:`, error));

  // Countdowns an earlier version stored become jobs, due when they were.
  scheduler.onStart(async () => {
    for (const { scope, record } of await store.findAcrossScopes<LegacyCountdownRecord>(
      LEGACY_COUNTDOWNS_COLLECTION,
      'state',
      'pending',
    ))
      await store.transaction(async (tx) => {
        if (!(await tx.delete(LEGACY_COUNTDOWNS_COLLECTION, scope, record.id))) return;
        if (await tx.get(JOBS_COLLECTION, scope, jobId(jobKind(record.kind), record.resource_id))) return;
        await scheduler.schedule(tx, scope, jobKind(record.kind), record.resource_id, Date.parse(record.due_at));
      });
  });

  return {
    schedule: (tx, scope, kind, resourceId) =>
      scheduler.schedule(tx, scope, jobKind(kind), resourceId, clock.now(scope).getTime() + delayMs),
    delayMs,
    handle: (kind, handler) =>
      scheduler.handle(jobKind(kind), (job) => handler(job.scope, job.target, (tx) => job.done(tx)), {
        onError: (error, _scope, target) => reportError(error, kind, target),
      }),
    start: scheduler.start,
    stop: scheduler.stop,
    runDue: scheduler.runDue,
  };
}
