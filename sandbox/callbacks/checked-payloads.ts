// Deliveries whose payload this process checked against its webhook's schema as it recorded them (outbox.ts),
// so that their first attempt (dispatcher.ts) builds the request without checking the same payload again:
// the stored payload is what was checked, by the same contract. A delivery recorded by another process (a
// sandbox sharing the database, or this sandbox before a restart, perhaps on another contract version) is
// checked again at its attempt, as is a retry. Bounded: past `limit` deliveries not attempted yet, the oldest
// is forgotten, and checked again when it is attempted.
import {
  buildDelivery,
  type WebhookDelivery,
  type WebhookDeliveryOptions,
} from '@payments-contract/client/runtime/webhook-sender';
import {
  buildWebhookDelivery,
  webhookMetadata,
  type WebhookEvents,
  type WebhookKind,
} from '@payments-contract/client/webhooks';

export interface CheckedPayloads {
  /** The delivery `id`'s payload was checked as it was recorded. */
  add(id: string): void;
  /** The delivery `id` ready to send: checked again unless this process checked it as it was recorded (once). */
  build<K extends WebhookKind>(
    id: string,
    kind: K,
    payload: WebhookEvents[K],
    options: WebhookDeliveryOptions,
  ): WebhookDelivery;
}

/** Deliveries remembered at most; a hanging receiver's are attempted at once, so few wait. */
export const CHECKED_PAYLOADS_LIMIT = 4096;

/** Each webhook as the sender builds it, with its payload taken as checked. */
const alreadyChecked = Object.fromEntries(
  Object.entries(webhookMetadata).map(([kind, metadata]) => [kind, { ...metadata, validate: () => true }]),
) as { [K in WebhookKind]: (typeof webhookMetadata)[K] & { validate: () => boolean } };

export function createCheckedPayloads(limit = CHECKED_PAYLOADS_LIMIT): CheckedPayloads {
  // A Set keeps insertion order: its first entry is the oldest.
  const checked = new Set<string>();
  return {
    add: (id) => {
      checked.add(id);
      if (checked.size > limit) checked.delete(checked.values().next().value as string);
    },
    build: (id, kind, payload, options) => {
      if (!checked.delete(id)) return buildWebhookDelivery(kind, payload, options);
      return buildDelivery(alreadyChecked[kind], payload, options);
    },
  };
}
