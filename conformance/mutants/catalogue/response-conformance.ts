// Mutants of check 1 (response_conformance): answers whose shape breaks the contract while the request
// itself was handled right. The runner starts mutants with the sandbox's own response validation off, as a
// deployed service runs, so the suite has to see these mistakes itself.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'disbursement-amount-as-text',
    family: 'response_conformance',
    caught: { result: 'response_conformance:createDisbursement' },
    mistake: 'the disbursement resource carries amount as a string ("17500000"), as the database column hands it back',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'resourceOf',
        find: 'return {\n    id,\n    user_id,\n    external_id,\n    amount,',
        replace: 'return {\n    id,\n    user_id,\n    external_id,\n    amount: String(amount) as unknown as number,',
      },
    ],
  },
  {
    name: 'fva-read-expiration-as-epoch',
    family: 'response_conformance',
    caught: {
      result: 'response_conformance:getFixedVirtualAccount',
      says: [/\/expiration_date must be string/],
      reproduced: true,
    },
    mistake:
      'reading a fixed virtual account answers expiration_date as epoch milliseconds (a number) instead of the documented ISO 8601 date-time string',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.getFixedVirtualAccount',
        find: 'return { status: 200, body: accountView(settledAt(account, ctx.clock.now(principal))) };',
        replace:
          'return { status: 200, body: { ...accountView(settledAt(account, ctx.clock.now(principal))), expiration_date: Date.parse(account.expiration_date) } as never };',
      },
    ],
  },
  {
    name: 'disbursement-not-found-code-misspelled',
    family: 'response_conformance',
    caught: { result: 'response_conformance:getDisbursement' },
    mistake:
      'an unknown disbursement is answered 404 DISBURSEMENT_NOT_FOUND_ERROR, a code the contract does not document (it says DIRECT_DISBURSEMENT_NOT_FOUND_ERROR)',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'notFound',
        find: "body: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR', message: `Disbursement ${id} was not found.` }",
        replace: "body: { error_code: 'DISBURSEMENT_NOT_FOUND_ERROR', message: `Disbursement ${id} was not found.` }",
      },
    ],
  },
  {
    name: 'customer-created-without-updated',
    family: 'response_conformance',
    caught: { result: 'response_conformance:createCustomer' },
    mistake: 'a new customer is answered without its required updated timestamp (set only by the first update)',
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.createCustomer',
        find: 'const customer: Customer = { id: ctx.ids.next(), ...checked.fields, created: now, updated: now };',
        replace: 'const customer = { id: ctx.ids.next(), ...checked.fields, created: now } as Customer;',
      },
    ],
  },
];
