// Mistakes about balance rules and amounts: which side of the balance is covered, what a refusal leaves
// behind, amounts other than the example's, and a balance check that races. The `balance_rules` check
// catches them by sending other amounts, the exact balance and one unit more, and writes at once against a
// balance that covers only some of them.
import type { Mutant } from '../types.js';

const LEDGER = 'platform/balances.ts';
const COVER_CHECK = 'if (balance < amount) return false;';
const DISBURSEMENT_DEBIT = "if (!(await debit(body.amount))) return { ok: false, reason: 'insufficient_balance' };";

export const mutants: Mutant[] = [
  {
    name: 'balance-equal-amount-refused',
    family: 'balance_rules',
    caught: { result: 'balance_rules:createDisbursement DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR equality edge' },
    class: 'money',
    mistake:
      'The ledger refuses a debit that would leave exactly 0 (`<=` instead of `<`): the whole balance can never be sent.',
    edits: [
      { file: LEDGER, within: 'createBalances', find: COVER_CHECK, replace: 'if (balance <= amount) return false;' },
    ],
  },
  {
    name: 'balance-overdraft-by-one-unit',
    family: 'balance_rules',
    caught: { result: 'balance_rules:createDisbursement DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR equality edge' },
    class: 'money',
    mistake:
      'The ledger allows a tolerance of one unit, meant for rounding, on every debit: a balance can go one unit below 0.',
    edits: [
      {
        file: LEDGER,
        within: 'createBalances',
        find: COVER_CHECK,
        replace: 'if (balance - amount < -1) return false;',
      },
    ],
  },
  {
    name: 'balance-debited-before-cover-check',
    family: 'balance_rules',
    caught: { result: 'balance_rules:createDisbursement DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR equality edge' },
    class: 'money',
    mistake:
      'The ledger writes the debit first and checks the balance after, and a refusal does not undo the write: a refused request still takes its amount.',
    edits: [
      {
        file: LEDGER,
        within: 'createBalances',
        find: `${COVER_CHECK}\n      await write(tx, scope, account, stored !== undefined, balance - amount);\n      return true;`,
        replace:
          'await write(tx, scope, account, stored !== undefined, balance - amount);\n      return balance >= amount;',
      },
    ],
  },
  {
    name: 'ledger-rounds-to-hundreds',
    family: 'balance_rules',
    caught: { result: 'balance_rules:simulateFixedVirtualAccountPayment' },
    class: 'money',
    mistake:
      'The ledger rounds every balance it stores to whole hundreds (the cents rounding written the wrong way round): amounts that are not multiples of 100 move the balance by another amount.',
    edits: [
      {
        file: LEDGER,
        within: 'money',
        find: 'Math.round(value * 100) / 100',
        replace: 'Math.round(value / 100) * 100',
      },
    ],
  },
  {
    name: 'ledger-credit-truncated-to-whole-units',
    family: 'balance_rules',
    caught: { result: 'balance_rules:simulateFixedVirtualAccountPayment' },
    class: 'money',
    mistake:
      'The ledger adds only the whole units of a credit (an integer column for money that comes in with cents): a payment of 0.01 credits nothing, one of 1.50 credits 1.',
    edits: [
      {
        file: LEDGER,
        within: 'createBalances',
        find: '(stored?.balance ?? start[account]) + amount',
        replace: '(stored?.balance ?? start[account]) + Math.trunc(amount)',
      },
    ],
  },
  {
    name: 'disbursement-stored-before-balance-check',
    family: 'balance_rules',
    caught: { result: 'balance_rules:createDisbursement DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR equality edge' },
    class: 'money',
    mistake:
      'The disbursement is stored before the balance is checked, and the refusal for the balance does not remove it: a refused disbursement still exists.',
    edits: [
      { file: 'disbursements/index.ts', within: 'create', find: DISBURSEMENT_DEBIT, replace: '' },
      {
        file: 'disbursements/index.ts',
        within: 'create',
        find: 'const stored = await tx.insert(COLLECTION, caller, record);',
        replace: `const stored = await tx.insert(COLLECTION, caller, record);\n  ${DISBURSEMENT_DEBIT}`,
      },
    ],
  },
  {
    name: 'disbursement-balance-checked-before-transaction',
    family: 'balance_rules',
    caught: {
      result: 'balance_rules:createDisbursement DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR concurrent writes',
    },
    class: 'concurrency',
    mistake:
      'The balance is checked on committed data before the destination account is verified with the bank (a call of some 200 ms) and the debit in the transaction after it no longer refuses: disbursements sent together all pass the check, and more are accepted than the balance covers.',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'create',
        find: DISBURSEMENT_DEBIT,
        replace: 'await debit(body.amount);',
      },
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers',
        find: "const key = header['x-idempotency-key'];",
        replace:
          "const key = header['x-idempotency-key'];\n      if ((await ctx.balances.get(ctx.store, principal, 'CASH')) < body.amount) {\n        return { status: 400, body: { error_code: 'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR', message: `The cash balance is too low to send ${body.amount} IDR.` } };\n      }\n      await new Promise((verified) => setTimeout(verified, 200));",
      },
    ],
  },
];
