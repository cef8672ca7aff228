// The durable callback outbox. A delivery is a record written in the transaction that makes the change it
// reports, so it exists if and only if the change does; the dispatcher (dispatcher.ts) sends it after the
// commit and records every attempt. Payloads are checked against the webhook's schema here, at enqueue, so
// a change whose callback would break the contract fails (and rolls back) instead of being stored.
import {
  buildWebhookDelivery,
  webhookMetadata,
  type WebhookEvents,
  type WebhookKind,
} from '@payments-contract/client/webhooks';
import { webhookValidators } from '@payments-contract/client/validators/webhooks';
import type { components } from '@payments-contract/server/sandbox/types';
import type { Callbacks, Clock, Ids, Settings } from '../context.js';
import type { CollectionDefinition, Json, Scope, Store, Transaction } from '../store/store.js';
import { contractFacts, isWebhookKind } from '../platform/contract-facts.js';
import { controlListLimit } from '../contract.js';
import type { Scheduler } from '../platform/scheduler.js';
import { createRetention, type RetentionOptions } from './retention.js';
import type { CheckedPayloads } from './checked-payloads.js';

export const DELIVERIES_COLLECTION = 'sandbox_callback_deliveries';
export const outboxCollections: CollectionDefinition[] = [
  { name: DELIVERIES_COLLECTION, indexed: ['state', 'webhook'] },
];

type ControlSchemas = components['schemas'];
export type DeliveryState = ControlSchemas['CallbackDelivery']['state'];
export type DeliveryAttempt = ControlSchemas['CallbackDeliveryAttempt'];
/** A stored delivery: the control API's `CallbackDelivery`, whose payload is JSON as the store keeps it. */
export type DeliveryRecord = Omit<ControlSchemas['CallbackDelivery'], 'payload'> & { payload: { [key: string]: Json } };

export const NO_CALLBACK_URL = 'no callback URL configured';

export interface ListFilter {
  state?: DeliveryState;
  webhook?: string;
}

export type ResendOutcome = { kind: 'resent'; delivery: DeliveryRecord } | { kind: 'not_found' } | { kind: 'pending' };

export interface Outbox extends Callbacks {
  /** The scope's newest deliveries matching `filter`, newest first: at most LISTED_DELIVERIES. */
  list(scope: Scope, filter?: ListFilter): Promise<DeliveryRecord[]>;
  get(scope: Scope, id: string): Promise<DeliveryRecord | undefined>;
  /** A fresh delivery of a delivered or failed delivery's payload, to the URL configured now. */
  resend(scope: Scope, id: string): Promise<ResendOutcome>;
}

export interface OutboxOptions {
  store: Store;
  clock: Clock;
  ids: Ids;
  settings: Settings;
  /**
   * Where a pending delivery's first attempt is scheduled, in the enqueuing transaction (held by this sandbox,
   * which makes it once that transaction is over: no claim of its own). Without it, nothing is sent.
   */
  scheduler?: Pick<Scheduler, 'schedule'>;
  /** How many finished deliveries are kept (retention.ts). */
  retention?: RetentionOptions;
  /**
   * Whether a listener of the scope is live (listeners.ts): a callback with no URL is then kept pending for
   * it instead of failing at once (decision sandbox-callback-listeners).
   */
  listening?: (scope: Scope) => boolean;
  /** Told of each pending delivery whose payload was checked here, so that its first attempt need not check it again. */
  checked?: Pick<CheckedPayloads, 'add'>;
}

function isJsonObject(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks the payload against the webhook's schema (throws WebhookPayloadError) and whether `url` can be sent
 * to: the checks the sender makes, without building the request (its body's text, its headers), which each
 * attempt builds with the token of its time.
 */
function checkDelivery(kind: WebhookKind, payload: Json, url: string | null): { urlProblem: string | null } {
  // A payload that breaks the schema is built once to throw the sender's own error, with every rule it breaks.
  // The token is read again at each attempt, so a placeholder stands in; so does a URL when there is none.
  if (!webhookValidators[kind](payload))
    buildWebhookDelivery(kind, payload as WebhookEvents[WebhookKind], {
      callbackToken: 'check',
      url: 'http://callback.invalid/',
    });
  return { urlProblem: url === null || URL.canParse(url) ? null : `the callback URL is not an absolute URL: ${url}` };
}

/**
 * At most how many deliveries a list holds: the control contract's bound on listCallbackDeliveries. Retention
 * keeps more than that at times (it looks every so many deliveries, and never removes a pending one).
 */
export const LISTED_DELIVERIES = controlListLimit('listCallbackDeliveries');

/**
 * The newest `limit` of the records `page` reads (newest first, a page at a time) that `keep` accepts: for a
 * filter on two fields, as the store looks up one. Each page is `limit` records, so memory stays bounded.
 */
async function newestKept<T>(
  page: (offset: number, limit: number) => Promise<T[]>,
  keep: (record: T) => boolean,
  limit: number,
): Promise<T[]> {
  const kept: T[] = [];
  for (let offset = 0; ; offset += limit) {
    const records = await page(offset, limit);
    for (const record of records) if (keep(record) && kept.push(record) === limit) return kept;
    if (records.length < limit) return kept;
  }
}

/** The scheduler's kind of a delivery's next attempt (its target: the delivery's id). */
export const CALLBACK_JOB = 'callback';

export function createOutbox(options: OutboxOptions): Outbox {
  const { store, clock, ids, settings } = options;
  const retention = createRetention(DELIVERIES_COLLECTION, options.retention);

  const enqueue = async (
    tx: Transaction,
    scope: Scope,
    webhookOperationId: string,
    payload: Json,
    url: string | null,
    resentFrom: string | null,
  ): Promise<DeliveryRecord> => {
    if (!isWebhookKind(webhookOperationId)) throw new Error(`${webhookOperationId} is not a webhook of the contract`);
    if (!isJsonObject(payload)) throw new Error(`${webhookOperationId}: a callback payload is a JSON object`);
    const { urlProblem } = checkDelivery(webhookOperationId, payload, url);
    const metadata = webhookMetadata[webhookOperationId];
    const now = clock.now(scope).toISOString();
    const failure = url === null ? (options.listening?.(scope) ? null : NO_CALLBACK_URL) : urlProblem;
    const record: DeliveryRecord = {
      id: ids.next(),
      webhook: webhookOperationId,
      event: metadata.name,
      url,
      state: failure === null ? 'pending' : 'failed',
      payload,
      attempts: [],
      max_attempts: metadata.delivery.attempts,
      next_attempt_at: failure === null ? now : null,
      alert: false,
      failure_reason: failure,
      resent_from: resentFrom,
      created: now,
      updated: now,
    };
    await tx.insert(DELIVERIES_COLLECTION, scope, record);
    await retention.recorded(tx, scope);
    if (record.state !== 'pending') return record;
    options.checked?.add(record.id);
    // The dispatcher schedules every pending delivery without a job at its start: a first attempt due now
    // need not be written as a job where no other sandbox could take it over (ScheduleOptions).
    await options.scheduler?.schedule(tx, scope, CALLBACK_JOB, record.id, Date.parse(now), { recoveredAtStart: true });
    return record;
  };

  return {
    enqueue: async (tx, scope, webhookOperationId, payload, url) =>
      void (await enqueue(tx, scope, webhookOperationId, payload, url, null)),
    // Bounded in the store (FindOptions.limit), so a long history is neither read nor answered whole.
    list: async (scope, { state, webhook } = {}) => {
      const newest = { limit: LISTED_DELIVERIES };
      if (state && webhook) {
        const page = (offset: number, limit: number) =>
          store.findBy<DeliveryRecord>(DELIVERIES_COLLECTION, scope, 'webhook', webhook, { offset, limit });
        return newestKept(page, (record) => record.state === state, LISTED_DELIVERIES);
      }
      if (state) return store.findBy<DeliveryRecord>(DELIVERIES_COLLECTION, scope, 'state', state, newest);
      if (webhook) return store.findBy<DeliveryRecord>(DELIVERIES_COLLECTION, scope, 'webhook', webhook, newest);
      return store.list<DeliveryRecord>(DELIVERIES_COLLECTION, scope, newest);
    },
    get: (scope, id) => store.get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, id),
    resend: (scope, id) =>
      store.transaction(async (tx): Promise<ResendOutcome> => {
        const original = await tx.get<DeliveryRecord>(DELIVERIES_COLLECTION, scope, id);
        if (!original) return { kind: 'not_found' };
        if (original.state === 'pending') return { kind: 'pending' };
        // Dashboard kinds go where the merchant points them now (a URL set after a failure is used);
        // a direct debit callback goes to the payment's own callback_url again.
        const setting = isWebhookKind(original.webhook) ? contractFacts().callbackSettingOf(original.webhook) : null;
        const url = setting === null ? original.url : ((await settings.get(scope)).callback_urls[setting] ?? null);
        return {
          kind: 'resent',
          delivery: await enqueue(tx, scope, original.webhook, original.payload, url, original.id),
        };
      }),
  };
}
