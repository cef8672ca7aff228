import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createContract, loadContract } from './contract.js';
import type { JsonObject } from '@payments-contract/contract/model/types';

/** A document with one schema that references another, as the contract's components do. */
function document(minimum: number): JsonObject {
  return {
    openapi: '3.1.0',
    info: { title: 'compile test', version: '1.0.0' },
    paths: {},
    components: {
      schemas: {
        Amount: { type: 'number', minimum },
        Payment: {
          type: 'object',
          required: ['amount'],
          properties: { amount: { $ref: '#/components/schemas/Amount' } },
        },
      },
    },
  };
}
const payment = { $ref: '#/components/schemas/Payment' };

describe('a contract’s schemas', () => {
  afterEach(() => vi.restoreAllMocks());

  it('are compiled once for every contract read from the same document in this process', () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    const first = createContract(document(10_001));
    expect(first.validate(payment, { amount: 5 })).not.toEqual([]);
    expect(first.validateClosed(payment, { amount: 20_000 })).toEqual([]);
    const compiledForFirst = compile.mock.calls.length;
    expect(compiledForFirst).toBeGreaterThan(0);

    const second = createContract(document(10_001));
    expect(second.validate(payment, { amount: 5 })).not.toEqual([]);
    expect(second.validateClosed(payment, { amount: 20_000, extra: true })).not.toEqual([]);
    expect(compile.mock.calls.length).toBe(compiledForFirst);
  });

  it('are compiled from each document’s own content: another document, or the same one changed, is not served from the first', () => {
    const changed = document(10_001);
    const before = createContract(changed);
    expect(before.validate(payment, { amount: 10_001 })).toEqual([]);

    const amount = (changed.components as { schemas: { Amount: { minimum: number } } }).schemas.Amount;
    amount.minimum = 50_000;
    // The contract made before keeps validating what it was made from.
    expect(before.validate(payment, { amount: 10_001 })).toEqual([]);
    // One made from the changed document validates the change.
    expect(createContract(changed).validate(payment, { amount: 10_001 })).not.toEqual([]);
    expect(createContract(document(1)).validate(payment, { amount: 2 })).toEqual([]);
  });

  it('keep each contract’s clock its own', () => {
    expect(loadContract().clock).not.toBe(loadContract().clock);
  });
});
