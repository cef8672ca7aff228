// Mutants of check 3 (negative_data): requests the contract refuses (a rule of the request, with the code
// the contract gives it) that the implementation accepts or answers with another code. Schema rules are
// the generated router's; the rules an implementer writes by hand are the request-data triggers
// (past timestamps, forbidden terms, catalog membership), so that is where these mistakes are made.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'fva-past-expiration-accepted',
    family: 'negative_data',
    caught: { result: 'negative_data:createFixedVirtualAccount' },
    class: 'time',
    mistake:
      'a fixed virtual account is created with an expiration_date in the past (the rule EXPIRATION_DATE_INVALID_ERROR was never written)',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.createFixedVirtualAccount',
        find: "if (Date.parse(body.expiration_date) < now.getTime()) return fail(400, 'EXPIRATION_DATE_INVALID_ERROR', 'expiration_date must not be earlier than the current time.');",
        replace: '',
      },
    ],
  },
  {
    name: 'fpc-past-expiration-generic-code',
    family: 'negative_data',
    caught: { result: 'negative_data:createFixedPaymentCode' },
    class: 'time',
    mistake:
      'a fixed payment code with a past expiration_date is refused with the generic API_VALIDATION_ERROR instead of its own EXPIRATION_DATE_INVALID_ERROR',
    edits: [
      {
        file: 'fixed-payment-codes/index.ts',
        within: 'fixedPaymentCodeHandlers.createFixedPaymentCode',
        find: "return fail(400, 'EXPIRATION_DATE_INVALID_ERROR', 'expiration_date must not be earlier than the current time.');",
        replace:
          "return fail(400, 'API_VALIDATION_ERROR', 'expiration_date must not be earlier than the current time.');",
      },
    ],
  },
  {
    name: 'disbursement-unknown-bank-accepted',
    family: 'negative_data',
    caught: {
      result: 'negative_data:createDisbursement',
      says: [/not in the list listDisbursementBanks answers.*expected status 400/],
      reproduced: true,
    },
    mistake:
      'a disbursement to a bank_code the bank list does not have is accepted (only the schema, a non-empty string, is checked)',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: 'if (!findDisbursementBank(body.bank_code)) {',
        replace: "if (body.bank_code.trim() === '' && !findDisbursementBank(body.bank_code)) {",
      },
    ],
  },
  {
    name: 'fva-forbidden-terms-case-sensitive',
    family: 'negative_data',
    caught: {
      result: 'negative_data:createFixedVirtualAccount',
      says: [/forbidden term "[a-z ]+".*expected status 400/],
      reproduced: true,
    },
    mistake: 'the forbidden bank names are matched in capitals only, so a name like "Toko bca" is accepted',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'forbiddenNameTerms',
        find: "return new RegExp(`(?<![A-Za-z])(?:${alternatives.join('|')})(?![A-Za-z])`, 'i');",
        replace: "return new RegExp(`(?<![A-Za-z])(?:${alternatives.join('|')})(?![A-Za-z])`);",
      },
    ],
  },
];
