// Automatic progressions: what finishes by itself after a delay in sandbox time (a disbursement the bank
// answers, a direct debit payment the bank settles). A progression is a record written in the transaction
// that starts its countdown, so it exists if and only if that change does and a restart resumes it; it runs
// once the clock of its merchant and mode reaches its time, whether real time gets there (a timer) or an
// advance of that clock does (the advance waits for it, as for callback retries). Running one calls the
// handler its module registered for its kind; the handler decides, in a transaction of its own, whether
// the object still finishes (still PENDING, setting still on), so running twice changes nothing.
//
// With a store other sandboxes share, that check is the claim: the handler's transaction holds its scope's
// lock, so of two sandboxes reaching one progression at once, one finishes the object and the other finds it
// finished. No lease is taken first (a lease cost two more transactions on the scope's queue per progression,
// and cut the throughput of a busy merchant to a third). Each sandbox runs, on time, the progressions it
// started; its sweep takes up only those overdue by SHARED_SWEEP_GRACE_MS, left by a sandbox that stopped.
import type { Clock, Progressions } from '../context.js';
import type { CollectionDefinition, JsonRecord, Scope, Store, Transaction } from '../store/store.js';

export const PROGRESSIONS_COLLECTION = 'sandbox_progressions';
export const progressionsCollections: CollectionDefinition[] = [{ name: PROGRESSIONS_COLLECTION, indexed: ['state'] }];

/** A few seconds, as a provider's test mode takes: long enough to see PENDING, short enough to wait for. */
export const DEFAULT_AUTO_PROGRESS_DELAY_MS = 3000;

/**
 * What a module does when one of its objects' time has come. `ran` ends the progression: the handler calls
 * it inside the transaction that decides (and applies) the outcome, so the object's change and the end of
 * its countdown are one transaction; when the handler does not call it, the progression ends afterwards.
 */
export type ProgressionHandler = (
  scope: Scope,
  resourceId: string,
  ran: (tx: Transaction) => Promise<void>,
) => Promise<void>;

interface ProgressionRecord extends JsonRecord {
  /** Which module's handler runs it. */
  kind: string;
  resource_id: string;
  /** When it is due, in its scope's sandbox time (ISO 8601). */
  due_at: string;
  /** Always `pending`: a progression that ran is deleted (the index finds the pending ones across scopes). */
  state: 'pending';
}

export interface SandboxProgressions extends Progressions {
  /** Names the handler of a kind; every kind scheduled must have one before `start`. */
  handle(kind: string, handler: ProgressionHandler): void;
  /** Starts running due progressions (those stored by an earlier run first). */
  start(): Promise<void>;
  /** Stops; waits for the handlers under way. */
  stop(): Promise<void>;
  /** Runs every progression due now (given a scope, only its own) and waits for them. */
  runDue(scope?: Scope): Promise<void>;
}

export interface ProgressionsOptions {
  store: Store;
  clock: Clock;
  /** Sandbox milliseconds from the start of a countdown to its progression. */
  delayMs: number;
  /** Told when a handler throws; the progression is dropped (its object stays for the control API). */
  onError?: (error: unknown, kind: string, resourceId: string) => void;
  /** Safety net: how often to look for due progressions when no timer fired. Default 1 s. */
  sweepIntervalMs?: number;
  /**
   * Other sandboxes share the store: the sweep leaves alone a progression due less than
   * SHARED_SWEEP_GRACE_MS ago, which the sandbox that started it runs on time.
   */
  shared?: boolean;
}

/** How long past its time a progression of another sandbox waits before this one's sweep runs it. */
export const SHARED_SWEEP_GRACE_MS = 2000;

const scopeKey = (scope: Scope): string => `${scope.mode}\u0000${scope.merchantId}`;

export function createProgressions(options: ProgressionsOptions): SandboxProgressions {
  const { store, clock, delayMs } = options;
  const reportError =
    options.onError ??
    ((error: unknown, kind: string, id: string) =>
      console.error(`automatic ${kind} progression of ${id} failed:`, error));
  const handlers = new Map<string, ProgressionHandler>();
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Map<string, Promise<void>>();
  let running = false;
  let sweep: NodeJS.Timeout | undefined;

  const runOne = (scope: Scope, record: ProgressionRecord): Promise<void> => {
    const key = `${scopeKey(scope)}\u0000${record.id}`;
    const existing = inFlight.get(key);
    if (existing) return existing;
    const run = (async () => {
      const handler = handlers.get(record.kind);
      let ended = false;
      const ran = async (tx: Transaction): Promise<void> => {
        await tx.delete(PROGRESSIONS_COLLECTION, scope, record.id);
        ended = true;
      };
      try {
        if (!handler) throw new Error(`no handler for automatic ${record.kind} progressions`);
        await handler(scope, record.resource_id, ran);
        if (ended) return;
      } catch (error) {
        reportError(error, record.kind, record.resource_id);
      }
      // Ran without deciding, or cannot run: gone, so neither a sweep nor a restart runs it again.
      await store.delete(PROGRESSIONS_COLLECTION, scope, record.id);
    })().finally(() => inFlight.delete(key));
    inFlight.set(key, run);
    return run;
  };

  const schedule = (scope: Scope, record: ProgressionRecord): void => {
    const key = `${scopeKey(scope)}\u0000${record.id}`;
    if (!running || timers.has(key)) return;
    // Sandbox time never runs slower than real time, so it is due by then at the latest; an advance of the
    // scope's clock makes it due sooner (the advance runs it).
    const wait = Math.max(0, Date.parse(record.due_at) - clock.now(scope).getTime());
    // Runs this one only: a look at every pending progression per timer costs a read of all of them each time.
    const timer = setTimeout(() => {
      timers.delete(key);
      if (running)
        void runOne(scope, record).catch((error: unknown) => reportError(error, record.kind, record.resource_id));
    }, wait + 1);
    timer.unref();
    timers.set(key, timer);
  };

  const runDue = async (only?: Scope): Promise<void> => {
    if (!running) return;
    // A store read outside a transaction waits for the transactions before it: it sees committed records only.
    const pending = only
      ? (await store.findBy<ProgressionRecord>(PROGRESSIONS_COLLECTION, only, 'state', 'pending')).map((record) => ({
          scope: only,
          record,
        }))
      : await store.findAcrossScopes<ProgressionRecord>(PROGRESSIONS_COLLECTION, 'state', 'pending');
    const work: Promise<void>[] = [];
    // Asked for one scope (its clock moved), everything due runs here, whoever started it; the sweep leaves
    // another sandbox's progressions that time until they are overdue.
    const grace = only === undefined && options.shared ? SHARED_SWEEP_GRACE_MS : 0;
    for (const { scope, record } of pending) {
      const late = clock.now(scope).getTime() - Date.parse(record.due_at);
      if (late >= grace) work.push(runOne(scope, record));
      // Another sandbox's progression has its timer there: a timer here too would run it twice (the second
      // run finds it decided, at the cost of a transaction in its merchant's queue).
      else if (late < 0 && grace === 0) schedule(scope, record);
    }
    await Promise.all(work);
  };

  const runInBackground = (): void =>
    void runDue().catch((error: unknown) => console.error('automatic progressions failed:', error));

  // Registered when the platform is created, before the dispatcher's: an advance first finishes what became
  // due, then delivers the callbacks that finishing queued.
  clock.onAdvance((scope) => runDue(scope));

  return {
    schedule: async (tx: Transaction, scope: Scope, kind: string, resourceId: string) => {
      const dueAt = new Date(clock.now(scope).getTime() + delayMs).toISOString();
      const record: ProgressionRecord = {
        id: `${kind}:${resourceId}`,
        kind,
        resource_id: resourceId,
        due_at: dueAt,
        state: 'pending',
      };
      await tx.insert(PROGRESSIONS_COLLECTION, scope, record);
      // Its timer is set once the transaction is over (a store whose reads do not wait for transactions says
      // when that is): run before, it would find nothing to run, and a rolled-back one then runs harmlessly.
      setImmediate(() => void (store.settled?.() ?? Promise.resolve()).then(() => schedule(scope, record)));
    },
    delayMs,
    handle: (kind, handler) => {
      if (handlers.has(kind)) throw new Error(`automatic ${kind} progressions already have a handler`);
      handlers.set(kind, handler);
    },
    start: async () => {
      if (running) return;
      running = true;
      sweep = setInterval(runInBackground, options.sweepIntervalMs ?? 1000);
      sweep.unref();
      runInBackground();
    },
    stop: async () => {
      running = false;
      if (sweep) clearInterval(sweep);
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.all(inFlight.values());
    },
    runDue,
  };
}
