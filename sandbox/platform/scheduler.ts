// The one scheduler of everything the sandbox does later: callback attempts (callbacks/dispatcher.ts),
// auto-resolve (auto-resolve.ts), and whatever a module schedules next. A job is a record of the store's
// jobs collection (store.ts, JobRecord), written in the transaction that makes it due, so it exists if and only
// if that change does, and a restart resumes it. Each job runs once its scope's clock reaches its time: by
// real time (a timer, or the sweep) or by an advance of that clock (the advance waits for it).
// Expiries are not jobs: the contract's time triggers change only the object that expires, so its state is
// derived from the scope's clock wherever it is read (expiries.test.ts holds the contract to that; a time
// trigger given an effect, a callback say, becomes a job here).
//
// Who runs a job is settled by one primitive, `Store.claim`: on PostgreSQL one FOR UPDATE SKIP LOCKED statement
// that takes due, free jobs and writes their hold (as graphile-worker's getJobs), in process for the embedded
// stores. Nothing polls a lease: a job is held by the instance that scheduled it (the hold is written with the
// job, in the same transaction), which runs it on time from its own timer (one timer for all its jobs: the
// soonest), claiming it by name first; or, if it was due at once, runs it without a claim, saving a statement.
// The sweep (once a second) claims every due job that is free or whose holder's hold lapsed: the work of an
// instance that died is taken over `leaseMs` after it was due. An advance of a clock claims its scope's due
// jobs, reservations of other instances that have not started them included.
//
// A handler ends its job in the transaction that decides the outcome (`done`), or makes it due again
// (`again`: the next attempt, held by this instance): the outcome and the job's next state are one
// transaction. A handler that decides nothing leaves the job to be deleted, unless someone changed it since.
// Jobs of one kind run in fair slots (callbacks/fair-slots.ts): a merchant's slow work never takes the slots
// another merchant's or mode's work needs.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../context.js';
import { createFairSlots, type FairSlots } from '../callbacks/fair-slots.js';
import {
  JOBS_COLLECTION,
  type ClaimWhich,
  type JobRecord,
  type Scope,
  type Store,
  type Transaction,
} from '../store/store.js';
import { scopedKey, scopeKey } from '../store/scope-key.js';

/** What a handler is given: the job's scope and target, and how to end it. */
export interface JobRun {
  scope: Scope;
  kind: string;
  target: string;
  /** Inside the transaction that decides the outcome: the job is done. */
  done(tx: Transaction): Promise<void>;
  /** Inside that transaction: due again at `dueMs` (the scope's sandbox time), held by this instance. */
  again(tx: Transaction, dueMs: number): Promise<void>;
}

export type JobHandler = (run: JobRun) => Promise<void>;

export interface KindOptions {
  /** Jobs of this kind running at once, all scopes together. Default 64. */
  concurrency?: number;
  /** Jobs of this kind of one merchant in one mode running at once, within `concurrency`. Default 16. */
  scopeConcurrency?: number;
  /** Told when the handler throws; the job is then deleted (its object stays for the control API). */
  onError?: (error: unknown, scope: Scope, target: string) => void;
}

export interface Scheduler {
  /** Who this instance is in the jobs' holds. */
  readonly holder: string;
  /** Names the handler of a kind; every kind scheduled must have one before `start`. */
  handle(kind: string, handler: JobHandler, options?: KindOptions): void;
  /**
   * Inside a transaction: `kind` is due for `target` at `dueMs` of the scope's sandbox time (no such job may
   * be pending).
   */
  schedule(
    tx: Transaction,
    scope: Scope,
    kind: string,
    target: string,
    dueMs: number,
    options?: ScheduleOptions,
  ): Promise<void>;
  /** Told before the first sweep at every start (to adopt work stored before the scheduler kept it). */
  onStart(step: () => Promise<void>): void;
  /** Starts running due jobs (those stored by an earlier run first). Starting a started scheduler does nothing. */
  start(): Promise<void>;
  /** Stops; waits for the jobs under way. */
  stop(): Promise<void>;
  /**
   * Runs every job due now and waits for them (and for those already under way): given a scope, by its
   * clock, whoever holds them for later; otherwise every free job due by real time.
   */
  runDue(scope?: Scope): Promise<void>;
}

export interface ScheduleOptions {
  /**
   * The kind's owner finds this work again from records of its own at every start (its `onStart` step
   * schedules what is still to do), so on a store no other process shares a job due at once is not written:
   * it runs from this process's memory, and a restart before it ends finds the work through the owner's
   * records. Two journal operations fewer per callback (the job's put and delete); a shared store writes it.
   */
  recoveredAtStart?: boolean;
}

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  /** How long a hold lasts past a job's time (real ms): longer than any job takes. */
  leaseMs: number;
  /** The real clock (ms); tests replace it. Default Date.now. */
  realTime?: () => number;
  /**
   * Safety net: how often to claim due jobs nobody announced (another instance's, or a dead one's). Default
   * 1 s with a store other instances share; 10 s with an embedded one, where every job is this instance's
   * (on its timer) once the sweep at start has taken up those of an earlier run, and a sweep reads every
   * pending job (some 6,000 under the bench's mix: milliseconds in one block, which showed in its p99).
   */
  sweepIntervalMs?: number;
}

/** Scopes one sweep claims from at most, and jobs of each. */
const SWEEP_SCOPES = 256;
const SWEEP_PER_SCOPE = 16;
/** Jobs one advance claims at most per look. */
const ADVANCE_LIMIT = 1000;
/** How long after a failed claim (the store unreachable) the timer tries again. */
const RETRY_CLAIM_MS = 1000;
/** Looks an advance makes: work it ran may have made more due (a finished payment's callback). */
const ADVANCE_LOOKS = 3;

export const jobId = (kind: string, target: string): string => `${kind}:${target}`;

interface Timed {
  runAtMs: number;
  scope: Scope;
  id: string;
}

/** The soonest first: one timer serves every job this instance holds. */
function createTimeline() {
  const heap: Timed[] = [];
  const before = (a: number, b: number) => heap[a]!.runAtMs < heap[b]!.runAtMs;
  const swap = (a: number, b: number) => ([heap[a], heap[b]] = [heap[b]!, heap[a]!]);
  return {
    first: (): Timed | undefined => heap[0],
    push: (item: Timed): void => {
      heap.push(item);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!before(at, parent)) break;
        swap(at, parent);
        at = parent;
      }
    },
    pop: (): Timed | undefined => {
      const top = heap[0];
      const last = heap.pop();
      if (heap.length > 0 && last) {
        heap[0] = last;
        for (let at = 0; ; ) {
          const [left, right] = [2 * at + 1, 2 * at + 2];
          let least = at;
          if (left < heap.length && before(left, least)) least = left;
          if (right < heap.length && before(right, least)) least = right;
          if (least === at) break;
          swap(at, least);
          at = least;
        }
      }
      return top;
    },
    clear: (): void => void heap.splice(0),
  };
}

interface Kind {
  handler: JobHandler;
  slots: FairSlots;
  onError: (error: unknown, scope: Scope, target: string) => void;
}

type Reschedule = (tx: Transaction, scope: Scope, kind: string, target: string, dueMs: number) => Promise<number>;

/**
 * A job's run as its handler sees it, and how the handler ended it. A class rather than an object of closures
 * made per run: under tsx, which `npm start` runs the sandbox with, each closure bound to a name is named at
 * run time (a defineProperty each), 1.7% of the sandbox's busy time under the bench's mix.
 */
class HandedRun implements JobRun {
  /** The handler decided the job's outcome (done, or due again). */
  ended = false;
  /** When it runs again by real time, if the handler made it due again. */
  nextRunAtMs: number | undefined;
  readonly kind: string;
  readonly target: string;

  constructor(
    readonly scope: Scope,
    private readonly job: JobRecord,
    private readonly reschedule: Reschedule,
  ) {
    this.kind = job.kind;
    this.target = job.target;
  }

  async done(tx: Transaction): Promise<void> {
    await tx.discard(JOBS_COLLECTION, this.scope, this.job.id);
    this.ended = true;
  }

  async again(tx: Transaction, dueMs: number): Promise<void> {
    this.nextRunAtMs = await this.reschedule(tx, this.scope, this.kind, this.target, dueMs);
    this.ended = true;
  }
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, clock, leaseMs } = options;
  const realTime = options.realTime ?? (() => Date.now());
  const holder = randomUUID();
  const kinds = new Map<string, Kind>();
  const startSteps: (() => Promise<void>)[] = [];
  const inFlight = new Map<string, { scope: Scope; run: Promise<void> }>();
  /**
   * Jobs scheduled without being written (ScheduleOptions.recoveredAtStart) until their run ends: no claim
   * finds them, so an advance of their scope's clock waits for them here (a finished payment's callback).
   */
  const unwritten = new Map<string, { scope: Scope; run: Promise<void> }>();
  const timeline = createTimeline();
  let timer: NodeJS.Timeout | undefined;
  let timerAtMs = Number.POSITIVE_INFINITY;
  let sweep: NodeJS.Timeout | undefined;
  let running = false;

  /** The job record of `kind` for `target` due at `dueMs`, held by this instance until a lease after it. */
  const jobOf = (scope: Scope, kind: string, target: string, dueMs: number): JobRecord => {
    // Sandbox time never runs slower than real time: by real time it is due then at the latest. Real time is
    // read first, so a millisecond passing between the reads puts the job earlier, never later.
    const realMs = realTime();
    const runAtMs = dueMs - (clock.now(scope).getTime() - realMs);
    return {
      id: jobId(kind, target),
      kind,
      target,
      state: 'pending',
      due_ms: dueMs,
      run_at_ms: runAtMs,
      locked_by: holder,
      locked_until_ms: Math.max(runAtMs, realMs) + leaseMs,
    };
  };

  /** Writes the job of `kind` for `target` due again at `dueMs`; returns when it runs by real time. */
  const reschedule: Reschedule = async (tx, scope, kind, target, dueMs) => {
    const job = jobOf(scope, kind, target, dueMs);
    if (await tx.get<JobRecord>(JOBS_COLLECTION, scope, job.id)) await tx.update(JOBS_COLLECTION, scope, job);
    else await tx.insert(JOBS_COLLECTION, scope, job);
    return job.run_at_ms;
  };

  // A claim takes again what this instance already holds, so two claims of its own under way at once (the
  // sweep, an advance, a timer) may both return a job, and the second answer may come once the run the
  // first started is over (the job deleted just after that claim took it): ran twice, seen as 201 runs of
  // 200 jobs in scheduler.test.ts. A job whose run here ended after a claim began is left out of that claim's
  // answer: it is done, or held here again (its next time on the timer, or a failure the sweep retakes).
  let claimsUnderway = 0;
  let runsEnded = 0;
  const endedAt = new Map<string, number>();
  const noteEnded = (key: string): void => {
    if (claimsUnderway > 0) endedAt.set(key, ++runsEnded);
  };
  const claim = async (which: ClaimWhich): Promise<{ scope: Scope; job: JobRecord }[]> => {
    const began = runsEnded;
    claimsUnderway++;
    try {
      const claimed = await store.claim({ holder, nowMs: realTime(), leaseMs, which });
      return claimed.filter(({ scope, job }) => (endedAt.get(scopedKey(scope, job.id)) ?? began) <= began);
    } finally {
      if (--claimsUnderway === 0) endedAt.clear();
    }
  };

  /**
   * Deletes a job its handler decided nothing about, unless it was made due again meanwhile (by another
   * instance); true when it did. `fresh`: run as soon as it was scheduled, unclaimed, on a store whose reads
   * do not wait for transactions, the handler may have looked before the commit (this transaction waits for
   * it): such a job is kept (false) to run once more.
   */
  const endUnchanged = (scope: Scope, job: JobRecord, fresh: boolean, recorded: boolean): Promise<boolean> =>
    store.transaction(async (tx) => {
      // Not written (ScheduleOptions.recoveredAtStart): nothing to delete, and a fresh run that may have looked
      // before the commit looks once more after this transaction's (which comes after it).
      if (!recorded) return !fresh;
      const current = await tx.get<JobRecord>(JOBS_COLLECTION, scope, job.id);
      if (!current || current.due_ms !== job.due_ms) return true;
      if (fresh) return false;
      await tx.delete(JOBS_COLLECTION, scope, job.id);
      return true;
    });

  const arm = (): void => {
    const first = timeline.first();
    if (!running || !first || first.runAtMs >= timerAtMs) return;
    if (timer) clearTimeout(timer);
    timerAtMs = first.runAtMs;
    timer = setTimeout(fire, Math.max(0, first.runAtMs - realTime()) + 1);
    timer.unref();
  };

  const remember = (scope: Scope, id: string, runAtMs: number): void => {
    timeline.push({ runAtMs, scope, id });
    arm();
  };

  /**
   * Runs a job this instance holds: just claimed, or (`fresh`) held since it was scheduled due at once.
   * `recorded` false: a job not written (ScheduleOptions.recoveredAtStart), held by this process alone.
   */
  const run = (scope: Scope, job: JobRecord, fresh = false, recorded = true): Promise<void> => {
    const key = scopedKey(scope, job.id);
    const underway = inFlight.get(key);
    if (underway) return underway.run;
    const kind = kinds.get(job.kind);
    if (!kind) {
      console.error(`no handler for ${job.kind} jobs (${job.id}); it is left for an instance that has one`);
      return Promise.resolve();
    }
    let rerun = false;
    const work = (async () => {
      const slot = scopeKey(scope);
      await kind.slots.acquire(slot);
      try {
        // Stopped while waiting for a slot: left held; the hold lapses and a sweep (here after a restart) takes it.
        if (!running) return;
        // Waited long for the slot: held again before it runs, unless another instance took it meanwhile (one
        // not written is this process's alone: nothing to claim).
        if (recorded && (job.locked_until_ms ?? 0) - realTime() < leaseMs / 2) {
          const [again] = await claim({ due: 'named', jobs: [{ scope, id: job.id }] });
          if (!again) return;
        }
        const handed = new HandedRun(scope, job, reschedule);
        try {
          await kind.handler(handed);
        } catch (error) {
          kind.onError(error, scope, job.target);
          handed.ended = false;
        }
        if (!handed.ended && !(await endUnchanged(scope, job, fresh, recorded))) rerun = true;
        else if (handed.nextRunAtMs !== undefined) remember(scope, job.id, handed.nextRunAtMs);
      } finally {
        kind.slots.release(slot);
      }
    })()
      .catch((error: unknown) => console.error(`job ${job.id} could not be run (a sweep tries again):`, error))
      .finally(() => {
        inFlight.delete(key);
        noteEnded(key);
      })
      .then(() => (rerun ? run(scope, job, false, recorded) : undefined));
    inFlight.set(key, { scope, run: work });
    return work;
  };

  /** The timer: claims, by name, the jobs of this instance whose time has come, and runs them. */
  function fire(): void {
    timer = undefined;
    timerAtMs = Number.POSITIVE_INFINITY;
    if (!running) return;
    const nowMs = realTime();
    const due: { scope: Scope; id: string }[] = [];
    for (let first = timeline.first(); first && first.runAtMs <= nowMs; first = timeline.first()) {
      timeline.pop();
      if (!inFlight.has(scopedKey(first.scope, first.id))) due.push({ scope: first.scope, id: first.id });
    }
    arm();
    if (due.length === 0) return;
    void claim({ due: 'named', jobs: due })
      .then((claimed) => Promise.all(claimed.map(({ scope, job }) => run(scope, job))))
      .catch((error: unknown) => {
        // The store is unreachable for now: looked at again in a second (still held by this instance).
        console.error('scheduled jobs could not be claimed (tried again in a second):', error);
        for (const { scope, id } of due) remember(scope, id, realTime() + RETRY_CLAIM_MS);
      });
  }

  /** Starts a job just scheduled, once its transaction is over (see `schedule`). */
  const afterTransaction = async (scope: Scope, job: JobRecord, recorded: boolean): Promise<void> => {
    await store.settled?.();
    if (!running) return;
    // Due at once: held since it was written, and nobody takes over a started job before its hold lapses.
    if (!recorded || job.run_at_ms <= realTime()) return run(scope, job, true, recorded);
    remember(scope, job.id, job.run_at_ms);
  };

  const runDue = async (scope?: Scope): Promise<void> => {
    if (!running) return;
    if (!scope) {
      const claimed = await claim({ due: 'any', perScope: SWEEP_PER_SCOPE, scopes: SWEEP_SCOPES });
      await Promise.all(claimed.map((entry) => run(entry.scope, entry.job)));
      return;
    }
    const key = scopeKey(scope);
    for (let look = 0; look < ADVANCE_LOOKS && running; look++) {
      const claimed = await claim({
        due: 'scope',
        scope,
        dueByMs: clock.now(scope).getTime(),
        limit: ADVANCE_LIMIT,
      });
      // What is under way here for the scope is waited for too: once its outcome is stored, more may be due.
      const underway = [...inFlight.values(), ...unwritten.values()].filter((entry) => scopeKey(entry.scope) === key);
      if (claimed.length === 0 && underway.length === 0) return;
      await Promise.all([...claimed.map((entry) => run(entry.scope, entry.job)), ...underway.map((e) => e.run)]);
    }
  };

  const runInBackground = (): void =>
    void runDue().catch((error: unknown) => console.error('the sweep of due jobs failed:', error));

  clock.onAdvance((scope) => runDue(scope));

  return {
    holder,
    handle: (kind, handler, kindOptions = {}) => {
      if (kinds.has(kind)) throw new Error(`${kind} jobs already have a handler`);
      const concurrency = kindOptions.concurrency ?? 64;
      kinds.set(kind, {
        handler,
        slots: createFairSlots({
          total: concurrency,
          perKey: Math.min(concurrency, kindOptions.scopeConcurrency ?? 16),
        }),
        onError:
          kindOptions.onError ??
          ((error, scope, target) => console.error(`${kind} job for ${target} (${scope.merchantId}) failed:`, error)),
      });
    },
    schedule: async (tx, scope, kind, target, dueMs, scheduleOptions) => {
      const job = jobOf(scope, kind, target, dueMs);
      const recorded = !(scheduleOptions?.recoveredAtStart && !store.shared && job.run_at_ms <= realTime());
      // A new piece of work (a new delivery, a countdown started once): one statement, no look first.
      if (recorded) await tx.insert(JOBS_COLLECTION, scope, job);
      // Once the transaction is over (a store whose reads do not wait for transactions says when): run before,
      // a job whose change rolled back would run, finding nothing to do.
      if (recorded) return void setImmediate(() => void afterTransaction(scope, job, recorded));
      const key = scopedKey(scope, job.id);
      const ran = new Promise((resolve) => setImmediate(resolve)).then(() => afterTransaction(scope, job, recorded));
      unwritten.set(key, { scope, run: ran });
      void ran.finally(() => unwritten.delete(key));
    },
    onStart: (step) => void startSteps.push(step),
    start: async () => {
      if (running) return;
      running = true;
      for (const step of startSteps) await step();
      sweep = setInterval(runInBackground, options.sweepIntervalMs ?? (store.shared ? 1000 : 10_000));
      sweep.unref();
      // Not awaited: resuming much work (slow receivers) must not hold up the sandbox's start.
      runInBackground();
    },
    stop: async () => {
      running = false;
      if (sweep) clearInterval(sweep);
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAtMs = Number.POSITIVE_INFINITY;
      timeline.clear();
      await Promise.all([...inFlight.values()].map((entry) => entry.run));
    },
    runDue,
  };
}
