// Mutants of check 4 (positive_data): valid requests, often the contract's own examples, that the
// implementation refuses.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'fva-suggested-amount-refused-on-create',
    family: 'positive_data',
    caught: { result: 'positive_data:createFixedVirtualAccount' },
    mistake:
      "the update's suggested_amount rule is copied into creation with its test inverted, so a MANDIRI account with a suggested_amount is refused",
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.createFixedVirtualAccount',
        find: 'const forbidden = forbiddenNameTerms.exec(body.name);',
        replace:
          "if (body.suggested_amount !== undefined && supportsSuggestedAmount(bank)) return fail(400, 'API_VALIDATION_ERROR', `suggested_amount is not supported for ${bank} accounts.`);\n      const forbidden = forbiddenNameTerms.exec(body.name);",
      },
    ],
  },
  {
    name: 'disbursement-ewallet-destination-refused',
    family: 'positive_data',
    caught: {
      result: 'positive_data:createDisbursement',
      says: [/valid example "ewallet": expected status 200, got 400/],
      reproduced: true,
    },
    mistake:
      'only banks are accepted as disbursement destinations; an e-wallet code the bank list includes (OVO) is refused as not supported',
    edits: [
      {
        file: 'balance/banks.ts',
        within: 'findDisbursementBank',
        find: 'return disbursementBankCatalog.find((bank) => bank.code === code);',
        replace: 'return disbursementBankCatalog.find((bank) => bank.code === code && /bank/i.test(bank.name));',
      },
    ],
  },
  {
    name: 'ewallet-test-decline-refused-at-creation',
    family: 'positive_data',
    caught: { result: 'positive_data:createEwalletPayment' },
    mistake:
      'a test amount that selects a declined payment is refused when the payment is created, instead of the payment being created and then failing',
    edits: [
      {
        file: 'ewallets/index.ts',
        within: 'ewalletHandlers.createEwalletPayment',
        find: 'const record: EwalletPaymentRecord = {',
        replace:
          "if (principal.mode === 'test' && automaticOutcome(principal, body).status === 'FAILED') return { status: 400, body: { error_code: 'API_VALIDATION_ERROR', message: 'The payment was declined.' } } as never;\n      const record: EwalletPaymentRecord = {",
      },
    ],
  },
];
