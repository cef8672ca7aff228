// Check callback_deliveries: every delivery the run's receiver got while the whole run lasted
// (callbacks/whole-run.ts), judged at the end against what the run did (callbacks/deliveries-judge.ts).
// It runs last. Before judging it waits (up to the callback wait) for callbacks the run caused that have
// not arrived yet, and, where the target's clock can be moved (x-clock-advance), moves it by the retry
// interval so that the attempts the receiver refused on purpose, and any retry of an acknowledged one,
// come within the run.
import { setTimeout as sleep } from 'node:timers/promises';
import { judgeDeliveries, type JudgeInput } from '../callbacks/deliveries-judge.js';
import type { WholeRun } from '../callbacks/whole-run.js';
import { operationLocator } from '../operation-at.js';
import type { Check, CheckContext, CheckResult, ProgressEvent } from '../types.js';

const DEFAULT_WAIT_MS = 15_000;
/** How long the receiver must stay quiet after the clock was moved before the deliveries are judged. */
const QUIET_MS = 150;
const POLL_MS = 50;

/** Waits until `done` or `timeoutMs`, polling. */
async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done() && performance.now() < deadline) await sleep(POLL_MS);
}

/** Waits until no delivery arrived for QUIET_MS (at most `timeoutMs`). */
async function quiet(run: WholeRun, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let count = run.receiver.deliveries().length;
  let since = performance.now();
  while (performance.now() < deadline && performance.now() - since < QUIET_MS) {
    await sleep(POLL_MS);
    const now = run.receiver.deliveries().length;
    if (now !== count) [count, since] = [now, performance.now()];
  }
}

/**
 * Moves the target's clock past the retry interval (the target's own, reported through its control
 * contract, else the contract's), so the attempts refused on purpose are retried now; false when it cannot.
 */
async function bringRetries(
  context: CheckContext,
  run: WholeRun,
  waitMs: number,
): Promise<{ brought: boolean; note?: string }> {
  const failed = run.failedOnPurpose();
  const clock = run.sandbox.control?.clock;
  if (!clock) return { brought: false };
  const reported = run.sandbox.control ? await run.sandbox.control.callbackRetryDelayMs() : undefined;
  const contractMs = Math.max(
    0,
    ...context.contract.model.webhooks.map((w) =>
      typeof w.delivery.retry_interval_seconds === 'number' ? w.delivery.retry_interval_seconds * 1000 : 0,
    ),
  );
  const intervalMs = reported && 'ms' in reported ? reported.ms : contractMs;
  const moved = await clock.advance(intervalMs + 1);
  if (!moved.ok)
    return { brought: false, note: `the target's clock could not be moved to bring retries on: ${moved.reason}` };
  const bodies = [...failed.keys()].map((seq) => run.receiver.deliveries()[seq]?.bodyText);
  await until(
    () => bodies.every((body) => run.receiver.deliveries().filter((d) => d.bodyText === body).length > 1),
    Math.min(waitMs, 3_000),
  );
  await quiet(run, 2_000);
  return {
    brought: true,
    note: `retries brought on by moving the target's clock ${intervalMs + 1} ms (${clock.operation.operationId}) at the end of the run`,
  };
}

async function runCallbackDeliveries(context: CheckContext): Promise<CheckResult[]> {
  const webhooks = context.contract.model.webhooks.filter((w) =>
    context.selected('callback_deliveries', w.operationId),
  );
  const run = context.callbackRun;
  if (webhooks.length === 0) return [];
  if (!run) {
    return webhooks.map((w) => ({
      check: 'callback_deliveries',
      subject: w.operationId,
      outcome: 'skipped',
      cases: 0,
      findings: [],
      skippedReason:
        'no callback receiver for the whole run: pass --callback-listen HOST:PORT (and --callback-public-url when the target reaches it at another address)',
    }));
  }
  const waitMs = context.options.callbacks?.waitMs ?? DEFAULT_WAIT_MS;
  const serviceOperation = operationLocator(context.contract.model.operations, context.options.baseUrl);
  const control = run.sandbox.control;
  const controlOperation = control
    ? operationLocator(control.contract.model.operations, context.options.baseUrl)
    : undefined;
  const input = (retriesBrought: boolean): JudgeInput => ({
    contract: context.contract,
    http: context.http,
    deliveries: run.receiver.deliveries(),
    exchanges: run.log.exchanges(),
    serviceOperation,
    simulation: (method, url) => {
      const operation = controlOperation?.(method, url);
      return operation ? control?.simulations.find((s) => s.operation === operation) : undefined;
    },
    receiverUrl: run.receiver.publicUrl,
    dashboardReaches: run.dashboard.reaches,
    tokenGiven: context.options.callbacks?.token !== undefined,
    failedOnPurpose: run.failedOnPurpose(),
    retriesBrought,
    waitMs,
    webhooks,
  });
  const tell = (event: ProgressEvent): void => context.options.onProgress?.(event);
  const retries = await bringRetries(context, run, waitMs);
  // Judged as soon as every callback the run caused has arrived, or when the wait is over.
  const started = performance.now();
  let judged = judgeDeliveries(input(retries.brought));
  if (judged.missing > 0) {
    tell({
      kind: 'waiting',
      check: 'callback_deliveries',
      what: 'callbacks the run caused',
      untilMs: started + waitMs,
    });
    await until(() => (judged = judgeDeliveries(input(retries.brought))).missing === 0, waitMs);
    tell({
      kind: 'waited',
      check: 'callback_deliveries',
      what: 'callbacks the run caused',
      tookMs: performance.now() - started,
    });
  }
  const { results } = judged;
  const setup = run.dashboard.reaches
    ? `the dashboard callback settings: ${run.dashboard.how}`
    : `the dashboard callback settings do not reach the receiver: ${run.dashboard.reason}`;
  for (const result of results)
    result.notes = [...(result.notes ?? []), setup, ...(retries.note ? [retries.note] : [])];
  return results;
}

export const callbackDeliveries: Check = {
  name: 'callback_deliveries',
  description:
    'Every callback delivered while the run lasted is valid, carries the right token, reports an object the run made with the values the contract derives from it, follows a transition the state machines say sends it, and is not sent again once acknowledged; every transition the run caused that sends a callback brought one.',
  run: runCallbackDeliveries,
};
