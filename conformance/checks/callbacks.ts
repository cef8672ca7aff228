// Check 7, callbacks: the suite runs its own receiver, causes each webhook through what the contract
// offers (test mode, state-machine transitions, the sandbox control API's simulations; with that API the
// suite also points the dashboard callback settings at its receiver, and puts them back after the run)
// and judges what arrives: it arrives within a bounded wait, with the right token, valid against the
// webhook's schema and carrying the outcome the contract says (after an update, the update's values and the
// state its transition leads to); redeliveries are accepted; and when the receiver fails every attempt of
// one event per webhook, the attempts and their spacing follow `x-delivery`. Against a target whose control
// contract can move its clock and lists its deliveries, the retries are brought on by moving the clock and
// timed in the target's own time from its records (callbacks/clock.ts), net of the suite's own moves and
// only while no other case moves that clock (callbacks/fire.ts, callbacks/spacing.ts); against any other,
// the suite waits for them in real time. A webhook the suite cannot cause here is skipped with the reason,
// never passed; a retry gap the data cannot decide is reported unchecked, never passed.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { WebhookModel } from '@payments-contract/contract/model/types';
import { driveRetries, readOffset, unexplainedMove, type OffsetReading, type TimedRetry } from '../callbacks/clock.js';
import { fireAll, type Watched } from '../callbacks/fire.js';
import {
  belongsTo,
  byBody,
  isStepDelivery,
  judgeEvent,
  judgeRecordedRetries,
  judgeRetryEvent,
  type RecordedTiming,
} from '../callbacks/judge.js';
import { dashboardSettings, pointDashboardAtReceiver } from '../callbacks/dashboard.js';
import { createSupply } from '../callbacks/prerequisites.js';
import { startReceiver, type CallbackReceiver, type Delivery } from '../callbacks/receiver.js';
import { retryExpectation, retryWindowMs, type RetryExpectation } from '../callbacks/retry.js';
import {
  probeSandbox,
  type ControlClock,
  type ControlDeliveries,
  type SandboxStatus,
  type SettingsChange,
} from '../callbacks/sandbox.js';
import { deriveTriggers, type CallbackEvent, type Fired, type TriggerSource } from '../callbacks/triggers.js';
import { outcomeOf } from '../results.js';
import type { Check, CheckContext, CheckResult, Finding, ProgressEvent } from '../types.js';

const DEFAULT_WAIT_MS = 15_000;

const skipped = (webhook: string, reason: string, notes: string[] = []): CheckResult => ({
  check: 'callbacks',
  subject: webhook,
  outcome: 'skipped',
  cases: 0,
  findings: [],
  skippedReason: reason,
  ...(notes.length > 0 ? { notes } : {}),
});

interface Plan {
  webhook: WebhookModel;
  sources: TriggerSource[];
  events: CallbackEvent[];
  retry?: { event: CallbackEvent; expected: RetryExpectation; source: string };
}

/** A spacing of callback attempts to judge retries against instead of the contract's, and where it came from. */
interface RetrySpacing {
  ms: number;
  source: string;
}

type FiredWatch = { event: CallbackEvent; fired: Extract<Fired, { fired: true }> };

/** How the retries of a timed event were brought on, and what the target recorded of them. */
type RetryDrive =
  | { by: 'real time' }
  | { by: 'clock'; clock: ControlClock; deliveries: ControlDeliveries; timing: RecordedTiming }
  | { by: 'clock'; clock: ControlClock; deliveries: ControlDeliveries; failed: string };

const describeEvent = (event: CallbackEvent): string => `${event.webhook} for ${event.label}`;

/** Waits for the event's first delivery (of its last step, when the event has several), telling progress. */
async function awaitFirst(
  receiver: CallbackReceiver,
  { event, fired }: FiredWatch,
  waitMs: number,
  tell: (event: ProgressEvent) => void,
): Promise<boolean> {
  const what = describeEvent(event);
  const started = performance.now();
  tell({ kind: 'waiting', check: 'callbacks', what, untilMs: started + waitMs });
  const first = await receiver.waitFor((d) => belongsTo(event, d) && isStepDelivery(fired.change, d), waitMs);
  tell({ kind: 'waited', check: 'callbacks', what, tookMs: performance.now() - started });
  return first !== undefined;
}

/** For the retry event in real time: waits for as long as attempts may still come after the latest first attempt. */
async function awaitRetries(
  receiver: CallbackReceiver,
  event: CallbackEvent,
  expected: RetryExpectation,
  tell: (event: ProgressEvent) => void,
): Promise<void> {
  const window = retryWindowMs(expected);
  const what = `retries of ${describeEvent(event)}`;
  const started = performance.now();
  for (;;) {
    const firsts = byBody(receiver.deliveries().filter((d) => belongsTo(event, d))).map(
      (group) => (group[0] as Delivery).receivedAt,
    );
    const until = Math.max(...firsts) + window;
    const remaining = until - performance.now();
    if (remaining <= 0) break;
    tell({ kind: 'waiting', check: 'callbacks', what, untilMs: until });
    await sleep(remaining);
  }
  tell({ kind: 'waited', check: 'callbacks', what, tookMs: performance.now() - started });
}

/** A missing callback that goes to a dashboard setting may only mean the setting does not point at the receiver. */
function dashboardHint(webhook: WebhookModel, receiver: CallbackReceiver): string {
  const destination = webhook.delivery.destination;
  return 'dashboard_setting' in destination
    ? ` (the target sends it to its dashboard setting ${destination.dashboard_setting}: check that it is ${receiver.publicUrl})`
    : '';
}

function retryFindings(
  plan: Plan,
  event: CallbackEvent,
  deliveries: readonly Delivery[],
  curl: string,
  drive: RetryDrive | undefined,
): { findings: Finding[]; unjudged: string[] } {
  const retry = plan.retry;
  if (!retry || !drive) return { findings: [], unjudged: [] };
  if (drive.by === 'real time')
    return { findings: judgeRetryEvent(event, deliveries, retry.expected, curl), unjudged: [] };
  if ('failed' in drive)
    return {
      findings: [
        {
          severity: 'failure',
          message: `${event.webhook} retries for ${event.label} could not be brought on or read through the sandbox control API: ${drive.failed}`,
          curl,
        },
      ],
      unjudged: [],
    };
  return judgeRecordedRetries(event, deliveries, drive.timing, retry.expected, curl);
}

function judgeWebhook(
  context: CheckContext,
  receiver: CallbackReceiver,
  plan: Plan,
  watched: Watched[],
  waitMs: number,
  drives: ReadonlyMap<CallbackEvent, RetryDrive>,
): CheckResult {
  const { contract, options } = context;
  const id = plan.webhook.operationId;
  const notes = plan.sources
    .filter((s) => s.unavailable !== undefined)
    .map((s) => `not triggered by ${s.via}: ${s.unavailable}`);
  const fired = watched.filter((w) => w.event.webhook === id);
  const notFired = fired.flatMap(({ event, fired: f }) => (f.fired ? [] : [`${event.label}: ${f.reason}`]));
  const triggered = fired.filter((w): w is FiredWatch => w.fired.fired);
  if (triggered.length === 0 && !fired.some((w) => !w.fired.fired && w.fired.serverError !== undefined)) {
    return skipped(
      id,
      notFired.length > 0
        ? `could not be triggered: ${[...new Set(notFired)].join('; ')}`
        : notes.join('; ') || 'nothing in the contract triggers it',
      notFired.length > 0 ? notes : [],
    );
  }
  // A step answered with a 5xx is the target failing to do what causes the callback: a failure, not a gap.
  const findings: Finding[] = fired.flatMap(({ event, fired: f }) =>
    !f.fired && f.serverError !== undefined
      ? [
          {
            severity: 'failure' as const,
            message: `${id} could not be caused by ${event.label}: ${f.reason}`,
            curl: f.serverError,
          },
        ]
      : [],
  );
  const broken = findings.length;
  let redeliveries = 0;
  const unchecked: string[] = [];
  for (const { event, fired: f } of triggered) {
    const deliveries = receiver.deliveries().filter((d) => belongsTo(event, d));
    if (deliveries.length === 0) {
      findings.push({
        severity: 'failure',
        message: `no ${id} delivery for ${event.label} within ${waitMs} ms${dashboardHint(plan.webhook, receiver)}`,
        curl: f.curl,
      });
      continue;
    }
    findings.push(...judgeEvent(contract, event, f, deliveries, waitMs));
    if (f.change?.earlier && f.change.marks.length === 0)
      notes.push(
        `${event.label}: ${f.change.step}'s callback is not told from the earlier one (${f.change.step} changed no value its callback carries)`,
      );
    if (plan.retry?.event === event) {
      const retries = retryFindings(plan, event, deliveries, f.curl, drives.get(event));
      findings.push(...retries.findings);
      unchecked.push(...retries.unjudged);
    } else redeliveries += deliveries.length - byBody(deliveries).length;
  }
  if (options.callbacks?.token === undefined)
    notes.push(`the ${plan.webhook.tokenHeader} value was not compared (no callback token given), only its presence`);
  if (redeliveries > 0)
    notes.push(`${redeliveries} redelivery(ies) of an acknowledged callback accepted (delivery is at least once)`);
  const retry = plan.retry;
  if (retry?.expected.overriddenFromMs !== undefined)
    notes.push(
      `retry spacing judged against ${retry.expected.intervalMs} ms (${retry.source}), not the contract's ${retry.expected.overriddenFromMs} ms`,
    );
  const retryMeasured = retry !== undefined && triggered.some((w) => w.event === retry.event);
  // Not measured is not passed: the run is incomplete, as for a gap the data cannot decide.
  if (retry && !retryMeasured) unchecked.push('retries not measured: the event chosen for it could not be triggered');
  const drive = retry ? drives.get(retry.event) : undefined;
  if (retryMeasured && drive?.by === 'clock') {
    notes.push(
      `retries brought on by moving the target's clock (${drive.clock.operation.operationId}) and timed in its own time from its delivery records (${drive.deliveries.operation.operationId})`,
    );
  }
  notes.push(...notFired.map((reason) => `not triggered: ${reason}`));
  const unique = dedupe(findings);
  return {
    check: 'callbacks',
    subject: id,
    outcome: outcomeOf(unique),
    cases: triggered.length + broken + (retryMeasured ? 1 : 0),
    findings: unique,
    ...(notes.length > 0 ? { notes } : {}),
    ...(unchecked.length > 0 ? { unchecked } : {}),
  };
}

function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => !seen.has(f.message) && Boolean(seen.add(f.message)));
}

/** Deliveries no triggered event claims (a stale retry from an earlier run, a callback of other activity). */
function strays(receiver: CallbackReceiver, events: CallbackEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const delivery of receiver.deliveries()) {
    if (events.some((event) => belongsTo(event, delivery))) continue;
    const webhook = delivery.identified.webhook ?? '(unidentified)';
    counts.set(webhook, (counts.get(webhook) ?? 0) + 1);
  }
  return counts;
}

/**
 * The webhook's events; one's deliveries are failed to time the retries: the first the suite causes itself
 * when there is one, since an object the target finishes by itself may finish before the move of the clock
 * that hastens the others, and that move would then fall inside the gap being measured.
 */
function planWebhook(webhook: WebhookModel, sources: TriggerSource[], spacing: RetrySpacing | undefined): Plan {
  const own = sources.filter((s) => s.webhook === webhook.operationId);
  const events = own.flatMap((s) => s.events);
  const expected = retryExpectation(webhook.delivery, spacing?.ms);
  const first = events.find((e) => e.phase?.finishing === undefined) ?? events[0];
  return {
    webhook,
    sources: own,
    events,
    ...(first && expected
      ? { retry: { event: first, expected, source: spacing?.source ?? "the contract's x-delivery" } }
      : {}),
  };
}

/**
 * The spacing given to the suite (callbacks.retryIntervalMs), else the one a sandbox target reports through
 * its control contract (x-callback-retry-delay), else none: the contract's own.
 */
async function retrySpacing(given: number | undefined, sandbox: SandboxStatus): Promise<RetrySpacing | undefined> {
  if (given !== undefined) return { ms: given, source: 'callbacks.retryIntervalMs' };
  const reported = sandbox.control ? await sandbox.control.callbackRetryDelayMs() : undefined;
  return reported && 'ms' in reported
    ? { ms: reported.ms, source: 'reported by the sandbox through x-callback-retry-delay' }
    : undefined;
}

async function runCallbacks(context: CheckContext, webhooks: WebhookModel[]): Promise<CheckResult[]> {
  const settings = context.options.callbacks;
  if (!settings)
    return webhooks.map((w) =>
      skipped(
        w.operationId,
        'no callback receiver: pass --callback-listen HOST:PORT (and --callback-public-url when the target reaches it at another address)',
      ),
    );
  // The run's receiver listens for the whole run (callbacks/whole-run.ts); one of its own only without it.
  const shared = context.callbackRun?.receiver;
  let receiver: CallbackReceiver;
  if (shared) receiver = shared;
  else
    try {
      receiver = await startReceiver({
        contract: context.contract,
        ...settings.listen,
        ...(settings.publicUrl ? { publicUrl: settings.publicUrl } : {}),
        ...(settings.token ? { token: settings.token } : {}),
      });
    } catch (error) {
      const reason = `the callback receiver could not listen on ${settings.listen.host}:${settings.listen.port}: ${error instanceof Error ? error.message : String(error)}`;
      return webhooks.map((w) => skipped(w.operationId, reason));
    }
  let dashboard: SettingsChange | undefined;
  try {
    // Check 1 compiles a response schema the first time it sees one, which blocks the event loop for a
    // while; done now, it cannot delay the arrivals whose spacing is being timed.
    for (const operation of context.contract.model.operations)
      for (const response of operation.responses)
        if (response.schema !== undefined) context.contract.validate(response.schema, null);
    const runId = randomUUID().slice(0, 8);
    let counter = 0;
    const sandbox = await probeSandbox(context.http);
    dashboard = await pointDashboardAtReceiver(context.contract, sandbox, receiver, `${runId}-dashboard`);
    const sources = deriveTriggers({
      context,
      callbackUrl: receiver.callbackUrl,
      dashboardReachesReceiver: settings.publicUrl !== undefined || dashboard?.ok === true,
      sandbox,
      newKey: () => `${runId}-${++counter}`,
      supply: createSupply(context),
    });
    const spacing = await retrySpacing(settings.retryIntervalMs, sandbox);
    const plans = webhooks.map((webhook) => planWebhook(webhook, sources, spacing));
    // Registered before anything is fired: a callback may arrive before the triggering request returns.
    for (const { retry } of plans)
      if (retry) receiver.failFirst((d) => belongsTo(retry.event, d), retry.expected.attempts);
    const events = plans.flatMap((p) => p.events);
    const waitMs = settings.waitMs ?? DEFAULT_WAIT_MS;
    const timed = new Set(plans.flatMap((p) => (p.retry ? [p.retry.event] : [])));
    const tell = (event: ProgressEvent): void => context.options.onProgress?.(event);
    const firstArrivals = (watched: Watched[]) =>
      Promise.all(
        watched
          .filter((w): w is FiredWatch => w.fired.fired)
          .map(async (w) => ((await awaitFirst(receiver, w, waitMs, tell)) ? [w.event] : [])),
      );
    const drives = new Map<CallbackEvent, RetryDrive>();
    // Each phase settles before the next: its callbacks arrive (all of them when the target finishes them by
    // itself, else the timed ones) and its timed retries are measured while no other case moves the clock.
    const watched = await fireAll(events, timed, context.options.concurrency, async (own) => {
      const before =
        own.some((e) => timed.has(e)) && sandbox.control?.clock ? await readOffset(sandbox.control.clock) : undefined;
      return async (inPhase) => {
        const arrived = (
          await firstArrivals(inPhase.filter((w) => w.event.phase?.finishing !== undefined || timed.has(w.event)))
        ).flat();
        const retries = plans.flatMap((p): TimedRetry[] =>
          p.retry && arrived.includes(p.retry.event) ? [{ event: p.retry.event, expected: p.retry.expected }] : [],
        );
        if (retries.length === 0) return;
        const drive = await bringRetries(sandbox, receiver, retries, before, tell);
        for (const retry of retries) drives.set(retry.event, drive);
      };
    });
    await firstArrivals(watched);
    const results = plans.map((plan) =>
      plan.events.length === 0
        ? skipped(
            plan.webhook.operationId,
            plan.sources.map((s) => `${s.via}: ${s.unavailable ?? 'no event'}`).join('; ') ||
              'nothing in the contract triggers it',
          )
        : judgeWebhook(context, receiver, plan, watched, waitMs, drives),
    );
    for (const [webhook, count] of strays(receiver, events)) {
      const result = results.find((r) => r.subject === webhook);
      if (result)
        result.notes = [
          ...(result.notes ?? []),
          `${count} delivery(ies) matched no event of this check${shared ? ' (the callback_deliveries check judges every delivery of the run)' : ' and were not judged'}`,
        ];
    }
    const setup = dashboardNote(dashboard, sandbox);
    const viaDashboard = [...dashboardSettings(webhooks).values()].flat();
    for (const result of results)
      if (setup && viaDashboard.includes(result.subject)) result.notes = [...(result.notes ?? []), setup];
    return results;
  } finally {
    if (dashboard?.ok) await dashboard.undo();
    if (!shared) await receiver.close();
  }
}

/**
 * Brings on the attempts of the timed callbacks: by moving the target's clock when its control contract says
 * how (and lists the deliveries, to time them in the target's time), else by waiting for them in real time.
 * `before` read the clock before the events were fired: a move the suite did not make since then is found.
 */
async function bringRetries(
  sandbox: SandboxStatus,
  receiver: CallbackReceiver,
  retries: TimedRetry[],
  before: OffsetReading | { reason: string } | undefined,
  tell: (event: ProgressEvent) => void,
): Promise<RetryDrive> {
  const clock = sandbox.control?.clock;
  const deliveries = sandbox.control?.deliveries;
  if (!clock || !deliveries) {
    await Promise.all(retries.map((r) => awaitRetries(receiver, r.event, r.expected, tell)));
    return { by: 'real time' };
  }
  const failed = (reason: string): RetryDrive => ({ by: 'clock', clock, deliveries, failed: reason });
  if (!before || 'reason' in before)
    return failed(
      `the target's time could not be read before its callbacks were caused: ${before?.reason ?? 'not read'}`,
    );
  const driven = await driveRetries(clock, deliveries, receiver, retries, tell);
  if ('reason' in driven) return failed(driven.reason);
  const after = await readOffset(clock);
  if ('reason' in after) return failed(`the target's time could not be read after its retries: ${after.reason}`);
  const unexplained = unexplainedMove(before, after, clock);
  return {
    by: 'clock',
    clock,
    deliveries,
    timing: {
      records: driven.records,
      listedBy: deliveries.operation.operationId,
      moves: clock.moves(),
      ...(unexplained ? { unexplained } : {}),
    },
  };
}

/** What the suite did to, or could not do to, the target's dashboard settings. */
function dashboardNote(dashboard: SettingsChange | undefined, sandbox: SandboxStatus): string | undefined {
  const operation = sandbox.control?.callbackSettings?.operation.operationId;
  if (!dashboard || operation === undefined) return undefined;
  return dashboard.ok
    ? `the dashboard callback settings were pointed at the receiver through the sandbox control API (${operation}) and restored afterwards`
    : `the dashboard callback settings could not be pointed at the receiver: ${dashboard.reason}`;
}

export const callbacks: Check = {
  name: 'callbacks',
  description:
    "The target's callbacks, caused through the contract's test mode and state machines, arrive with the right token and a valid body, and are retried as x-delivery says.",
  run: async (context) =>
    runCallbacks(
      context,
      context.contract.model.webhooks.filter((w) => context.selected('callbacks', w.operationId)),
    ),
};
