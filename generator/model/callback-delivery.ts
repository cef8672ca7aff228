// What a webhook's data says about judging its deliveries: which answers acknowledge an attempt and whether
// an acknowledged callback may come again (`x-delivery`), and which object a callback reports and how its
// fields derive from that object's (`x-callback-source`).
import type {
  CallbackFieldSource,
  CallbackSourceModel,
  DeliveryDestination,
  DeliveryModel,
  Json,
  JsonObject,
  WebhookDeliveryRules,
} from './types.js';

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fail(where: string, what: string): never {
  throw new Error(`${where}: ${what}`);
}

const whole = (value: Json | undefined, minimum: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= minimum;

function readDestination(raw: Json | undefined, where: string): DeliveryDestination {
  if (isObject(raw) && typeof raw.dashboard_setting === 'string') return { dashboard_setting: raw.dashboard_setting };
  const field = isObject(raw) ? raw.request_field : undefined;
  if (isObject(field) && typeof field.operation === 'string' && typeof field.field === 'string')
    return { request_field: { operation: field.operation, field: field.field } };
  return fail(where, 'x-delivery.destination must be { dashboard_setting } or { request_field: { operation, field } }');
}

/** `x-delivery` of a webhook, checked for what spec/x-extensions.yaml (delivery) requires. */
export function readDelivery(raw: Json | undefined, where: string): DeliveryModel {
  if (!isObject(raw)) return fail(where, 'x-delivery: expected an object');
  const { attempts, retry_interval_seconds: interval, acknowledging_statuses: range, redelivery } = raw;
  if (raw.acknowledgement !== '2xx') fail(where, 'x-delivery.acknowledgement must be 2xx');
  if (!whole(attempts, 1) || !whole(interval, 0))
    fail(where, 'x-delivery needs whole attempts (at least 1) and retry_interval_seconds');
  if (raw.guarantee !== 'at-least-once' || raw.ordering !== 'none' || raw.after_final_failure !== 'alert')
    fail(
      where,
      'x-delivery: guarantee at-least-once, ordering none and after_final_failure alert are the ones defined',
    );
  const decisions = isObject(range) && Array.isArray(range.decisions) ? range.decisions.map(String) : [];
  if (
    range !== undefined &&
    (!isObject(range) ||
      typeof range.minimum !== 'number' ||
      typeof range.maximum !== 'number' ||
      range.minimum > range.maximum)
  )
    fail(where, 'x-delivery.acknowledging_statuses must be { minimum, maximum } with minimum <= maximum');
  if (redelivery !== undefined && (!isObject(redelivery) || redelivery.only !== 'after_failed_attempt'))
    fail(where, 'x-delivery.redelivery.only must be after_failed_attempt');
  return {
    destination: readDestination(raw.destination, where),
    acknowledgement: '2xx',
    ...(isObject(range) && typeof range.minimum === 'number' && typeof range.maximum === 'number'
      ? { acknowledging_statuses: { minimum: range.minimum, maximum: range.maximum, decisions } }
      : {}),
    attempts,
    retry_interval_seconds: interval,
    guarantee: 'at-least-once',
    ...(isObject(redelivery)
      ? { redelivery: { only: 'after_failed_attempt', decision: String(redelivery.decision ?? '') } }
      : {}),
    ordering: 'none',
    after_final_failure: 'alert',
  };
}

/** The acknowledging statuses and redelivery rule of `x-delivery`; `acknowledgement: 2xx` alone means 200 to 299. */
export function readDeliveryRules(delivery: DeliveryModel, where: string): WebhookDeliveryRules {
  const range = delivery.acknowledging_statuses;
  let acknowledgingStatuses = { minimum: 200, maximum: 299 };
  if (range !== undefined) {
    if (
      !isObject(range) ||
      typeof range.minimum !== 'number' ||
      typeof range.maximum !== 'number' ||
      range.minimum > range.maximum
    )
      fail(where, 'x-delivery.acknowledging_statuses must be { minimum, maximum } with minimum <= maximum');
    acknowledgingStatuses = { minimum: range.minimum, maximum: range.maximum };
  } else if (delivery.acknowledgement !== '2xx') fail(where, 'x-delivery names no acknowledging statuses');
  const redelivery = delivery.redelivery;
  const onlyAfterFailure = isObject(redelivery) && redelivery.only === 'after_failed_attempt';
  return { acknowledgingStatuses, redeliveryOnlyAfterFailure: onlyAfterFailure };
}

/** `x-callback-source`, when the webhook has it. */
export function readCallbackSource(raw: Json | undefined, where: string): CallbackSourceModel | undefined {
  if (raw === undefined) return undefined;
  if (!isObject(raw) || typeof raw.machine !== 'string' || !Array.isArray(raw.identity) || !isObject(raw.fields))
    fail(where, 'x-callback-source must have machine, identity and fields');
  const fields: Record<string, CallbackFieldSource> = {};
  for (const [name, value] of Object.entries(raw.fields)) {
    if (!isObject(value) || typeof value.from !== 'string') fail(where, `x-callback-source field ${name} has no from`);
    fields[name] = {
      from: value.from,
      ...(typeof value.without_prefix === 'string' ? { withoutPrefix: value.without_prefix } : {}),
      ...(typeof value.decision === 'string' ? { decision: value.decision } : {}),
    };
  }
  const identity = raw.identity.map(String);
  const unnamed = identity.filter((name) => fields[name] === undefined);
  if (unnamed.length > 0) fail(where, `x-callback-source identity ${unnamed.join(', ')} not among its fields`);
  return { machine: raw.machine, identity, fields };
}
