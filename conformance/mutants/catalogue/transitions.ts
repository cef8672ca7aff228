// Mutants of the transitions check: a transition that leaves the resource in the wrong state, or a
// transition out of a final state that is accepted instead of answered with the machine's error.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'disbursement-fail-leaves-pending',
    family: 'transitions',
    caught: { result: 'transitions:getDisbursement', reproduced: true },
    mistake:
      "the bank's rejection is answered, refunded and reported by callback, but the stored disbursement is not written and stays PENDING",
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'finish',
        find: 'await tx.update(COLLECTION, scope, finished);',
        replace: "await tx.update(COLLECTION, scope, finished.status === 'FAILED' ? record : finished);",
      },
    ],
  },
  {
    name: 'inactive-payment-code-revived-by-update',
    family: 'transitions',
    caught: { result: 'transitions:updateFixedPaymentCode', reproduced: true },
    class: 'forbidden-transitions',
    mistake:
      'an update that sets a new expiration_date is let through on an inactive fixed payment code, as if it re-activated it',
    edits: [
      {
        file: 'fixed-payment-codes/index.ts',
        within: 'fixedPaymentCodeHandlers.updateFixedPaymentCode',
        find: "if (inactive !== undefined) return fail(400, 'INACTIVE_FIXED_PAYMENT_CODE_ERROR'",
        replace:
          "if (inactive !== undefined && body.expiration_date === undefined) return fail(400, 'INACTIVE_FIXED_PAYMENT_CODE_ERROR'",
      },
    ],
  },
  {
    name: 'inactive-virtual-account-revived-by-update',
    family: 'transitions',
    caught: { result: 'transitions:updateFixedVirtualAccount', reproduced: true },
    class: 'forbidden-transitions',
    mistake: 'an update that sets a new expiration_date is let through on an INACTIVE fixed virtual account',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: "if (account.status === 'INACTIVE') return fail(400, 'INACTIVE_VIRTUAL_ACCOUNT_ERROR'",
        replace:
          "if (account.status === 'INACTIVE' && body.expiration_date === undefined) return fail(400, 'INACTIVE_VIRTUAL_ACCOUNT_ERROR'",
      },
    ],
  },
  {
    name: 'completed-direct-debit-accepts-otp-again',
    family: 'transitions',
    caught: { result: 'transitions:validateDirectDebitPaymentOtp', reproduced: true },
    class: 'forbidden-transitions',
    mistake:
      'a completed direct debit is not refused on a further OTP validation: the accepted-OTP shortcut answers 200 with the payment',
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'paymentHandlers.validateDirectDebitPaymentOtp',
        find: "if (payment.status === 'COMPLETED') return { status: 409",
        replace: "if (payment.status === 'COMPLETED' && !payment.otp_accepted) return { status: 409",
      },
    ],
  },
  {
    name: 'linked-token-validated-twice-succeeds',
    family: 'transitions',
    caught: { result: 'transitions:validateLinkedAccountTokenOtp', reproduced: true },
    class: 'forbidden-transitions',
    mistake:
      'validating an already linked token is treated as idempotent and answered 200 SUCCESS instead of ACCOUNT_LINKING_ALREADY_COMPLETED',
    edits: [
      {
        file: 'direct-debit/linking.ts',
        within: 'linkingHandlers.validateLinkedAccountTokenOtp',
        find: "if (token.status === 'SUCCESS') {",
        replace:
          "if (token.status === 'SUCCESS') {\n          if (token.id !== '') return { status: 200, body: { id: token.id, customer_id: token.customer_id, channel_code: token.channel_code, status: 'SUCCESS' } };",
      },
    ],
  },
  {
    name: 'invalidated-payment-method-still-debits',
    family: 'transitions',
    caught: { result: 'transitions:createDirectDebitPayment', reproduced: true },
    class: 'forbidden-transitions',
    mistake:
      'only an EXPIRED payment method is refused; one the bank or customer invalidated (INACTIVE) can still be charged',
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'paymentHandlers.create',
        find: "if (method.status !== 'ACTIVE') {",
        replace: "if (method.status === 'EXPIRED') {",
      },
    ],
  },
  {
    name: 'max-otp-attempts-leaves-payment-pending',
    family: 'transitions',
    caught: { result: 'transitions:validateDirectDebitPaymentOtp', reproduced: true },
    mistake:
      'the third wrong OTP answers MAX_OTP_ATTEMPTS_ERROR but only an expired OTP fails the direct debit; after too many attempts it stays PENDING',
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'paymentHandlers.validateDirectDebitPaymentOtp',
        find: "await finish(ctx, tx, scope, payment, { status: 'FAILED', failure_code: null });",
        replace:
          "if (verdict.errorCode === 'EXPIRED_OTP_ERROR') await finish(ctx, tx, scope, payment, { status: 'FAILED', failure_code: null });",
      },
    ],
  },
  {
    name: 'payment-code-expiry-on-real-time',
    family: 'transitions',
    caught: { result: 'transitions:getFixedPaymentCode', reproduced: true },
    class: 'time',
    mistake:
      "a fixed payment code's expiry is compared with the machine's real time instead of the sandbox clock, so moving the clock past it leaves the code ACTIVE",
    edits: [
      {
        file: 'fixed-payment-codes/records.ts',
        within: 'inactiveReason',
        find: 'if (Date.parse(code.expiration_date) <= now.getTime()) return',
        replace: 'if (Date.parse(code.expiration_date) <= Date.now()) return',
      },
    ],
  },
  {
    name: 'virtual-account-expiry-not-applied-on-read',
    family: 'transitions',
    caught: { result: 'transitions:updateFixedVirtualAccount', reproduced: true },
    class: 'time',
    mistake:
      'the stored account is answered as stored: an account whose expiration_date has passed still reads ACTIVE and can be updated',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'currentAccount',
        find: 'const current = settledAt(stored, ctx.clock.now(caller));',
        replace: 'const current = stored;',
      },
    ],
  },
];
