// What the e-wallet module takes from the contract rather than restating it: the test-mode table of
// createEwalletPayment (`x-test-mode`: which amount ends how, and the outcome of every other amount) and
// the failure codes (`EwalletFailureCode`). Read once from the bundled document when the module loads, so a
// contract that no longer has the shape this code relies on fails at start-up, not on a request.
import { isObject } from '@payments-contract/contract/model';
import type { Json } from '@payments-contract/contract/model/types';
import type { EwalletPaymentCallback } from '@payments-contract/client/webhooks';
import { componentSchema, contractOperation } from '../contract.js';

export type EwalletFailureCode = NonNullable<EwalletPaymentCallback['failure_code']>;

/** Where a payment ends: completed, or failed with a code. */
export type EwalletOutcome = { status: 'COMPLETED' } | { status: 'FAILED'; failure_code: EwalletFailureCode };

export interface EwalletTestMode {
  /** The outcome the request selects in test mode by its value of the table's field (`amount`). */
  outcomeOf(request: object): EwalletOutcome;
  /** The outcome of an amount the table does not list. */
  defaultOutcome: EwalletOutcome;
}

const failureCodes: readonly Json[] = (() => {
  const values = componentSchema('EwalletFailureCode').enum;
  if (!Array.isArray(values) || values.length === 0)
    throw new Error('components.schemas.EwalletFailureCode: expected an enum');
  return values;
})();

/** One of the contract's e-wallet failure codes. */
export function isEwalletFailureCode(value: unknown): value is EwalletFailureCode {
  return typeof value === 'string' && failureCodes.includes(value);
}

function outcome(raw: Json | undefined, where: string): EwalletOutcome {
  if (!isObject(raw)) throw new Error(`${where}: expected an object`);
  if (raw.status === 'COMPLETED') return { status: 'COMPLETED' };
  if (raw.status === 'FAILED' && isEwalletFailureCode(raw.failure_code))
    return { status: 'FAILED', failure_code: raw.failure_code };
  throw new Error(`${where}: expected status COMPLETED, or FAILED with one of EwalletFailureCode`);
}

/** Reads `x-test-mode` of an operation: `{ field, outcomes: [{ <field>: value, status, failure_code }], default_outcome }`. */
export function readEwalletTestMode(operationId: string): EwalletTestMode {
  const testMode = contractOperation(operationId).testMode;
  const where = `${operationId} x-test-mode`;
  if (!testMode || typeof testMode.field !== 'string' || !Array.isArray(testMode.outcomes))
    throw new Error(`${where}: expected a field and its outcomes`);
  const field = testMode.field;
  const listed = new Map<unknown, EwalletOutcome>();
  testMode.outcomes.forEach((raw, index) => {
    const value = isObject(raw) ? raw[field] : undefined;
    if (value === undefined || isObject(value) || Array.isArray(value))
      throw new Error(`${where}.outcomes[${index}]: expected a ${field} value`);
    listed.set(value, outcome(raw, `${where}.outcomes[${index}]`));
  });
  const defaultOutcome = outcome(testMode.default_outcome, `${where}.default_outcome`);
  const valueOf = (request: object): unknown => Object.entries(request).find(([name]) => name === field)?.[1];
  return { outcomeOf: (request) => listed.get(valueOf(request)) ?? defaultOutcome, defaultOutcome };
}
