// What the webhook receiver and sender know about one webhook. Generic: generated/webhooks.ts passes the
// contract's webhooks in.
import type { Validator } from './validator.js';

/** `x-delivery` on a webhook: how the service delivers it (shape in spec/x-extensions.yaml, `delivery`). */
export interface DeliveryRules {
  readonly destination:
    | { readonly dashboard_setting: string }
    | { readonly request_field: { readonly operation: string; readonly field: string } };
  readonly acknowledgement: '2xx';
  /** The answers that acknowledge an attempt, inclusive (decision callback-retry-all-kinds). */
  readonly acknowledging_statuses?: {
    readonly minimum: number;
    readonly maximum: number;
    readonly decisions: readonly string[];
  };
  /** Attempts in total, the first one included. */
  readonly attempts: number;
  readonly retry_interval_seconds: number;
  readonly guarantee: 'at-least-once';
  /** An acknowledged callback is never sent again (decision callback-redelivery-after-failure). */
  readonly redelivery?: { readonly only: 'after_failed_attempt'; readonly decision: string };
  readonly ordering: 'none';
  readonly after_final_failure: 'alert';
}

/** One webhook as the contract describes it. */
export interface WebhookMetadata {
  /** The webhook's key in the contract, e.g. `ewallet.payment`; also the value of a body's `event` field. */
  readonly name: string;
  readonly operationId: string;
  readonly summary: string;
  /** The header carrying the callback token, lower case. */
  readonly tokenHeader: string;
  readonly delivery: DeliveryRules;
}

export interface WebhookDefinition extends WebhookMetadata {
  /** The compiled validator of the webhook's body schema. */
  readonly validate: Validator;
}

/**
 * Narrows `payload` to the webhook's payload type. The type and the validator are both generated from
 * the same schema, so a payload the validator accepts has the type.
 */
export function conforms<Payload>(validate: Validator, payload: unknown): payload is Payload {
  return validate(payload);
}
