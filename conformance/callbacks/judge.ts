// Findings about the deliveries of one triggered event: each came by POST as the webhook the suite
// triggered, with the right token and a body valid against the webhook's schema carrying what the
// contract says this event leads to (after an update, the update's values and the state it led to, not the
// creation's); and, for the event whose deliveries the receiver failed, the retries went as `x-delivery`
// says, timed by the receiver or, when the suite moved the target's clock, from the target's own delivery
// records, net of the moves of that clock the suite made (spacing.ts). Redeliveries are fine: delivery is
// at least once.
import { isDeepStrictEqual } from 'node:util';
import type { Contract } from '../contract.js';
import type { Finding } from '../types.js';
import { getAt, sameValue } from './fields.js';
import { bodyIssues } from './identify.js';
import type { Delivery } from './receiver.js';
import type { RetryExpectation } from './retry.js';
import type { ClockMove, RecordedDelivery } from './sandbox.js';
import { judgeSpacing, type UnexplainedMove } from './spacing.js';
import type { CallbackEvent, Change, Expectation } from './events.js';

const EXCERPT = 300;

/**
 * By the key in the URL the suite gave, or by a value only this event's requests carried (a dashboard URL
 * has no key of ours), unless its URL or its `event` field names another webhook: creating an account to
 * pay it also sends the account's own callback, with the same identifiers.
 */
export function belongsTo(event: CallbackEvent, delivery: Delivery): boolean {
  if (delivery.identified.key === event.key) return true;
  const { webhook, by } = delivery.identified;
  if (webhook !== undefined && webhook !== event.webhook && by !== 'schema') return false;
  return Object.entries(event.correlation).some(([field, value]) => getAt(delivery.json, field) === value);
}

function deliveryFinding(delivery: Delivery, message: string, curl: string, schemaPath?: string): Finding {
  const text = delivery.bodyText.replace(/\s+/g, ' ');
  return {
    severity: 'failure',
    message,
    curl,
    bodyExcerpt: text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text,
    ...(schemaPath === undefined ? {} : { schemaPath }),
  };
}

/** Whether the delivery's body carries one of the values the expectation allows there. */
export function carries(delivery: Delivery, expectation: Expectation): boolean {
  const value = getAt(delivery.json, expectation.field);
  return expectation.allowed.some((candidate) => sameValue(candidate, value, expectation.instant));
}

/**
 * Whether a delivery of the event is the callback of its last step rather than an earlier callback of the
 * same object (its creation's, which carries the same identifiers): it carries a value only that step set.
 * Without such values, or when nothing earlier sends this webhook, every delivery is the step's.
 */
export function isStepDelivery(change: Change | undefined, delivery: Delivery): boolean {
  if (!change?.earlier || change.marks.length === 0) return true;
  return change.marks.some((mark) => carries(delivery, mark));
}

/** What is wrong with one delivery of `event`, judged against `expectations`. `curl` replays the request that triggered it. */
export function judgeDelivery(
  contract: Contract,
  event: CallbackEvent,
  delivery: Delivery,
  curl: string,
  expectations: readonly Expectation[] = event.expect,
): Finding[] {
  const webhook = contract.webhook(event.webhook);
  const at = `${event.webhook} delivery ${delivery.seq + 1} for ${event.label}`;
  const findings: Finding[] = [];
  const add = (message: string, schemaPath?: string): void =>
    void findings.push(deliveryFinding(delivery, `${at}: ${message}`, curl, schemaPath));
  if (delivery.method !== 'POST') add(`sent with ${delivery.method}, not POST`);
  const { webhook: identified, by } = delivery.identified;
  if (identified !== undefined && identified !== event.webhook && by !== 'schema')
    add(`arrived as ${identified} (by its ${by}), not ${event.webhook}`);
  const token = delivery.token[webhook.tokenHeader];
  if (token === 'missing') add(`no ${webhook.tokenHeader} header`);
  if (token === 'mismatch') add(`the ${webhook.tokenHeader} header does not match the callback token`);
  if (delivery.tooLarge) add('the body is larger than the receiver accepts');
  else if (delivery.json === undefined) add('the body is not JSON');
  else {
    for (const error of bodyIssues(contract, event.webhook, delivery.json)) {
      add(
        `body does not match the ${webhook.name} schema: ${error.instancePath || '(body)'} ${error.message ?? error.keyword}`,
        error.schemaPath,
      );
    }
    for (const expectation of expectations) {
      if (!carries(delivery, expectation))
        add(
          `${expectation.field} is ${JSON.stringify(getAt(delivery.json, expectation.field))}; ${expectation.source} says ${expectation.allowed.map((v) => JSON.stringify(v)).join(' or ')}`,
        );
    }
  }
  return findings;
}

/**
 * Findings about every delivery of one fired event: each is judged for token and schema; the last step's
 * callbacks also for the change the step made (the values it set, the state it led to). Earlier callbacks of
 * the object (the creation's) are not held to the step's values, but at least one delivery must carry them:
 * a callback of the update that reports the object as it was before is no callback of the update.
 */
export function judgeEvent(
  contract: Contract,
  event: CallbackEvent,
  fired: { curl: string; change?: Change },
  deliveries: readonly Delivery[],
  waitMs: number,
): Finding[] {
  const change = fired.change;
  const stepExpect = [...event.expect, ...(change?.expect ?? []), ...(change?.marks ?? [])];
  const step = deliveries.filter((d) => isStepDelivery(change, d));
  const findings = deliveries.flatMap((delivery) =>
    judgeDelivery(contract, event, delivery, fired.curl, step.includes(delivery) ? stepExpect : []),
  );
  if (change && step.length === 0 && deliveries.length > 0) {
    const values = change.marks
      .map((mark) => `${mark.field} ${mark.allowed.map((v) => JSON.stringify(v)).join(' or ')}`)
      .join(', ');
    const [first] = deliveries;
    findings.push(
      deliveryFinding(
        first as Delivery,
        `no ${event.webhook} delivery for ${event.label} carried the change ${change.step} made (${values}) within ${waitMs} ms; ${deliveries.length} delivery(ies) carried the object as it was before (the earlier transition's callback, or a stale one)`,
        fired.curl,
      ),
    );
  }
  return findings;
}

/** Deliveries grouped by body: the attempts of one callback repeat its body. */
export function byBody(deliveries: readonly Delivery[]): Delivery[][] {
  const groups = new Map<string, Delivery[]>();
  for (const delivery of deliveries)
    groups.set(delivery.bodyText, [...(groups.get(delivery.bodyText) ?? []), delivery]);
  return [...groups.values()];
}

/** Retry findings for an event whose every attempt the receiver failed, timed by the receiver's clock. */
export function judgeRetryEvent(
  event: CallbackEvent,
  deliveries: readonly Delivery[],
  expected: RetryExpectation,
  curl: string,
): Finding[] {
  return byBody(deliveries).flatMap((attempts) => {
    const [first] = attempts;
    if (!first) return [];
    return judgeSpacing(
      attempts.map((d) => d.receivedAt),
      expected,
      [],
    ).problems.map((problem) =>
      deliveryFinding(first, `${event.webhook} retries for ${event.label}: ${problem}`, curl),
    );
  });
}

/** The target's records of the callback whose body the receiver got as `json`. */
export const ownRecords = (records: readonly RecordedDelivery[], json: unknown): RecordedDelivery[] =>
  records.filter((record) => isDeepStrictEqual(record.payload, json));

/** What the target's records say of the timing of its attempts, and the suite's own part in it. */
export interface RecordedTiming {
  records: readonly RecordedDelivery[];
  /** Where they were listed (an operationId), for messages. */
  listedBy: string;
  /** The suite's moves of the target's clock. */
  moves: readonly ClockMove[];
  /** Moves the suite did not make, found while the attempts were timed. */
  unexplained?: UnexplainedMove;
}

/**
 * Retry findings for an event whose every attempt the receiver failed while the suite moved the target's
 * clock: the spacing is judged in the target's own time, from the delivery records it lists, net of the
 * suite's moves; the attempts the receiver got must be as many as the records say and as `x-delivery` says,
 * none after the last (the clock was moved past the latest time one more could come). Gaps the records and
 * moves cannot decide come back as `unjudged`.
 */
export function judgeRecordedRetries(
  event: CallbackEvent,
  deliveries: readonly Delivery[],
  timing: RecordedTiming,
  expected: RetryExpectation,
  curl: string,
): { findings: Finding[]; unjudged: string[] } {
  const { listedBy } = timing;
  const unjudged: string[] = [];
  const findings = byBody(deliveries).flatMap((attempts) => {
    const [first] = attempts;
    if (!first) return [];
    const own = ownRecords(timing.records, first.json);
    const problems: string[] = [];
    if (attempts.length !== expected.attempts)
      problems.push(
        `the receiver got ${attempts.length} attempt(s) while it failed every one; x-delivery.attempts is ${expected.attempts}`,
      );
    if (own.length === 0)
      problems.push(
        `${listedBy} lists no delivery with this body, so its attempts cannot be timed in the target's time`,
      );
    for (const record of own) {
      if (record.attemptTimes.length !== attempts.length)
        problems.push(
          `${listedBy} records ${record.attemptTimes.length} attempt(s) of it; the receiver got ${attempts.length}`,
        );
      const spacing = judgeSpacing(record.attemptTimes, expected, timing.moves, timing.unexplained);
      problems.push(...spacing.problems.map((problem) => `${problem}, in the target's time (${listedBy})`));
      unjudged.push(
        ...spacing.unjudged.map(
          (gap) => `${event.webhook} retries for ${event.label}: ${gap}, in the target's time (${listedBy})`,
        ),
      );
    }
    return problems.map((problem) =>
      deliveryFinding(first, `${event.webhook} retries for ${event.label}: ${problem}`, curl),
    );
  });
  return { findings, unjudged };
}
