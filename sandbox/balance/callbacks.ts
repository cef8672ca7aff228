// Typed access to the outbox for the money-in modules: the payload is checked against the webhook's
// generated type at compile time (the outbox checks it against the schema at run time), and the URL is
// the dashboard setting the webhook's `x-delivery.destination` names, not a literal.
import { webhookMetadata, type WebhookEvents, type WebhookKind } from '@payments-contract/client/webhooks';
import type { Json, MerchantSettings, SandboxContext, Scope, Transaction } from '../context.js';

/** A generated payload type as the outbox stores it: JSON, optional fields that are absent left out. */
export function toJson(value: unknown): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${value} is not a JSON number`);
    return value;
  }
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object') {
    const object: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) if (item !== undefined) object[key] = toJson(item);
    return object;
  }
  throw new TypeError(`a ${typeof value} is not JSON`);
}

/** The merchant's URL for a webhook delivered to a dashboard setting; null when none is configured. */
export function dashboardCallbackUrl(kind: WebhookKind, settings: MerchantSettings): string | null {
  const destination = webhookMetadata[kind].delivery.destination;
  if (!('dashboard_setting' in destination)) throw new Error(`${kind} is not delivered to a dashboard setting`);
  return settings.callback_urls[destination.dashboard_setting] ?? null;
}

/** Records the callback in the transaction that makes the change it reports (delivered after commit). */
export async function enqueueDashboardCallback<K extends WebhookKind>(
  ctx: Pick<SandboxContext, 'callbacks'>,
  tx: Transaction,
  scope: Scope,
  kind: K,
  payload: WebhookEvents[K],
  settings: MerchantSettings,
): Promise<void> {
  await ctx.callbacks.enqueue(tx, scope, kind, toJson(payload), dashboardCallbackUrl(kind, settings));
}
