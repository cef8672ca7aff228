// Mutants of the lookups check (class lookups): lists in another order than the contract states, a lookup
// answering the oldest of several matches, a list that keeps only one of several matches.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'lists-oldest-first',
    family: 'lookups',
    caught: { result: 'lookups:listDisbursementsByExternalId' },
    class: 'lookups',
    mistake:
      'lists are answered in the order the store keeps them, oldest first: the disbursements sharing an external_id and a customer’s payment methods',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.listDisbursementsByExternalId',
        find: 'const [first, ...rest] = found.map(resourceOf);',
        replace: 'const [first, ...rest] = found.reverse().map(resourceOf);',
      },
      {
        file: 'direct-debit/linking.ts',
        within: 'linkingHandlers.listPaymentMethodsByCustomer',
        find: 'body: methods.map((method) => paymentMethodView(method, now))',
        replace: 'body: methods.reverse().map((method) => paymentMethodView(method, now))',
      },
    ],
  },
  {
    name: 'direct-debit-by-reference-oldest',
    family: 'lookups',
    caught: { result: 'lookups:getDirectDebitPaymentByReferenceId' },
    class: 'lookups',
    mistake: 'the direct debit lookup by reference_id answers the first payment made with it instead of the newest',
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'paymentHandlers.getDirectDebitPaymentByReferenceId',
        find: "{ order: 'newest', limit: 1 }",
        replace: "{ order: 'oldest', limit: 1 }",
      },
    ],
  },
  {
    name: 'disbursement-list-newest-only',
    family: 'lookups',
    caught: { result: 'lookups:listDisbursementsByExternalId' },
    class: 'lookups',
    mistake:
      'the disbursements found by external_id are answered as a one-element list of the newest, as if external_id were unique',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.listDisbursementsByExternalId',
        find: 'return { status: 200, body: [first, ...rest] };',
        replace: 'return { status: 200, body: [first] };',
      },
    ],
  },
  {
    name: 'customers-listed-oldest-first',
    family: 'lookups',
    caught: { result: 'lookups:listCustomers' },
    class: 'lookups',
    mistake: 'the customers list without a filter is answered oldest first',
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.listCustomers',
        find: 'const newest = { limit: LIST_LIMIT };',
        replace: "const newest = { order: 'oldest' as const, limit: LIST_LIMIT };",
      },
    ],
  },
];
