// Objects a triggering request must reference. The contract names these fields (the `not_found` error
// triggers with a body parameter) but not how to make the object they point at; that path is written
// here once, as a chain of the contract's own operations, each request built from its examples.
import { isObject } from '../../generator/model/read-model.js';
import type { Contract } from '../contract.js';
import type { CheckContext } from '../types.js';
import { duplicateFields, getAt, uniquify } from './fields.js';
import { createdId, exampleWith, onlyPathParameter, runStep } from './steps.js';

export type Supplied = { value: string } | { reason: string };
type Supplier = (context: CheckContext) => Promise<Supplied>;

/** Body fields that must name an existing object, per the operation's `not_found` triggers. */
export function referenceFields(contract: Contract, operationId: string): string[] {
  return Object.values(contract.operation(operationId).errorTriggers).flatMap((trigger) => {
    const parameter = trigger.parameter;
    return trigger.when === 'not_found' && isObject(parameter) && parameter.in === 'body' && typeof parameter.name === 'string' ? [parameter.name] : [];
  });
}

/** The test-mode value of an operation's `x-test-mode.field` whose outcome is plain success. */
export function successValue(contract: Contract, operationId: string): string | undefined {
  const outcomes = contract.operation(operationId).testMode?.outcomes;
  const success = (Array.isArray(outcomes) ? outcomes : []).find((outcome) => isObject(outcome) && outcome.result === 'success');
  return isObject(success) && typeof success.value === 'string' ? success.value : undefined;
}

/** Creates an object from the operation's first example, its duplicate-guarded fields made unique (except those given: they name other objects). */
async function create(context: CheckContext, operationId: string, fields: Record<string, string> = {}): Promise<Supplied> {
  const { contract } = context;
  const operation = contract.operation(operationId);
  const example = exampleWith(contract, operationId, fields);
  const { body } = uniquify(contract, operation.body?.schema, example, duplicateFields(operation.errorTriggers).filter((field) => !(field in fields)));
  const step = await runStep(context, { operationId, body });
  if (!step.ok) return { reason: step.reason };
  const id = createdId(step.exchange);
  return id === undefined ? { reason: `${operationId} answered without an id` } : { value: id };
}

/** Runs an operation on the object `id` (its only path parameter) and returns a value of the answer. */
async function act(context: CheckContext, operationId: string, id: string, fields: Record<string, string>, pick?: string): Promise<Supplied> {
  const parameter = onlyPathParameter(context.contract, operationId);
  if (parameter === undefined) return { reason: `${operationId} does not take one object id in its path` };
  const body = context.contract.operation(operationId).body ? exampleWith(context.contract, operationId, fields) : undefined;
  const step = await runStep(context, { operationId, parameters: { [parameter]: id }, ...(body ? { body } : {}) });
  if (!step.ok) return { reason: step.reason };
  const value = pick === undefined ? id : getAt(step.exchange.json, pick);
  return typeof value === 'string' ? { value } : { reason: `${operationId} answered without ${pick}` };
}

/** customer -> linked account token -> OTP (test-mode success code) -> its accounts -> an ACTIVE payment method. */
const activePaymentMethod: Supplier = async (context) => {
  const otp = successValue(context.contract, 'validateLinkedAccountTokenOtp');
  const otpField = context.contract.operation('validateLinkedAccountTokenOtp').testMode?.field;
  if (otp === undefined || typeof otpField !== 'string') return { reason: 'validateLinkedAccountTokenOtp has no test-mode success code' };
  const customer = await create(context, 'createCustomer');
  if (!('value' in customer)) return customer;
  const token = await create(context, 'initializeLinkedAccountTokenization', { customer_id: customer.value });
  if (!('value' in token)) return token;
  const validated = await act(context, 'validateLinkedAccountTokenOtp', token.value, { [otpField]: otp });
  if (!('value' in validated)) return validated;
  const account = await act(context, 'listLinkedAccountTokenAccounts', token.value, {}, '0.id');
  if (!('value' in account)) return account;
  return create(context, 'createPaymentMethod', { customer_id: customer.value, 'properties.id': account.value });
};

const SUPPLIERS: Record<string, Supplier> = { payment_method_id: activePaymentMethod };

/** Supplies each reference field once per run (one payment method serves every direct debit event). */
export function createSupply(context: CheckContext): (field: string) => Promise<Supplied> {
  const cache = new Map<string, Promise<Supplied>>();
  return (field) => {
    const supplier = SUPPLIERS[field];
    if (!supplier) return Promise.resolve({ reason: `the suite knows no way to create the object ${field} refers to` });
    const existing = cache.get(field);
    if (existing) return existing;
    const made = supplier(context).catch((error: unknown) => ({ reason: `${field}: ${error instanceof Error ? error.message : String(error)}` }));
    cache.set(field, made);
    return made;
  };
}
