// Findings about the deliveries of one triggered event: each came by POST as the webhook the suite
// triggered, with the right token and a body valid against the webhook's schema carrying what the
// contract says this event leads to; and, for the event whose deliveries the receiver failed, the
// retries went as `x-delivery` says. Redeliveries are fine: delivery is at least once.
import { isDeepStrictEqual } from 'node:util';
import type { Contract } from '../contract.js';
import type { Finding } from '../types.js';
import { getAt } from './fields.js';
import { bodyIssues } from './identify.js';
import type { Delivery } from './receiver.js';
import { judgeRetries, type RetryExpectation } from './retry.js';
import type { CallbackEvent } from './events.js';

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

/** What is wrong with one delivery of `event`. `curl` replays the request that triggered it. */
export function judgeDelivery(contract: Contract, event: CallbackEvent, delivery: Delivery, curl: string): Finding[] {
  const webhook = contract.webhook(event.webhook);
  const at = `${event.webhook} delivery ${delivery.seq + 1} for ${event.label}`;
  const findings: Finding[] = [];
  const add = (message: string, schemaPath?: string): void => void findings.push(deliveryFinding(delivery, `${at}: ${message}`, curl, schemaPath));
  if (delivery.method !== 'POST') add(`sent with ${delivery.method}, not POST`);
  const { webhook: identified, by } = delivery.identified;
  if (identified !== undefined && identified !== event.webhook && by !== 'schema') add(`arrived as ${identified} (by its ${by}), not ${event.webhook}`);
  const token = delivery.token[webhook.tokenHeader];
  if (token === 'missing') add(`no ${webhook.tokenHeader} header`);
  if (token === 'mismatch') add(`the ${webhook.tokenHeader} header does not match the callback token`);
  if (delivery.tooLarge) add('the body is larger than the receiver accepts');
  else if (delivery.json === undefined) add('the body is not JSON');
  else {
    for (const error of bodyIssues(contract, event.webhook, delivery.json)) {
      add(`body does not match the ${webhook.name} schema: ${error.instancePath || '(body)'} ${error.message ?? error.keyword}`, error.schemaPath);
    }
    for (const { field, allowed, source } of event.expect) {
      const value = getAt(delivery.json, field);
      if (!allowed.some((candidate) => isDeepStrictEqual(candidate, value))) add(`${field} is ${JSON.stringify(value)}; ${source} says ${allowed.map((v) => JSON.stringify(v)).join(' or ')}`);
    }
  }
  return findings;
}

/** Deliveries grouped by body: the attempts of one callback repeat its body. */
export function byBody(deliveries: readonly Delivery[]): Delivery[][] {
  const groups = new Map<string, Delivery[]>();
  for (const delivery of deliveries) groups.set(delivery.bodyText, [...(groups.get(delivery.bodyText) ?? []), delivery]);
  return [...groups.values()];
}

/** Retry findings for an event whose every attempt the receiver failed. */
export function judgeRetryEvent(event: CallbackEvent, deliveries: readonly Delivery[], expected: RetryExpectation, curl: string): Finding[] {
  return byBody(deliveries).flatMap((attempts) => {
    const [first] = attempts;
    if (!first) return [];
    return judgeRetries(attempts.map((d) => d.receivedAt), expected).map((problem) => deliveryFinding(first, `${event.webhook} retries for ${event.label}: ${problem}`, curl));
  });
}
