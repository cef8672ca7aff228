// Mutants of the forbidden_transitions check: an action the state machine does not allow in a state (a final
// state, an object whose time has run out) that is let through, or refused while it still changes the object,
// a balance or sends a callback; and an expiry that takes effect on the wrong side of its instant.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'virtual-account-paid-after-expiry',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:getFixedVirtualAccount' },
    class: 'time',
    mistake:
      "a transfer is checked against the account's stored status only, so an account whose expiration_date has passed on the clock (not yet written back INACTIVE) is still paid, credited and reported",
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountControlHandlers.simulateFixedVirtualAccountPayment',
        find: 'const account = await currentAccount(ctx, tx, principal, path.id);',
        replace: 'const account = await tx.get<StoredAccount>(ACCOUNTS, principal, path.id);',
      },
    ],
  },
  {
    name: 'payment-code-paid-after-expiry',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:getFixedPaymentCode' },
    class: 'time',
    mistake:
      'the cashier only refuses a single-use code that was paid; a code past its expiration_date (or expired by an update) is still paid and credited',
    edits: [
      {
        file: 'fixed-payment-codes/index.ts',
        within: 'fixedPaymentCodeControlHandlers.simulateFixedPaymentCodePayment',
        find: 'const inactive = inactiveReason(code, now);',
        replace:
          'const inactive = code.is_single_use && code.paid ? `Fixed payment code ${code.id} is single-use and has been paid.` : undefined;',
      },
    ],
  },
  {
    name: 'payment-code-expiry-grace-period',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:updateFixedPaymentCode' },
    class: 'time',
    mistake:
      'a 30-second grace period for late cashier confirmations keeps a code payable and updatable after the instant of its expiration_date',
    edits: [
      {
        file: 'fixed-payment-codes/records.ts',
        within: 'inactiveReason',
        find: 'if (Date.parse(code.expiration_date) <= now.getTime()) return',
        replace: 'if (Date.parse(code.expiration_date) + 30_000 <= now.getTime()) return',
      },
    ],
  },
  {
    name: 'virtual-account-expires-early',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:updateFixedVirtualAccount' },
    class: 'time',
    mistake:
      'a five-minute allowance for bank clock skew is applied on the wrong side: an account reads INACTIVE and refuses transfers five minutes before its expiration_date',
    edits: [
      {
        file: 'fixed-virtual-accounts/records.ts',
        within: 'isExpired',
        find: 'Date.parse(account.expiration_date) <= now.getTime()',
        replace: 'Date.parse(account.expiration_date) - 5 * 60_000 <= now.getTime()',
      },
    ],
  },
  {
    name: 'inactive-virtual-account-update-saved-before-refusal',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:updateFixedVirtualAccount' },
    class: 'forbidden-transitions',
    mistake:
      'the INACTIVE check of an update runs after the changes are written: the answer is INACTIVE_VIRTUAL_ACCOUNT_ERROR, but the new amounts and expiration_date are stored',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: "if (account.status === 'INACTIVE') return fail(400, 'INACTIVE_VIRTUAL_ACCOUNT_ERROR', `The fixed virtual account ${account.id} is inactive and cannot be updated.`);",
        replace: '',
      },
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: 'await tx.update(ACCOUNTS, principal, changed);',
        replace:
          "await tx.update(ACCOUNTS, principal, changed);\n        if (account.status === 'INACTIVE') return fail(400, 'INACTIVE_VIRTUAL_ACCOUNT_ERROR', `The fixed virtual account ${account.id} is inactive and cannot be updated.`);",
      },
    ],
  },
  {
    name: 'finished-disbursement-rejection-refunds-again',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:getDisbursement' },
    class: 'forbidden-transitions',
    mistake:
      "the refund of a rejected transfer is booked before the disbursement's state is checked: a rejection of a disbursement already COMPLETED or FAILED is answered SANDBOX_STATE_CONFLICT but credits CASH again",
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'finish',
        find: "if (record.status !== 'PENDING') return { kind: 'final', record };",
        replace:
          "if (record.status !== 'PENDING') {\n      if (outcome.status === 'FAILED') await ctx.balances.credit(tx, scope, 'CASH', record.amount);\n      return { kind: 'final', record };\n    }",
      },
    ],
  },
  {
    name: 'failed-direct-debit-otp-resends-callback',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:validateDirectDebitPaymentOtp' },
    class: 'forbidden-transitions',
    mistake:
      'an OTP sent for a FAILED direct debit is refused with DIRECT_DEBIT_ALREADY_FAILED, but the failure callback is sent again first, as a reminder',
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'paymentHandlers.validateDirectDebitPaymentOtp',
        find: "if (payment.status === 'FAILED') return {",
        replace:
          "if (payment.status === 'FAILED') await ctx.callbacks.enqueue(tx, scope, contract.paymentWebhook, storedJson(callbackOf(payment, ctx.clock.now(scope).toISOString())), payment.callback_url);\n        if (payment.status === 'FAILED') return {",
      },
    ],
  },
  {
    name: 'failed-ewallet-payment-approved-late',
    family: 'forbidden_transitions',
    caught: { result: 'forbidden_transitions:getEwalletPaymentStatus' },
    class: 'forbidden-transitions',
    mistake:
      'an approval that arrives after the payment FAILED (declined or not authorised in time) is still taken: the payment becomes COMPLETED and CASH is credited',
    edits: [
      {
        file: 'ewallets/index.ts',
        within: 'resolveByControl',
        find: "if (record.status !== 'PENDING') return { kind: 'not-pending', record };",
        replace:
          "if (record.status === 'COMPLETED' || (record.status === 'FAILED' && outcome.status === 'FAILED')) return { kind: 'not-pending', record };",
      },
    ],
  },
];
