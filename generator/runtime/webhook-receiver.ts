// The merchant's side of the webhooks: one fetch-standard handler, `(request) => Promise<Response>`, that
// authenticates a delivery, works out which webhook it is, validates it against the contract and hands
// the typed payload to the merchant's handler. Generic over the webhooks' payload types (`Events`,
// operationId -> payload); generated/webhooks.ts binds it to the contract.
import { parseJson, readBodyText } from './request-body.js';
import { digestsEqual, secretDigest } from './constant-time.js';
import { toIssues, type ValidationIssue } from './validation-errors.js';
import { conforms, type WebhookDefinition } from './webhook-definition.js';

export type WebhookDefinitions<Events> = { readonly [K in keyof Events & string]: WebhookDefinition };

export interface WebhookContext<Kind extends string> {
  /** The webhook's operationId. */
  readonly kind: Kind;
  /** The webhook's name in the contract, e.g. `ewallet.payment`. */
  readonly name: string;
  /** The delivery's headers without the callback token, so logging them cannot leak it. */
  readonly headers: Headers;
}

/**
 * Handles one webhook. The delivery is acknowledged when the returned promise resolves, so keep it short:
 * store the event and process it later. A throw answers 500, and the service delivers again.
 */
export type WebhookHandler<Payload, Kind extends string> = (
  event: Payload,
  context: WebhookContext<Kind>,
) => void | Promise<void>;

/** The merchant's handlers: any subset of the webhooks, by operationId. */
export type WebhookHandlers<Events> = { readonly [K in keyof Events & string]?: WebhookHandler<Events[K], K> };

export interface WebhookReceiverOptions<Kind extends string> {
  /** The merchant's callback token for this mode (test and live differ). */
  readonly callbackToken: string;
  /** Fixes the webhook this endpoint receives (one URL per kind), instead of working it out from the body. */
  readonly kind?: Kind;
  /** Told about a handler's failure (the response says only that it failed), e.g. to log it. */
  readonly onHandlerError?: (error: unknown, context: WebhookContext<Kind>) => void;
  /** Largest body accepted, in bytes (default 1 MiB); a larger one is refused unread with 413. */
  readonly maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Error codes of the receiver's own answers; the contract documents only the acknowledgement. */
export type WebhookReceiverErrorCode =
  | 'METHOD_NOT_ALLOWED'
  | 'INVALID_CALLBACK_TOKEN'
  | 'INVALID_JSON_FORMAT'
  | 'REQUEST_ENTITY_TOO_LARGE'
  | 'UNKNOWN_WEBHOOK'
  | 'API_VALIDATION_ERROR'
  | 'SERVER_ERROR';

export interface WebhookReceiverError {
  error_code: WebhookReceiverErrorCode;
  message: string;
  errors?: ValidationIssue[];
}

/** The acknowledgement; any 2xx counts, the body is for people reading logs. */
export const ACKNOWLEDGEMENT = { received: true } as const;

const answer = (status: number, body: WebhookReceiverError, headers?: Record<string, string>): Response =>
  Response.json(body, headers ? { status, headers } : { status });

type Resolution<Kind extends string> = { kind: Kind } | { problem: string };

/**
 * Which webhook a body is, among those with a handler (`candidates`): the body's `event` field when it
 * names a webhook, else the only candidate, else the one candidate whose schema accepts the body.
 */
export function resolveKind<Kind extends string>(
  definitions: { readonly [K in Kind]: WebhookDefinition },
  candidates: readonly Kind[],
  payload: unknown,
): Resolution<Kind> {
  const all = Object.keys(definitions) as Kind[];
  const event = typeof payload === 'object' && payload !== null && 'event' in payload ? payload.event : undefined;
  const named = all.find((kind) => definitions[kind].name === event);
  if (named !== undefined)
    return candidates.includes(named)
      ? { kind: named }
      : { problem: `no handler for webhook ${definitions[named].name}` };
  const [only] = candidates;
  if (only !== undefined && candidates.length === 1) return { kind: only };
  const matching = candidates.filter((kind) => definitions[kind].validate(payload));
  const [match] = matching;
  if (match !== undefined && matching.length === 1) return { kind: match };
  return matching.length === 0
    ? { problem: `the body is none of the webhooks handled here (${candidates.join(', ')})` }
    : { problem: `the body fits more than one webhook (${matching.join(', ')}); give this endpoint a fixed kind` };
}

/** The token is checked before the body is read, so before the kind is known: one header for all. */
function commonTokenHeader<Kind extends string>(
  definitions: { readonly [K in Kind]: WebhookDefinition },
  candidates: readonly Kind[],
): string {
  const headers = new Set(candidates.map((kind) => definitions[kind].tokenHeader));
  const [header] = headers;
  if (header === undefined || headers.size > 1) {
    throw new Error(
      `createWebhookReceiver: ${candidates.join(', ')} carry their token in different headers; give each its own endpoint with \`kind\``,
    );
  }
  return header;
}

/** The fetch-standard receiver of the webhooks in `definitions` that have a handler. */
export function createReceiver<Events>(
  definitions: WebhookDefinitions<Events>,
  handlers: WebhookHandlers<Events>,
  options: WebhookReceiverOptions<keyof Events & string>,
): (request: Request) => Promise<Response> {
  type Kind = keyof Events & string;
  const handled = (Object.keys(definitions) as Kind[]).filter((kind) => handlers[kind] !== undefined);
  const candidates = options.kind === undefined ? handled : [options.kind];
  // Misconfiguration fails at start-up, not on the first delivery.
  if (options.callbackToken === '') throw new Error('createWebhookReceiver: callbackToken is empty');
  if (candidates.length === 0 || !candidates.every((kind) => handled.includes(kind))) {
    throw new Error(`createWebhookReceiver: no handler for ${options.kind ?? 'any webhook'}`);
  }
  const tokenHeader = commonTokenHeader(definitions, candidates);
  // Digested once: each delivery then costs one digest, of the token it presents.
  const expectedToken = secretDigest(options.callbackToken);

  async function dispatch<K extends Kind>(kind: K, payload: unknown, request: Request): Promise<Response> {
    const definition = definitions[kind];
    if (!conforms<Events[K]>(definition.validate, payload)) {
      return answer(400, {
        error_code: 'API_VALIDATION_ERROR',
        message: `The body is not a valid ${definition.name} webhook.`,
        errors: toIssues('body', definition.validate.errors),
      });
    }
    const headers = new Headers(request.headers);
    headers.delete(tokenHeader);
    const context: WebhookContext<K> = { kind, name: definition.name, headers };
    try {
      await handlers[kind]?.(payload, context);
    } catch (error) {
      try {
        options.onHandlerError?.(error, context);
      } catch {
        // A failing reporter must not turn the 500 into an unanswered request.
      }
      // Nothing of the error goes out: it may carry internals. The 500 makes the service deliver again.
      return answer(500, {
        error_code: 'SERVER_ERROR',
        message: 'The webhook handler failed; the delivery will be retried.',
      });
    }
    return Response.json(ACKNOWLEDGEMENT, { status: 200 });
  }

  return async (request) => {
    if (request.method !== 'POST')
      return answer(
        405,
        { error_code: 'METHOD_NOT_ALLOWED', message: 'Webhooks are delivered with POST.' },
        { allow: 'POST' },
      );
    const token = request.headers.get(tokenHeader);
    if (token === null || !digestsEqual(secretDigest(token), expectedToken)) {
      return answer(401, {
        error_code: 'INVALID_CALLBACK_TOKEN',
        message: `The ${tokenHeader} header is ${token === null ? 'missing' : 'wrong'}.`,
      });
    }
    // Read only after the token matched, and never more than the limit: a callback body is small.
    const body = await readBodyText(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    if (body.kind === 'too-large')
      return answer(413, {
        error_code: 'REQUEST_ENTITY_TOO_LARGE',
        message: 'The body is larger than this receiver accepts.',
      });
    const parsed = body.kind === 'text' ? parseJson(body.text) : { ok: false as const };
    if (!parsed.ok) return answer(400, { error_code: 'INVALID_JSON_FORMAT', message: 'The body is not valid JSON.' });
    const resolved =
      options.kind === undefined ? resolveKind<Kind>(definitions, handled, parsed.value) : { kind: options.kind };
    if ('problem' in resolved)
      return answer(400, {
        error_code: 'UNKNOWN_WEBHOOK',
        message: `Cannot tell which webhook this is: ${resolved.problem}.`,
      });
    return dispatch(resolved.kind, parsed.value, request);
  };
}
