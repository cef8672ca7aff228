// The balance rules of the contract as data: each `insufficient_balance` trigger of `x-error-triggers`
// names the balance that must cover the request (read as a balance effect names one), the body field
// holding the amount, and what an amount equal to the balance gets (decision balance-cover-rule); and the
// amounts a request may carry other than its example's, within the schema's bounds. Read here; the
// balance_rules check tries them.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { testModeOutcomes, testModeValue } from '../workflows/data.js';
import { propertySchema } from '../workflows/resources.js';
import type { Account } from './balance-effects.js';

export interface BalanceRule {
  operation: OperationModel;
  /** The code a request the balance cannot cover is refused with. */
  code: string;
  account: Account;
  /** The body field holding the amount the balance must cover. */
  amountField: string;
  /** What an amount equal to the balance gets. */
  equalAmount: 'accepted' | 'refused';
}

/** Every balance rule of the contract, one per operation and code. */
export function balanceRules(contract: Contract): BalanceRule[] {
  return contract.model.operations.flatMap((operation) =>
    Object.entries(operation.errorTriggers).flatMap(([code, trigger]): BalanceRule[] =>
      trigger.when === 'insufficient_balance'
        ? [
            {
              operation,
              code,
              account: trigger.balance,
              amountField: trigger.amount,
              equalAmount: trigger.equal_amount,
            },
          ]
        : [],
    ),
  );
}

/** The smallest amount a numeric schema allows: its minimum, one unit above an exclusive one, else one unit. */
export function smallestAmount(schema: JsonObject): number {
  const unit = amountUnit(schema);
  if (typeof schema.minimum === 'number') return schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number') return schema.exclusiveMinimum + unit;
  return unit;
}

/** The smallest step between two amounts: 1 for an integer, else a cent. */
export const amountUnit = (schema: JsonObject): number => (schema.type === 'integer' ? 1 : 0.01);

/** The values of the operation's test mode that select an outcome through this field (amounts to avoid). */
function testModeValues(operation: OperationModel | undefined, field: string): Json[] {
  if (!operation?.testMode || operation.testMode.field !== field) return [];
  return testModeOutcomes(operation).flatMap((outcome) => {
    const value = testModeValue(operation.testMode ?? {}, outcome);
    return value === undefined ? [] : [value];
  });
}

/**
 * Up to two amounts for `field` of `body` other than the one it holds: the schema's smallest and an odd one
 * (a third of the example's, plus 7), each kept only when the whole body with it is valid (destination
 * limits in `if`/`then` included) and it selects no test-mode outcome.
 */
export function otherAmounts(
  contract: Contract,
  schema: Json | undefined,
  body: JsonObject,
  field: string,
  operation?: OperationModel,
): number[] {
  const fieldSchema = propertySchema(contract, schema, field);
  const current = body[field];
  if (!isObject(fieldSchema) || typeof current !== 'number' || schema === undefined) return [];
  const avoided = testModeValues(operation, field);
  const candidates = [smallestAmount(fieldSchema), Math.floor(current / 3) + 7];
  const valid = candidates.filter(
    (amount) =>
      amount !== current &&
      !avoided.includes(amount) &&
      contract.validate(schema, { ...body, [field]: amount }).length === 0,
  );
  return [...new Set(valid)];
}

/** The control API's top-up (`x-balance-top-up`): the operation, its amount field, its account field. */
export interface BalanceTopUp {
  operation: string;
  field: string;
  account: string;
}

export function balanceTopUp(control: Contract): BalanceTopUp | undefined {
  const raw = control.doc['x-balance-top-up'];
  if (!isObject(raw)) return undefined;
  const { operation, field, account } = raw;
  if (typeof operation !== 'string' || typeof field !== 'string' || typeof account !== 'string') return undefined;
  return control.model.operations.some((o) => o.operationId === operation) ? { operation, field, account } : undefined;
}
