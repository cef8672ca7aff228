// Sends what the outbox holds. Each attempt is a job of the scheduler (platform/scheduler.ts), written with
// the delivery in the transaction that enqueues it, so a delivery is never sent before its change is
// committed, and one whose change rolled back is never seen at all.
//
// Attempts follow the webhook's `x-delivery`: any 2xx acknowledges; otherwise the next attempt is due
// `retryDelayMs` later in sandbox time, up to `max_attempts`, and then the delivery is failed with an alert.
// Each outcome is written, with the job's next state (done, or due again), before anything else happens, so
// after a restart the pending deliveries resume from the store and an acknowledged one is never repeated.
// With several sandboxes on one store, the scheduler's claim gives each attempt to one of them; an outcome
// is recorded only if no other sandbox recorded that attempt meanwhile (one whose hold lapsed under it).
import type { WebhookDelivery, WebhookEvents, WebhookKind } from '@payments-contract/client/webhooks';
import type { Clock } from '../context.js';
import { JOBS_COLLECTION, type Scope, type Store } from '../store/store.js';
import { jobId, type JobRun, type Scheduler } from '../platform/scheduler.js';
import { isWebhookKind } from '../platform/contract-facts.js';
import { boundAttemptError, describeAttemptError } from './attempt-error.js';
import { maskUrlCredentials } from './mask-credentials.js';
import type { Listeners } from './listeners.js';
import type { CheckedPayloads } from './checked-payloads.js';
import { ANSWER_READ_LIMIT } from './read-answer.js';
import { createAttemptSender, type AttemptAnswer, type AttemptSenderOptions } from './send-attempt.js';
import {
  CALLBACK_JOB,
  DELIVERIES_COLLECTION,
  NO_CALLBACK_URL,
  type DeliveryAttempt,
  type DeliveryRecord,
} from './outbox.js';

export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  /** Runs the attempts (the outbox schedules each delivery's first one on it). */
  scheduler: Scheduler;
  /** The merchant's callback token in this mode, read at every attempt. */
  callbackToken: (scope: Scope) => string;
  /** Spacing of attempts in sandbox milliseconds (CALLBACK_RETRY_DELAY_MS; the contract says 30 s). */
  retryDelayMs: number;
  fetch?: typeof fetch;
  /**
   * Live listeners (`payments-sandbox listen`): while a scope has one, its attempts go to them instead of the
   * URL, and what their receivers answered is the attempt's outcome (decision sandbox-callback-listeners).
   */
  listeners?: Listeners;
  /** Told once a delivery has failed its last attempt (after the failure is stored). */
  onAlert?: (delivery: DeliveryRecord) => void;
  /** Told after each attempt, with its number (1 for the first) and outcome: the log's line per attempt. */
  onAttempt?: (delivery: DeliveryRecord, attempt: DeliveryAttempt, number: number) => void;
  /** Told of each thread the attempts over node:http are made in (send-attempt.ts; tests). */
  onSendingThread?: AttemptSenderOptions['onThread'];
  /** An attempt without an answer within this time counts as failed. Default 10 s. */
  attemptTimeoutMs?: number;
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
  /** Builds an attempt's request, checking its payload unless this process checked it as it was recorded. */
  checked: Pick<CheckedPayloads, 'build'>;
}

/** The scheduler's start, stop and runDue, as the callbacks' tests and the app use them. */
export type Dispatcher = Pick<Scheduler, 'start' | 'stop' | 'runDue'>;

const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** Where a callback with no URL is built for a listener (the forward says `url: null`): never sent. */
const NO_URL = 'http://callback.invalid/';

export function defaultAlert(delivery: DeliveryRecord): void {
  // The token is never logged; the URL is the merchant's own configuration.
  console.warn(
    `ALERT callback ${delivery.event} (delivery ${delivery.id}) to ${maskUrlCredentials(delivery.url ?? '-')} failed after ${delivery.attempts.length} attempts: ${delivery.failure_reason ?? ''}`,
  );
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, clock, retryDelayMs, scheduler } = options;
  const onAlert = options.onAlert ?? defaultAlert;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  const concurrency = options.concurrency ?? 64;
  const sender = createAttemptSender({
    timeoutMs: attemptTimeoutMs,
    readLimit: ANSWER_READ_LIMIT,
    maxSockets: concurrency,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.onSendingThread ? { onThread: options.onSendingThread } : {}),
  });

  /**
   * Records an attempt's outcome, or a `failure` that ends the delivery without one (`alert`: the merchant
   * expected this callback and nothing was sent), and the job's next state with it; returns the stored
   * delivery, or undefined if it is gone (reset) or settled, or another sandbox recorded this attempt.
   */
  const record = async (
    job: JobRun,
    delivery: DeliveryRecord,
    attempt: DeliveryAttempt | null,
    failure: string | null,
    endedMs?: number,
    alert = false,
  ): Promise<DeliveryRecord | undefined> =>
    store.transaction(async (tx) => {
      const { scope } = job;
      const current = await tx.get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, delivery.id);
      if (!current || current.state !== 'pending') return undefined;
      // Recorded by another sandbox, which made this attempt after our hold lapsed: ours is not counted twice.
      if (current.attempts.length !== delivery.attempts.length) return undefined;
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
      if (next.next_attempt_at === null) await job.done(tx);
      else await job.again(tx, Date.parse(next.next_attempt_at));
      return next;
    });

  const raiseAlert = (stored: DeliveryRecord | undefined): void => {
    if (!stored?.alert) return;
    try {
      onAlert(stored);
    } catch {
      // The failure is stored; a failing alert hook must not undo that or stop the dispatcher.
    }
  };

  /** The attempt made through the scope's live listeners; undefined when none is live (it goes to the URL). */
  const forward = async (
    job: JobRun,
    delivery: DeliveryRecord,
    built: WebhookDelivery,
  ): Promise<Pick<DeliveryAttempt, 'status' | 'error' | 'answer_bytes' | 'answer_cut'> | undefined> => {
    if (!options.listeners?.live(job.scope)) return undefined;
    const outcome = options.listeners.forward(
      job.scope,
      {
        delivery_id: delivery.id,
        webhook: delivery.webhook,
        event: delivery.event,
        attempt: delivery.attempts.length + 1,
        url: delivery.url,
        http_headers: { ...built.headers },
        body: built.body,
      },
      attemptTimeoutMs,
    );
    if (outcome === undefined) return undefined;
    const { status, error, answer_bytes, answer_cut } = await outcome;
    return {
      status,
      error: error === null ? null : boundAttemptError(error),
      ...(answer_bytes === undefined ? {} : { answer_bytes }),
      ...(answer_cut === undefined ? {} : { answer_cut }),
    };
  };

  const attemptOnce = async (job: JobRun, delivery: DeliveryRecord): Promise<void> => {
    const { scope } = job;
    const kind: WebhookKind | null = isWebhookKind(delivery.webhook) ? delivery.webhook : null;
    // With no URL, a callback made while a listener was live goes to the listeners, if one still is.
    if (kind === null || (delivery.url === null && !options.listeners?.live(scope))) {
      await record(
        job,
        delivery,
        null,
        kind === null ? `${delivery.webhook} is no longer a webhook of the contract` : NO_CALLBACK_URL,
      );
      return;
    }
    let built: WebhookDelivery;
    let send: () => Promise<AttemptAnswer>;
    try {
      // Built again at each attempt so the merchant's current token is used; its payload is checked again unless
      // this process checked it at enqueue (checked-payloads.ts).
      built = options.checked.build(delivery.id, kind, delivery.payload as WebhookEvents[WebhookKind], {
        callbackToken: options.callbackToken(scope),
        url: delivery.url ?? NO_URL,
      });
      send = sender.prepare(built);
    } catch (error) {
      // A URL stored before it was refused where it is given (one with credentials), for example: never silent.
      raiseAlert(
        await record(
          job,
          delivery,
          null,
          `the callback could not be built: ${describeAttemptError(error)}`,
          undefined,
          true,
        ),
      );
      return;
    }
    const at = clock.now(scope).toISOString();
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let answer: Pick<DeliveryAttempt, 'answer_bytes' | 'answer_cut' | 'forwarded'> = {};
    const forwarded = await forward(job, delivery, built);
    if (forwarded) ({ status, error, ...answer } = { ...forwarded, forwarded: true });
    else if (delivery.url === null) error = NO_CALLBACK_URL;
    else
      try {
        const read = await send();
        status = read.status;
        answer = { answer_bytes: read.bytes, answer_cut: read.cut };
      } catch (caught) {
        error = describeAttemptError(caught);
      }
    const took = performance.now() - started;
    const stored = await record(
      job,
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
    raiseAlert(stored);
  };

  scheduler.handle(
    CALLBACK_JOB,
    async (job) => {
      // Read back committed and current: gone (reset) or settled, the job ends with nothing sent.
      const delivery = await store.get<DeliveryRecord>(DELIVERIES_COLLECTION, job.scope, job.target);
      if (delivery?.state === 'pending') await attemptOnce(job, delivery);
    },
    {
      concurrency,
      scopeConcurrency: options.scopeConcurrency ?? 16,
      onError: (error, _scope, target) => console.error(`callback delivery ${target} could not be processed:`, error),
    },
  );

  // Every pending delivery without a job gets one at start: a first attempt that was not written as a job (on a
  // store no other process shares, the outbox's recoveredAtStart) and an earlier version's deliveries. A restart
  // before such an attempt ended resumes it here: this step is what makes not writing it safe.
  scheduler.onStart(async () => {
    for (const { scope, record: pending } of await store.findAcrossScopes<DeliveryRecord>(
      DELIVERIES_COLLECTION,
      'state',
      'pending',
    )) {
      if (pending.next_attempt_at === null) continue;
      if (await store.get(JOBS_COLLECTION, scope, jobId(CALLBACK_JOB, pending.id))) continue;
      await store.transaction(async (tx) => {
        const current = await tx.get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, pending.id);
        if (current?.state !== 'pending' || current.next_attempt_at === null) return;
        if (await tx.get(JOBS_COLLECTION, scope, jobId(CALLBACK_JOB, pending.id))) return;
        await scheduler.schedule(tx, scope, CALLBACK_JOB, pending.id, Date.parse(current.next_attempt_at));
      });
    }
  });

  return {
    start: scheduler.start,
    stop: async () => {
      await scheduler.stop();
      // The pooled connections to receivers and their thread: kept between attempts, closed with the dispatcher.
      await sender.close();
    },
    runDue: scheduler.runDue,
  };
}
