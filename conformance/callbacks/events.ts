// The vocabulary every trigger source shares (test mode, state machines, sandbox simulations): a callback
// event the suite can cause, where the target sends it, and the request body that causes it, with the
// values that tell its deliveries apart from every other request's.

import type { Json, JsonObject, WebhookModel } from '@payments-contract/contract/model/types';
import type { CheckContext } from '../types.js';
import { bodyReferences, type Reference } from '../workflows/resources.js';
import { duplicateFields, echoedIdentifiers, schemaAt, setAt, uniquify } from './fields.js';
import { referenceFields, type Supplied } from './prerequisites.js';
import type { SandboxStatus } from './sandbox.js';
import type { StepResult } from './steps.js';

/** A body field a callback must carry, the values the contract allows there, and why. */
export interface Expectation {
  field: string;
  allowed: Json[];
  source: string;
  /** The field is a date-time: the same instant in another spelling (`Z` or `.000Z`) is the same value. */
  instant?: boolean;
}

/**
 * What the callback of an event's last step (an update after a creation) must carry, learnt from the answers
 * while firing: the values the step changed and the state its transition leads to.
 */
export interface Change {
  /** The step, for reports (`updateFixedVirtualAccount`). */
  step: string;
  /**
   * Values the step set that differ from the object's before it: a delivery carrying one of them is the
   * step's callback; one carrying none is an earlier callback of the object (its creation's), or a stale one.
   */
  marks: Expectation[];
  /** What the step's callback must carry besides: the state its transition leads to. */
  expect: Expectation[];
  /** Whether the object's earlier transitions (its creation) send this webhook too, with the same identifiers. */
  earlier: boolean;
}

/**
 * Whether the event was caused. Not caused with `serverError` set (the curl of the request): the target
 * answered a step the contract says causes the callback with a 5xx, which is its fault, not a missing trigger.
 */
export type Fired =
  | { fired: true; curl: string; change?: Change }
  | { fired: false; reason: string; serverError?: string };

/**
 * A state of the target some events need while they are fired (a sandbox setting that keeps payments
 * waiting for a simulation). Events sharing one phase are fired together between `enter` and `leave`.
 */
export interface Phase {
  label: string;
  enter: () => Promise<{ ok: true } | { ok: false; reason: string }>;
  leave: () => Promise<void>;
  /**
   * Present when the phase lets the target finish its events' objects by itself: once they are fired,
   * `bringOn` hastens that where the target allows (moving its clock past the delay), and the phase lasts
   * until their callbacks arrived, since leaving it would stop what has not finished yet.
   */
  finishing?: { bringOn: () => Promise<void> };
}

export interface CallbackEvent {
  /** Unique in the run; the last segment of the callback URL the suite gives the target. */
  key: string;
  webhook: string;
  label: string;
  /** Body fields the callback must carry, each with the values the contract allows, and why. */
  expect: Expectation[];
  /** Body fields whose values only this event's requests carry: a delivery with one of them is this event's. */
  correlation: Record<string, string>;
  fire: () => Promise<Fired>;
  phase?: Phase;
}

export interface TriggerSource {
  webhook: string;
  /** How the callback is caused, for reports. */
  via: string;
  /** Why it cannot be used against this target with these options. */
  unavailable?: string;
  events: CallbackEvent[];
}

export interface TriggerEnv {
  context: CheckContext;
  callbackUrl: (webhook: string, key: string) => string;
  /** The target's dashboard callback settings point at the receiver (the user said so, or the suite set them). */
  dashboardReachesReceiver: boolean;
  sandbox: SandboxStatus;
  newKey: () => string;
  supply: (reference: Reference) => Promise<Supplied>;
}

/** How the target learns where to send the webhook when the suite sends `operationId`. */
export function destination(
  env: TriggerEnv,
  webhook: WebhookModel,
  operationId: string,
): { field?: string } | { unavailable: string } {
  const target = webhook.delivery.destination;
  if ('request_field' in target) {
    const requestField = target.request_field;
    return requestField.operation === operationId
      ? { field: requestField.field }
      : {
          unavailable: `${webhook.operationId} goes to ${requestField.operation}'s ${requestField.field}, which this trigger does not send`,
        };
  }
  const setting = target.dashboard_setting;
  return env.dashboardReachesReceiver
    ? {}
    : {
        unavailable: `the target sends ${webhook.operationId} to its dashboard setting ${setting}, which the suite cannot set; set it to the receiver's address and pass --callback-public-url with that address`,
      };
}

/** The request body for the triggering operation: destination set to the receiver, echoed and duplicate-guarded fields unique. */
export function prepareBody(
  env: TriggerEnv,
  webhook: WebhookModel,
  operationId: string,
  base: JsonObject,
  key: string,
  urlField: string | undefined,
): { body: JsonObject; correlation: Record<string, string> } {
  const { contract } = env.context;
  const operation = contract.operation(operationId);
  const withUrl = urlField === undefined ? base : setAt(base, urlField, env.callbackUrl(webhook.operationId, key));
  const identifiers = echoedIdentifiers(
    contract,
    operation.body?.schema,
    webhook.bodySchema,
    withUrl,
    referenceFields(contract, operationId),
  );
  const fields = [...new Set([...duplicateFields(operation.errorTriggers), ...identifiers])].filter(
    (field) => field !== urlField,
  );
  const { body, values } = uniquify(contract, operation.body?.schema, withUrl, fields);
  return {
    body,
    correlation: Object.fromEntries(
      Object.entries(values).filter(([field]) => schemaAt(contract, webhook.bodySchema, field) !== undefined),
    ),
  };
}

export const fired = (env: TriggerEnv, result: StepResult): Fired =>
  result.ok
    ? { fired: true, curl: env.context.http.curl(result.exchange) }
    : {
        fired: false,
        reason: result.reason,
        ...(result.exchange && result.exchange.status >= 500
          ? { serverError: env.context.http.curl(result.exchange) }
          : {}),
      };

/** Fills the creation body's references to other objects (a direct debit's payment method) with objects the suite makes. */
export async function withReferences(
  env: TriggerEnv,
  creation: string,
  body: JsonObject,
): Promise<{ body: JsonObject } | { reason: string }> {
  let filled = body;
  for (const reference of bodyReferences(env.context.contract, env.context.contract.operation(creation))) {
    const supplied = await env.supply(reference);
    if (!('value' in supplied)) return { reason: `no object for ${creation}'s ${reference.field}: ${supplied.reason}` };
    filled = setAt(filled, reference.field, supplied.value);
  }
  return { body: filled };
}
