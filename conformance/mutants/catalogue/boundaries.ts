// Mistakes at the edges of the request rules: limits re-checked by hand in a handler, one step off or on the
// wrong branch. The router enforces the contract's own schema, so each mistake is an extra check an
// implementer wrote beside it, as happens when a limit is copied into business code. The `boundaries` check
// catches them by sending each bound's allowed edge, and each conditional rule's other branch.
import type { Mutant } from '../types.js';

/** Where the disbursement handler has validated the bank and reads the settings: the hand-written checks go right before that. */
const AFTER_BANK_CHECK = 'const settings = ctx.settings.peek(principal);';
const handCheck = (condition: string, code: string): string =>
  `const EIGHT_BANKS = ['BCA', 'MANDIRI', 'BRI', 'BNI', 'BNI_SYR', 'CIMB', 'CIMB_UUS', 'PERMATA'];\n      if (${condition}) return { status: 400, body: { error_code: '${code}', message: 'Amount outside the limits for this bank.' } };\n      ${AFTER_BANK_CHECK}`;

export const mutants: Mutant[] = [
  {
    name: 'disbursement-minimum-exclusive',
    family: 'boundaries',
    caught: { result: 'boundaries:createDisbursement', reproduced: true },
    class: 'money',
    mistake:
      'The 10000 IDR minimum for banks outside the eight is checked with <= instead of <, refusing exactly 10000.',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: AFTER_BANK_CHECK,
        replace: handCheck('!EIGHT_BANKS.includes(body.bank_code) && body.amount <= 10000', 'RECIPIENT_AMOUNT_ERROR'),
      },
    ],
  },
  {
    name: 'disbursement-maximum-off-by-one',
    family: 'boundaries',
    caught: { result: 'boundaries:createDisbursement', reproduced: true },
    class: 'money',
    mistake:
      'The 100000000 IDR maximum for banks outside the eight is checked with >= instead of >, refusing exactly the maximum.',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: AFTER_BANK_CHECK,
        replace: handCheck(
          '!EIGHT_BANKS.includes(body.bank_code) && body.amount >= 100000000',
          'MAXIMUM_TRANSFER_LIMIT_ERROR',
        ),
      },
    ],
  },
  {
    name: 'disbursement-minimum-on-every-bank',
    family: 'boundaries',
    caught: { result: 'boundaries:createDisbursement', reproduced: true },
    class: 'money',
    mistake:
      'The 10000 IDR minimum is applied to every bank, also the eight that take any positive amount (the conditional limit on the wrong branch).',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: AFTER_BANK_CHECK,
        replace: handCheck('EIGHT_BANKS.length > 0 && body.amount < 10000', 'RECIPIENT_AMOUNT_ERROR'),
      },
    ],
  },
  {
    name: 'bca-account-digits-on-every-bank',
    family: 'boundaries',
    caught: { result: 'boundaries:createDisbursement', reproduced: true },
    mistake: 'The 10-digit account number rule of BCA is applied to every bank.',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: AFTER_BANK_CHECK,
        replace: `if (!/^[0-9]{10}$/.test(body.account_number)) return { status: 400, body: { error_code: 'RECIPIENT_ACCOUNT_NUMBER_ERROR', message: 'The account number must be 10 digits.' } };\n      ${AFTER_BANK_CHECK}`,
      },
    ],
  },
  {
    name: 'fva-external-id-max-length-off-by-one',
    family: 'boundaries',
    caught: { result: 'boundaries:createFixedVirtualAccount', reproduced: true },
    mistake:
      "A fixed virtual account's external_id is re-checked by hand against its 950-character limit with >= instead of >.",
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.createFixedVirtualAccount',
        find: 'const bank = body.bank_code;\n      const range = bankRange(settings, bank);',
        replace:
          "if (body.external_id.length >= 950) return fail(400, 'API_VALIDATION_ERROR', 'external_id is too long.');\n      const bank = body.bank_code;\n      const range = bankRange(settings, bank);",
      },
    ],
  },
];
