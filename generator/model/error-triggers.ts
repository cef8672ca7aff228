// `x-error-triggers` read into the model's typed triggers: each entry is checked for what its kind requires
// (spec/x-extensions.yaml, errorTrigger) and narrowed to that kind's shape, so no consumer reads an untyped one.
import { assertNever } from './assert-never.js';
import type { ErrorTrigger, ErrorTriggerKind, Json, JsonObject, TriggerParameter } from './types.js';

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every kind once; a Record so that the compiler refuses a kind of the union missing here. */
const KINDS: Record<ErrorTriggerKind, true> = {
  not_found: true,
  other_merchant: true,
  duplicate: true,
  state: true,
  merchant_setting: true,
  past_timestamp: true,
  stored_field: true,
  not_in_catalog: true,
  forbidden_terms: true,
  idempotency_replay: true,
  idempotency_mismatch: true,
  insufficient_balance: true,
  otp: true,
  upstream_unavailable: true,
  test_mode: true,
};
export const ERROR_TRIGGER_KINDS = Object.keys(KINDS) as ErrorTriggerKind[];

export function isErrorTriggerKind(value: Json | undefined): value is ErrorTriggerKind {
  return typeof value === 'string' && Object.hasOwn(KINDS, value);
}

function text(value: Json | undefined, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where}: expected a string`);
  return value;
}

function texts(value: Json | undefined, where: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string'))
    throw new Error(`${where}: expected a non-empty list of strings`);
  return value.map(String);
}

function textRecord(value: Json | undefined, where: string): Record<string, string> {
  if (!isObject(value)) throw new Error(`${where}: expected an object`);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, text(item, `${where}.${key}`)]));
}

function oneOf<const T extends string>(value: Json | undefined, allowed: readonly T[], where: string): T {
  const found = allowed.find((item) => item === value);
  if (found === undefined) throw new Error(`${where}: expected one of ${allowed.join(', ')}`);
  return found;
}

function parameter(value: Json | undefined, where: string): TriggerParameter {
  if (!isObject(value)) throw new Error(`${where}: expected { in, name }`);
  return {
    in: oneOf(value.in, ['path', 'query', 'header', 'body'], `${where}.in`),
    name: text(value.name, `${where}.name`),
  };
}

/** One entry of `x-error-triggers`, narrowed to its kind's shape; a kind the extension does not define is refused. */
export function readErrorTrigger(raw: Json | undefined, where: string): ErrorTrigger {
  if (!isObject(raw)) throw new Error(`${where}: expected an object`);
  const when = raw.when;
  if (!isErrorTriggerKind(when)) throw new Error(`${where}: when ${JSON.stringify(when)} is not a kind of trigger`);
  const mode = raw.test_mode;
  const common = {
    description: text(raw.description, `${where}.description`),
    ...(mode === undefined
      ? {}
      : {
          test_mode: {
            field: text(isObject(mode) ? mode.field : undefined, `${where}.test_mode.field`),
            value: text(isObject(mode) ? mode.value : undefined, `${where}.test_mode.value`),
          },
        }),
  };
  const at = (field: string): string => `${where}.${field}`;
  switch (when) {
    case 'not_found':
    case 'other_merchant':
      return { when, ...common, parameter: parameter(raw.parameter, at('parameter')) };
    case 'duplicate':
      return {
        when,
        ...common,
        fields: texts(raw.fields, at('fields')),
        ...(raw.answered_as === undefined ? {} : { answered_as: textRecord(raw.answered_as, at('answered_as')) }),
      };
    case 'state':
      return { when, ...common, machine: text(raw.machine, at('machine')), states: texts(raw.states, at('states')) };
    case 'merchant_setting':
      return { when, ...common, setting: text(raw.setting, at('setting')) };
    case 'past_timestamp':
      return { when, ...common, field: text(raw.field, at('field')) };
    case 'stored_field':
      return {
        when,
        ...common,
        field: text(raw.field, at('field')),
        ...(raw.not_in === undefined ? {} : { not_in: texts(raw.not_in, at('not_in')) }),
      };
    case 'not_in_catalog':
      return { when, ...common, field: text(raw.field, at('field')), catalog: text(raw.catalog, at('catalog')) };
    case 'forbidden_terms':
      return { when, ...common, field: text(raw.field, at('field')), terms: texts(raw.terms, at('terms')) };
    case 'idempotency_replay':
    case 'idempotency_mismatch':
      return { when, ...common, header: text(raw.header, at('header')) };
    case 'insufficient_balance': {
      const balance = raw.balance;
      if (!isObject(balance)) throw new Error(`${at('balance')}: expected { operation, field, query }`);
      return {
        when,
        ...common,
        account_type: text(raw.account_type, at('account_type')),
        balance: {
          operation: text(balance.operation, at('balance.operation')),
          field: text(balance.field, at('balance.field')),
          query: textRecord(balance.query, at('balance.query')),
        },
        amount: text(raw.amount, at('amount')),
        equal_amount: oneOf(raw.equal_amount, ['accepted', 'refused'], at('equal_amount')),
      };
    }
    case 'otp':
      return { when, ...common, outcome: oneOf(raw.outcome, ['invalid', 'expired', 'max_attempts'], at('outcome')) };
    case 'upstream_unavailable':
    case 'test_mode':
      return { when, ...common };
    default:
      return assertNever(when, `${where} trigger kind`);
  }
}

/** An operation's `x-error-triggers`, keyed by code. */
export function readErrorTriggers(raw: Json | undefined, where: string): Record<string, ErrorTrigger> {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw new Error(`${where} x-error-triggers: expected an object`);
  return Object.fromEntries(
    Object.entries(raw).map(([code, entry]) => [code, readErrorTrigger(entry, `${where} x-error-triggers.${code}`)]),
  );
}
