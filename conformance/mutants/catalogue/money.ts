// Mistakes about money: which balance a transition moves, in which direction and by how much. The
// `money` check catches them by reading the balance before and after each transition the state machines
// say moves money (and each one they say moves none).
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'disbursement-failure-not-refunded',
    family: 'money',
    caught: { result: 'money:failDisbursement', reproduced: true },
    class: 'money',
    mistake:
      'A disbursement the bank rejects keeps the amount taken from CASH at creation: the refund on FAILED is forgotten.',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'finish',
        find: "if (finished.status === 'FAILED') await ctx.balances.credit(tx, scope, 'CASH', finished.amount);",
        replace: '',
      },
    ],
  },
  {
    name: 'disbursement-refunded-on-completion',
    family: 'money',
    caught: { result: 'money:completeDisbursement', reproduced: true },
    class: 'money',
    mistake:
      "The bank's answer is taken the wrong way round: a completed disbursement gives its amount back and a failed one keeps it.",
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'finish',
        find: "if (finished.status === 'FAILED') await ctx.balances.credit(tx, scope, 'CASH', finished.amount);",
        replace: "if (finished.status === 'COMPLETED') await ctx.balances.credit(tx, scope, 'CASH', finished.amount);",
      },
    ],
  },
  {
    name: 'disbursement-debited-twice',
    family: 'money',
    caught: { result: 'money:createDisbursement', reproduced: true },
    class: 'money',
    mistake:
      'Creating a disbursement takes its amount from CASH twice (a debit on creation and another on the pending record).',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'create',
        find: "if (!(await debit(body.amount))) return { ok: false, reason: 'insufficient_balance' };",
        replace:
          "if (!(await debit(body.amount)) || !(await ctx.balances.debit(tx, caller, 'CASH', body.amount))) return { ok: false, reason: 'insufficient_balance' };",
      },
    ],
  },
  {
    name: 'fva-payment-credited-to-holding',
    family: 'money',
    caught: { result: 'money:simulateFixedVirtualAccountPayment', reproduced: true },
    class: 'money',
    mistake: 'A payment into a fixed virtual account is credited to the HOLDING balance instead of CASH.',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountControlHandlers.simulateFixedVirtualAccountPayment',
        find: "await ctx.balances.credit(tx, principal, 'CASH', amount);",
        replace: "await ctx.balances.credit(tx, principal, 'HOLDING', amount);",
      },
    ],
  },
  {
    name: 'fva-payment-credited-twice',
    family: 'money',
    caught: { result: 'money:simulateFixedVirtualAccountPayment', reproduced: true },
    class: 'money',
    mistake:
      'A payment into a fixed virtual account is credited twice (once for the payment record, once for the callback).',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountControlHandlers.simulateFixedVirtualAccountPayment',
        find: "await ctx.balances.credit(tx, principal, 'CASH', amount);",
        replace:
          "await ctx.balances.credit(tx, principal, 'CASH', amount);\n        await ctx.balances.credit(tx, principal, 'CASH', amount);",
      },
    ],
  },
  {
    name: 'ewallet-approval-not-credited',
    family: 'money',
    caught: { result: 'money:approveEwalletPayment', reproduced: true },
    class: 'money',
    mistake: 'An e-wallet payment the end user approves becomes COMPLETED without its amount reaching CASH.',
    edits: [
      {
        file: 'ewallets/index.ts',
        within: 'conclude',
        find: "if (ended.status === 'COMPLETED') await ctx.balances.credit(tx, scope, 'CASH', ended.amount);",
        replace: '',
      },
    ],
  },
  {
    name: 'fpc-settling-credited-to-cash',
    family: 'money',
    caught: { result: 'money:simulateFixedPaymentCodePayment', reproduced: true },
    class: 'money',
    mistake: 'A fixed payment code paid at the outlet but still SETTLING is credited to CASH as if it were settled.',
    edits: [
      {
        file: 'fixed-payment-codes/index.ts',
        within: 'creditedAccount',
        find: "const creditedAccount = { COMPLETED: 'CASH', SETTLING: 'HOLDING' } as const",
        replace: "const creditedAccount = { COMPLETED: 'CASH', SETTLING: 'CASH' } as const",
      },
    ],
  },
  {
    name: 'direct-debit-completion-not-credited',
    family: 'money',
    caught: { result: 'money:completeDirectDebitPayment', reproduced: true },
    class: 'money',
    mistake: 'A direct debit the bank completes is marked COMPLETED without crediting CASH.',
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'applyBankOutcome',
        find: "if (finished.status === 'COMPLETED') await ctx.balances.credit(tx, scope, 'CASH', finished.amount);",
        replace: '',
      },
    ],
  },
];
