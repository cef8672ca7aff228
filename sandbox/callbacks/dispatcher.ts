// Sends what the outbox holds. A delivery is read back from the store in a transaction of its own, which
// the store runs only after the transaction that enqueued it has finished: a delivery is therefore never
// sent before its change is committed, and one whose change rolled back is never seen at all.
//
// Attempts follow the webhook's `x-delivery`: any 2xx acknowledges; otherwise the next attempt is due
// `retryDelayMs` later in sandbox time, up to `max_attempts`, and then the delivery is failed with an alert.
// Each outcome is written before anything else happens, so after a restart the dispatcher resumes the
// pending deliveries from the store and never repeats an acknowledged one. With a shared store (several
// sandboxes), every attempt is claimed with a lease first (cluster/leases.ts), and an outcome is recorded
// only by the claimer of that attempt.
//
// A delivery is attempted by the sandbox that enqueued it (or made its previous attempt), on time, from a
// timer of its own that reads that one delivery back: a look at the whole outbox per enqueue or per timer
// read every pending delivery each time, and with several sandboxes made each try to claim the others'
// attempts too. The sweep is the safety net; with a shared store it takes up only attempts overdue by
// SHARED_SWEEP_GRACE_MS, whose sandbox stopped.
import {
  buildWebhookDelivery,
  toRequest,
  type WebhookEvents,
  type WebhookKind,
} from '@payments-contract/client/webhooks';
import type { Clock } from '../context.js';
import type { Scope, Store } from '../store/store.js';
import type { Leases } from '../cluster/leases.js';
import { isWebhookKind } from '../platform/contract-facts.js';
import { clip, oneLine } from '@payments-contract/server/runtime/validation-errors';
import { maskUrlCredentials } from './mask-credentials.js';
import { createFairSlots } from './fair-slots.js';
import { ANSWER_READ_LIMIT, readAnswer } from './read-answer.js';
import {
  attemptLease,
  DELIVERIES_COLLECTION,
  NO_CALLBACK_URL,
  type DeliveryAttempt,
  type DeliveryRecord,
} from './outbox.js';

export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  /** The merchant's callback token in this mode, read at every attempt. */
  callbackToken: (scope: Scope) => string;
  /** Spacing of attempts in sandbox milliseconds (CALLBACK_RETRY_DELAY_MS; the contract says 30 s). */
  retryDelayMs: number;
  fetch?: typeof fetch;
  /** Told once a delivery has failed its last attempt (after the failure is stored). */
  onAlert?: (delivery: DeliveryRecord) => void;
  /** Told after each attempt, with its number (1 for the first) and outcome: the log's line per attempt. */
  onAttempt?: (delivery: DeliveryRecord, attempt: DeliveryAttempt, number: number) => void;
  /** An attempt without an answer within this time counts as failed. Default 10 s. */
  attemptTimeoutMs?: number;
  /** Safety net: how often to look for due deliveries even when nothing announced one. Default 1 s. */
  sweepIntervalMs?: number;
  /**
   * Attempts made at the same time at most, all merchants together. Default 64: an attempt holds a socket and
   * at most the bounded part of an answer it reads (read-answer.ts), so the pool is cheap.
   */
  concurrency?: number;
  /**
   * Attempts of one merchant in one mode made at the same time at most, within `concurrency`: a receiver that
   * hangs holds these only, never the slots other scopes need (fair-slots.ts). Default 16, what one merchant
   * had when all shared 16; it takes `concurrency / scopeConcurrency` hanging scopes to fill the pool, and even
   * then a waiting scope gets the next freed slot.
   */
  scopeConcurrency?: number;
  /**
   * With a store other sandboxes share: each attempt is claimed first, so exactly one sandbox makes it, and
   * an attempt whose claimer died is made by another once the lease lapses.
   */
  leases?: Leases;
}

export interface Dispatcher {
  /** Starts sending: resumes the stored pending deliveries in the background. */
  start(): Promise<void>;
  /** Stops sending; waits for the attempts under way and stores their outcome. */
  stop(): Promise<void>;
  /**
   * Makes every attempt that is due now, each by the clock of its merchant and mode (and waits for those
   * already under way); given a scope, only that scope's (what its clock's advance made due).
   */
  runDue(scope?: Scope): Promise<void>;
  /**
   * Told of a delivery enqueued in the current transaction: it is attempted once that is over (if committed).
   * `leaseUntilMs`: the enqueuing transaction took the first attempt's lease for this sandbox, until then.
   */
  kick(scope: Scope, deliveryId: string, leaseUntilMs?: number): void;
}

/** How long past its time another sandbox's attempt waits before this one's sweep takes it up. */
export const SHARED_SWEEP_GRACE_MS = 2000;

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** Whose turn an attempt waits for: fairness is between merchants and between a merchant's two modes. */
const scopeKey = (scope: Scope): string => `${scope.mode}:${scope.merchantId}`;

/** The contract's bound on an attempt's `error` (control contract, CallbackDeliveryAttempt). */
const ATTEMPT_ERROR_LENGTH = 1024;

/** Why an attempt got no answer, on one line and within the contract's 1024 characters (decision sandbox-record-bounds). */
function describe(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer before the attempt timed out';
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const text = error instanceof Error ? `${error.message}${cause}` : String(error);
  return clip(oneLine(maskUrlCredentials(text)), ATTEMPT_ERROR_LENGTH);
}

export function defaultAlert(delivery: DeliveryRecord): void {
  // The token is never logged; the URL is the merchant's own configuration.
  console.warn(
    `ALERT callback ${delivery.event} (delivery ${delivery.id}) to ${maskUrlCredentials(delivery.url ?? '-')} failed after ${delivery.attempts.length} attempts: ${delivery.failure_reason ?? ''}`,
  );
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, clock, retryDelayMs, leases } = options;
  const send = options.fetch ?? fetch;
  const onAlert = options.onAlert ?? defaultAlert;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const concurrency = options.concurrency ?? 64;
  const slots = createFairSlots({ total: concurrency, perKey: Math.min(concurrency, options.scopeConcurrency ?? 16) });

  let running = false;
  let sweep: NodeJS.Timeout | undefined;
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Map<string, Promise<void>>();
  /** Attempts another sandbox had claimed that this one waited for (their outcome may make more due). */
  let remoteWaits = 0;
  /** First attempts whose lease the enqueuing transaction took for this sandbox: when each lapses (real ms). */
  const grantedLeases = new Map<string, number>();

  /**
   * Records an attempt's outcome, or a `failure` that ends the delivery without one (`alert`: the merchant
   * expected this callback and nothing was sent); returns the stored delivery, or undefined if it is gone
   * (reset) or settled.
   */
  const record = async (
    scope: Scope,
    delivery: DeliveryRecord,
    attempt: DeliveryAttempt | null,
    failure: string | null,
    endedMs?: number,
    alert = false,
  ): Promise<DeliveryRecord | undefined> =>
    store.transaction(async (tx) => {
      const current = await tx.get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, delivery.id);
      if (!current || current.state !== 'pending') return undefined;
      if (leases && attempt) {
        await leases.release(tx, scope, attemptLease(delivery));
        // Recorded by another sandbox, which made this attempt after our lease lapsed: ours is not counted twice.
        if (current.attempts.length !== delivery.attempts.length) return undefined;
      }
      const now = clock.now(scope);
      const attempts = attempt ? [...current.attempts, attempt] : current.attempts;
      const acknowledged = attempt?.status != null && isSuccess(attempt.status);
      const spent = attempts.length >= current.max_attempts;
      const next: DeliveryRecord = { ...current, attempts, updated: now.toISOString() };
      if (acknowledged) Object.assign(next, { state: 'delivered', next_attempt_at: null });
      else if (failure !== null)
        Object.assign(next, { state: 'failed', next_attempt_at: null, failure_reason: failure, alert });
      else if (spent) {
        const last = attempt?.status != null ? `HTTP ${attempt.status}` : (attempt?.error ?? 'no answer');
        Object.assign(next, {
          state: 'failed',
          next_attempt_at: null,
          alert: true,
          failure_reason: `no 2xx answer in ${attempts.length} attempts (last: ${last})`,
        });
      } else {
        // `retryDelayMs` after the attempt ended, so the receiver sees its requests at least that far apart,
        // counted from the attempt's start in sandbox time plus how long it took: a clock advanced while the
        // attempt was under way then makes the next one due at once instead of a delay after the advance.
        // `endedMs` is that sum unrounded (the stored duration is rounded up), so the next attempt is never due
        // later than `retryDelayMs` after the attempt really ended: a look in the same millisecond finds it due.
        const ended = attempt ? (endedMs ?? Date.parse(attempt.at) + attempt.duration_ms) : now.getTime();
        next.next_attempt_at = new Date(ended + retryDelayMs).toISOString();
      }
      await tx.update(DELIVERIES_COLLECTION, scope, next);
      return next;
    });

  const schedule = (scope: Scope, delivery: DeliveryRecord): void => {
    if (!running || delivery.next_attempt_at === null || timers.has(delivery.id)) return;
    // Sandbox time never runs slower than real time, so the attempt is due by then at the latest; an
    // advance of the scope's clock makes it due sooner (the advance runs it).
    const wait = Math.max(0, Date.parse(delivery.next_attempt_at) - clock.now(scope).getTime());
    const timer = setTimeout(() => {
      timers.delete(delivery.id);
      attemptStored(scope, delivery.id);
    }, wait + 1);
    timer.unref();
    timers.set(delivery.id, timer);
  };

  const raiseAlert = (stored: DeliveryRecord | undefined): void => {
    if (!stored?.alert) return;
    try {
      onAlert(stored);
    } catch {
      // The failure is stored; a failing alert hook must not undo that or stop the dispatcher.
    }
  };

  /** Claims the delivery's next attempt for this sandbox; false when another made it or holds it (then, if asked, waits for its outcome). */
  const claim = async (scope: Scope, delivery: DeliveryRecord, waitForOthers: boolean): Promise<boolean> => {
    if (!leases) return true;
    const granted = grantedLeases.get(delivery.id);
    grantedLeases.delete(delivery.id);
    // Taken when it was enqueued, and long enough left for the attempt: no transaction needed. Else (the
    // attempt waited for a slot that long) it is taken again below, unless another sandbox has it by now.
    if (granted !== undefined && delivery.attempts.length === 0 && leases.lastsFor(granted) > attemptTimeoutMs)
      return true;
    const lease = attemptLease(delivery);
    const madeElsewhere = (current: DeliveryRecord | undefined) =>
      !current || current.state !== 'pending' || current.attempts.length !== delivery.attempts.length;
    // A look without the scope's lock first: another sandbox's running lease makes the transaction useless.
    const claimed =
      !(await leases.heldElsewhere(scope, lease)) &&
      (await store.transaction(
        async (tx) =>
          !madeElsewhere(await tx.get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, delivery.id)) &&
          leases.take(tx, scope, lease),
      ));
    if (!claimed && waitForOthers) {
      remoteWaits++;
      await leases.waitForOthers(scope, lease, async () =>
        madeElsewhere(await store.get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, delivery.id)),
      );
    }
    return claimed;
  };

  const attemptOnce = async (scope: Scope, delivery: DeliveryRecord, waitForOthers: boolean): Promise<void> => {
    const kind: WebhookKind | null = isWebhookKind(delivery.webhook) ? delivery.webhook : null;
    if (kind === null || delivery.url === null) {
      await record(
        scope,
        delivery,
        null,
        kind === null ? `${delivery.webhook} is no longer a webhook of the contract` : NO_CALLBACK_URL,
      );
      return;
    }
    let request: Request;
    try {
      // Built again at each attempt so the merchant's current token is used; the payload was checked at enqueue.
      request = toRequest(
        buildWebhookDelivery(kind, delivery.payload as WebhookEvents[WebhookKind], {
          callbackToken: options.callbackToken(scope),
          url: delivery.url,
        }),
      );
    } catch (error) {
      // A URL stored before it was refused where it is given (one with credentials), for example: never silent.
      raiseAlert(
        await record(scope, delivery, null, `the callback could not be built: ${describe(error)}`, undefined, true),
      );
      return;
    }
    if (!(await claim(scope, delivery, waitForOthers))) return;
    const at = clock.now(scope).toISOString();
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let answer: Pick<DeliveryAttempt, 'answer_bytes' | 'answer_cut'> = {};
    try {
      const response = await send(request, { signal: AbortSignal.timeout(attemptTimeoutMs), redirect: 'manual' });
      status = response.status;
      const read = await readAnswer(response, ANSWER_READ_LIMIT);
      answer = { answer_bytes: read.bytes, answer_cut: read.cut };
    } catch (caught) {
      error = describe(caught);
    }
    const took = performance.now() - started;
    const stored = await record(
      scope,
      delivery,
      { at, status, error, duration_ms: Math.ceil(took), ...answer },
      null,
      Date.parse(at) + took,
    );
    try {
      options.onAttempt?.(delivery, { at, status, error, duration_ms: took, ...answer }, delivery.attempts.length + 1);
    } catch {
      // The outcome is stored; a failing log line must not stop the next attempt from being scheduled.
    }
    if (!stored) return;
    if (stored.state === 'pending') schedule(scope, stored);
    raiseAlert(stored);
  };

  const start = (scope: Scope, delivery: DeliveryRecord, waitForOthers = false): Promise<void> => {
    const existing = inFlight.get(delivery.id);
    if (existing) return existing;
    const key = scopeKey(scope);
    const run = (async () => {
      await slots.acquire(key);
      try {
        // Stopped while waiting for a slot: leave it pending for the next start.
        if (running) await attemptOnce(scope, delivery, waitForOthers);
      } finally {
        slots.release(key);
      }
    })()
      .catch((error: unknown) => console.error(`callback delivery ${delivery.id} could not be processed:`, error))
      .finally(() => inFlight.delete(delivery.id));
    inFlight.set(delivery.id, run);
    return run;
  };

  /** Reads the delivery back (committed, current) and attempts it if it is due, or sets its timer. */
  const attemptStored = (scope: Scope, deliveryId: string): void => {
    if (!running || inFlight.has(deliveryId)) return;
    void store
      .get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, deliveryId)
      .then((delivery) => {
        if (
          delivery &&
          delivery.state === 'pending' &&
          delivery.next_attempt_at !== null &&
          Date.parse(delivery.next_attempt_at) <= clock.now(scope).getTime()
        )
          return start(scope, delivery);
        // Not attempted now (rolled back, settled, or not due): a granted lease is taken again when it is.
        grantedLeases.delete(deliveryId);
        if (delivery?.state === 'pending') schedule(scope, delivery);
      })
      .catch((error: unknown) =>
        console.error(`callback delivery ${deliveryId} could not be read (the sweep tries again):`, error),
      );
  };

  /** Pending deliveries of one scope, or of every scope. */
  const pendingOf = async (scope: Scope | undefined): Promise<{ scope: Scope; record: DeliveryRecord }[]> =>
    scope
      ? (await store.findBy<DeliveryRecord>(DELIVERIES_COLLECTION, scope, 'state', 'pending')).map((record) => ({
          scope,
          record,
        }))
      : store.findAcrossScopes<DeliveryRecord>(DELIVERIES_COLLECTION, 'state', 'pending');

  /** One look at the outbox; true when it waited for attempts started elsewhere, whose outcome may make more due. */
  const pass = async (only: Scope | undefined): Promise<boolean> => {
    // A store read waits for every transaction asked for before it (the enqueuing one included) to commit or
    // roll back, so it sees committed deliveries only.
    const pending = await pendingOf(only);
    if (!running) return false;
    const work: Promise<void>[] = [];
    let waitedForOthers = false;
    const remoteWaitsBefore = remoteWaits;
    // The sweep leaves another sandbox's attempts to it until they are overdue; a clock's advance makes all
    // of its scope's due attempts here, whoever enqueued them.
    const grace = only === undefined && leases ? SHARED_SWEEP_GRACE_MS : 0;
    for (const { scope, record: delivery } of pending) {
      const underway = inFlight.get(delivery.id);
      if (underway) {
        work.push(underway);
        waitedForOthers = true;
      } else if (
        delivery.next_attempt_at !== null &&
        Date.parse(delivery.next_attempt_at) <= clock.now(scope).getTime() - grace
      ) {
        // Due by its own scope's clock: another merchant's advance makes nothing of this one due.
        const timer = timers.get(delivery.id);
        if (timer) clearTimeout(timer);
        timers.delete(delivery.id);
        // Asked for one scope (its clock moved): an attempt another sandbox claimed is waited for too.
        work.push(start(scope, delivery, only !== undefined));
      } else if (grace === 0) schedule(scope, delivery);
    }
    await Promise.all(work);
    return waitedForOthers || remoteWaits !== remoteWaitsBefore;
  };

  const runDue = async (scope?: Scope): Promise<void> => {
    // A second look covers an attempt that was under way when the clock moved: once its outcome is stored,
    // its next attempt may already be due, and the caller (an advance) expects it to have run.
    for (let looks = 0; looks < 2 && running; looks++) if (!(await pass(scope))) return;
  };

  /** For timers: nobody awaits them, so a failure is reported here (the next sweep tries again). */
  const runInBackground = (): void =>
    void runDue().catch((error: unknown) => console.error('callback dispatch failed:', error));

  clock.onAdvance((scope) => runDue(scope));

  return {
    start: async () => {
      if (running) return;
      running = true;
      sweep = setInterval(runInBackground, options.sweepIntervalMs ?? 1000);
      sweep.unref();
      // Not awaited: resuming many deliveries to slow receivers must not hold up the sandbox's start.
      runInBackground();
    },
    stop: async () => {
      running = false;
      if (sweep) clearInterval(sweep);
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.all([...inFlight.values()]);
      grantedLeases.clear();
    },
    runDue,
    kick: (scope, deliveryId, leaseUntilMs) => {
      if (!running) return;
      if (leaseUntilMs !== undefined) grantedLeases.set(deliveryId, leaseUntilMs);
      // A store whose reads do not wait for transactions says when the enqueuing one is over.
      setImmediate(() => void (store.settled?.() ?? Promise.resolve()).then(() => attemptStored(scope, deliveryId)));
    },
  };
}
