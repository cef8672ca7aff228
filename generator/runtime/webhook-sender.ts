// The service's side of the webhooks (the sandbox and tests): builds the HTTP request that delivers one
// webhook, after checking the payload against the webhook's schema, because a callback that breaks the
// contract must never leave the service.
import { toIssues, type ValidationIssue } from './validation-errors.js';
import type { WebhookDefinition } from './webhook-definition.js';

/** One delivery attempt's request, as data (to store, retry or send). */
export interface WebhookDelivery<TokenHeader extends string = string> {
  readonly url: string;
  readonly method: 'POST';
  readonly headers: { readonly 'content-type': 'application/json' } & { readonly [Header in TokenHeader]: string };
  readonly body: string;
}

export interface WebhookDeliveryOptions {
  /** The merchant's callback token for this mode. */
  readonly callbackToken: string;
  /** The merchant's endpoint, an absolute URL. */
  readonly url: string;
}

/** A payload that breaks its webhook's schema; `issues` lists every broken rule. */
export class WebhookPayloadError extends Error {
  override readonly name = 'WebhookPayloadError';

  constructor(
    readonly operationId: string,
    readonly issues: readonly ValidationIssue[],
  ) {
    super(
      `${operationId} payload breaks the contract: ${issues.map((issue) => `${issue.path || '(body)'} ${issue.message}`).join('; ')}`,
    );
  }
}

/** Builds the delivery of `payload` as the webhook `definition`; throws if the payload or options are invalid. */
export function buildDelivery<TokenHeader extends string>(
  definition: WebhookDefinition & { readonly tokenHeader: TokenHeader },
  payload: unknown,
  options: WebhookDeliveryOptions,
): WebhookDelivery<TokenHeader> {
  if (!definition.validate(payload))
    throw new WebhookPayloadError(definition.operationId, toIssues('body', definition.validate.errors));
  if (options.callbackToken === '') throw new Error(`${definition.operationId}: the callback token is empty`);
  if (!URL.canParse(options.url)) throw new Error(`${definition.operationId}: the destination is not an absolute URL`);
  // TypeScript widens a computed key of a generic type to an index signature; the one key is TokenHeader.
  const tokenHeader = Object.fromEntries([[definition.tokenHeader, options.callbackToken]]) as {
    readonly [Header in TokenHeader]: string;
  };
  return {
    url: options.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...tokenHeader },
    body: JSON.stringify(payload),
  };
}

/** The delivery as a fetch Request, to pass to `fetch` or straight to a fetch-standard receiver. */
export function toRequest(delivery: WebhookDelivery): Request {
  return new Request(delivery.url, { method: delivery.method, headers: delivery.headers, body: delivery.body });
}
