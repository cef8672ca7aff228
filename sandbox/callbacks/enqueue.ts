// Typed access to the outbox for the modules: the payload is checked against the webhook's generated type
// at compile time (the outbox checks it against the schema at run time), and the URL is the dashboard
// setting the webhook's `x-delivery.destination` names, not a literal.
import { webhookMetadata, type WebhookEvents, type WebhookKind } from '@payments-contract/client/webhooks';
import type { SandboxSettings, SandboxContext, Scope, Transaction } from '../context.js';
import { toJson } from '../json.js';

/** The merchant's URL for a webhook delivered to a dashboard setting; null when none is configured. */
export function dashboardCallbackUrl(kind: WebhookKind, settings: Readonly<SandboxSettings>): string | null {
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
  settings: Readonly<SandboxSettings>,
): Promise<void> {
  await ctx.callbacks.enqueue(tx, scope, kind, toJson(payload), dashboardCallbackUrl(kind, settings));
}
