// Invalid requests for the request-data rules an operation's `x-error-triggers` declare beyond its schemas:
// a timestamp in the past (`past_timestamp`), a forbidden term in a text field (`forbidden_terms`, each term
// as a whole word, also in another letter case), a value missing from a catalog operation's list
// (`not_in_catalog`, the catalog read from that operation's documented answers). Each is the operation's
// first body example with one field changed, still valid against the body schema, so that only the
// trigger's rule is broken and its code, at the status the operation documents for it, is the answer.
import { assertNever, isObject } from '@payments-contract/contract/model';
import type { ErrorTrigger, ErrorTriggerOf, Json, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { getPath, pastTimestamp, setPath } from '../workflows/data.js';
import { bodyExamples, buildRequest } from './requests.js';
import type { NegativePlan, NegativeRequest } from './negative-requests.js';

/** The trigger kinds judged here: rules on the request's own data that a schema cannot state. */
export const REQUEST_DATA_TRIGGERS = ['past_timestamp', 'forbidden_terms', 'not_in_catalog'] as const;
export type RequestDataTrigger = ErrorTriggerOf<(typeof REQUEST_DATA_TRIGGERS)[number]>;

/** Whether the trigger is a rule on the request's own data (every kind decided here, so a new one must be). */
export function isRequestDataTrigger(trigger: ErrorTrigger): trigger is RequestDataTrigger {
  switch (trigger.when) {
    case 'past_timestamp':
    case 'forbidden_terms':
    case 'not_in_catalog':
      return true;
    case 'not_found':
    case 'other_merchant':
    case 'duplicate':
    case 'state':
    case 'merchant_setting':
    case 'stored_field':
    case 'idempotency_replay':
    case 'idempotency_mismatch':
    case 'insufficient_balance':
    case 'otp':
    case 'upstream_unavailable':
    case 'test_mode':
      return false;
    default:
      return assertNever(trigger);
  }
}

interface Variant {
  what: string;
  value: Json;
}

/** Every value of `field` in the 2xx examples of the catalog operation (the codes its list documents). */
function catalogValues(contract: Contract, catalogId: string, field: string): Set<string> | undefined {
  const catalog = contract.model.operations.find((o) => o.operationId === catalogId);
  if (!catalog) return undefined;
  const raw = contract.deref({ $ref: catalog.pointer });
  const responses = isObject(raw) ? contract.deref(raw.responses) : undefined;
  const values = new Set<string>();
  for (const response of isObject(responses)
    ? Object.entries(responses)
        .filter(([status]) => status.startsWith('2'))
        .map(([, r]) => contract.deref(r))
    : []) {
    const content = isObject(response) ? contract.deref(response.content) : undefined;
    const media = isObject(content) ? contract.deref(content['application/json']) : undefined;
    const examples = isObject(media) ? contract.deref(media.examples) : undefined;
    for (const example of isObject(examples) ? Object.values(examples).map((e) => contract.deref(e)) : []) {
      const value = isObject(example) ? example.value : undefined;
      for (const entry of Array.isArray(value) ? value : [value]) {
        // A catalog entry is named by `code` (or the field's own name), whichever its entries carry.
        const named = isObject(entry) ? (entry.code ?? entry[field.split('.').pop() ?? '']) : entry;
        if (typeof named === 'string') values.add(named);
      }
    }
  }
  return values.size > 0 ? values : undefined;
}

/** Text with one forbidden term as a whole word: appended to the valid value, or alone. */
function withTerm(valid: Json | undefined, term: string): Json[] {
  return typeof valid === 'string' ? [`${valid} ${term}`, term] : [term];
}

function variants(contract: Contract, trigger: RequestDataTrigger): Variant[] | string {
  switch (trigger.when) {
    case 'past_timestamp':
      return [{ what: 'in the past', value: pastTimestamp() }];
    case 'forbidden_terms':
      // Every term as written, and each in lower case too: the rule holds in any letter case.
      return trigger.terms.flatMap((term) =>
        [term, term.toLowerCase()]
          .filter((t, i, all) => all.indexOf(t) === i)
          .map((t) => ({ what: `contains the forbidden term "${t}"`, value: t })),
      );
    case 'not_in_catalog': {
      const catalog = trigger.catalog;
      const listed = catalogValues(contract, catalog, trigger.field);
      if (!listed) return `the catalog ${catalog} documents no list to compare with`;
      // A value shaped like the listed ones that the list does not have.
      const candidates = [...listed].map((code) => `${code}X`).concat(['ZZZ', 'UNLISTED']);
      const value = candidates.find((candidate) => !listed.has(candidate) && !listed.has(candidate.toUpperCase()));
      return value === undefined
        ? 'no value outside the catalog could be built'
        : [{ what: `not in the list ${catalog} answers`, value }];
    }
    default:
      return assertNever(trigger);
  }
}

/** The requests that break each request-data trigger of the operation, and notes for those that cannot be built. */
export function triggerRequests(contract: Contract, operation: OperationModel): NegativePlan {
  const plan: NegativePlan = { requests: [], notes: [] };
  const base = bodyExamples(contract, operation)[0]?.value;
  for (const [code, trigger] of Object.entries(operation.errorTriggers)) {
    if (!isRequestDataTrigger(trigger)) continue;
    const field = trigger.field;
    const status = operation.responses.find((r) => r.errorCodes.includes(code))?.status;
    const where = `body ${field}`;
    if (base === undefined || !operation.body || status === undefined) {
      plan.notes.push(
        `${where} (${code}): not tested, ${status === undefined ? 'the operation documents no status for the code' : 'the operation has no body example'}`,
      );
      continue;
    }
    const built = variants(contract, trigger);
    if (typeof built === 'string') {
      plan.notes.push(`${where} (${code}): not tested, ${built}`);
      continue;
    }
    for (const variant of built) {
      const candidates =
        trigger.when === 'forbidden_terms' ? withTerm(getPath(base, field), String(variant.value)) : [variant.value];
      // The body must stay valid against its schema, or the schema's answer would come first.
      const body = candidates
        .map((value) => setPath(base, field, value))
        .find((candidate) => contract.validate(operation.body?.schema ?? {}, candidate).length === 0);
      if (body === undefined) {
        plan.notes.push(
          `${where} ${variant.what} (${code}): not tested, no value breaking only this rule satisfies the field's schema`,
        );
        continue;
      }
      const request: NegativeRequest = {
        what: `x-error-triggers ${code} (${trigger.when}): ${where} ${variant.what}`,
        spec: buildRequest(contract, operation, { body }),
        expected: { status, errorCode: code, source: 'x-error-triggers' },
        schemaPath: `${operation.pointer}/x-error-triggers/${code}`,
      };
      plan.requests.push(request);
    }
  }
  return plan;
}

/** A whole-word, any-case match of one of the terms (a space in a term matches any run of spaces). */
function containsTerm(text: string, terms: string[]): boolean {
  return terms.some((term) =>
    new RegExp(
      `(?<![A-Za-z])${term
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('\\s+')}(?![A-Za-z])`,
      'i',
    ).test(text),
  );
}

/**
 * The request-data trigger a valid body breaks, with the answer the contract gives it, if any: what a
 * conforming implementation refuses. In-test targets answer with it, so the check can be shown to pass them.
 */
export function brokenTrigger(
  contract: Contract,
  operation: OperationModel,
  body: Json,
): { code: string; status: number } | undefined {
  for (const [code, trigger] of Object.entries(operation.errorTriggers)) {
    if (!isRequestDataTrigger(trigger)) continue;
    const value = getPath(body, trigger.field);
    const status = operation.responses.find((r) => r.errorCodes.includes(code))?.status;
    if (typeof value !== 'string' || status === undefined) continue;
    if (breaks(contract, trigger, value)) return { code, status };
  }
  return undefined;
}

/** Whether a field's value breaks the request-data rule. */
function breaks(contract: Contract, trigger: RequestDataTrigger, value: string): boolean {
  switch (trigger.when) {
    case 'past_timestamp':
      return Date.parse(value) < Date.now();
    case 'forbidden_terms':
      return containsTerm(value, trigger.terms);
    case 'not_in_catalog': {
      const listed = catalogValues(contract, trigger.catalog, trigger.field);
      return listed !== undefined && !listed.has(value);
    }
    default:
      return assertNever(trigger);
  }
}
