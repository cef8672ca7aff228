import { describe, expect, it } from 'vitest';
import { readStateMachines } from './state-machines.js';
import type { Json, JsonObject } from './types.js';

const same = (value: Json | undefined): Json | undefined => value;
const machineWith = (transitions: Json[]): JsonObject => ({
  'x-state-machines': {
    payment: { resource: 'Payment', field: 'status', states: ['PENDING', 'PAID'], initial: 'PENDING', transitions },
  },
});
const create = { from: null, trigger: { operation: 'createPayment' }, to: 'PENDING' };

describe('readStateMachines', () => {
  it('reads each transition with its trigger of one kind, its conditions and effects', () => {
    const machines = readStateMachines(
      machineWith([
        create,
        {
          from: 'PENDING',
          trigger: { time: 'expires_at', boundary: 'inclusive' },
          to: 'PAID',
          when: { 'resource.single_use': true },
          effects: [
            { callback: 'paymentPaid' },
            {
              balance: {
                operation: 'getBalance',
                field: 'balance',
                query: { account_type: 'CASH' },
                change: 'credit',
                amount: 'resource.amount',
              },
            },
          ],
        },
      ]),
      same,
    );
    expect(machines.payment?.transitions).toEqual([
      { from: null, trigger: { operation: 'createPayment' }, to: 'PENDING' },
      {
        from: 'PENDING',
        trigger: { time: 'expires_at', boundary: 'inclusive' },
        to: 'PAID',
        when: { 'resource.single_use': true },
        effects: [
          { callback: 'paymentPaid' },
          {
            balance: {
              operation: 'getBalance',
              field: 'balance',
              query: { account_type: 'CASH' },
              change: 'credit',
              amount: 'resource.amount',
            },
          },
        ],
      },
    ]);
  });

  it('refuses a trigger of no kind or of two, a boundary, change or amount the extension does not define', () => {
    const refused =
      (transition: Json): (() => void) =>
      () =>
        readStateMachines(machineWith([transition]), same);
    expect(refused({ ...create, trigger: { description: 'whenever' } })).toThrow(/exactly one of operation/);
    expect(refused({ ...create, trigger: { operation: 'a', event: 'b' } })).toThrow(/exactly one of operation/);
    expect(refused({ ...create, trigger: { time: 'expires_at', boundary: 'around' } })).toThrow(/boundary/);
    const effect = (balance: JsonObject): Json => ({
      ...create,
      effects: [
        {
          balance: {
            operation: 'getBalance',
            field: 'balance',
            query: {},
            change: 'credit',
            amount: 'resource.amount',
            ...balance,
          },
        },
      ],
    });
    expect(refused(effect({ change: 'refund' }))).toThrow(/change: expected credit or debit/);
    expect(refused(effect({ amount: 'amount' }))).toThrow(/amount: expected resource/);
  });

  it('is empty for a document without machines', () => {
    expect(readStateMachines({}, same)).toEqual({});
  });
});
