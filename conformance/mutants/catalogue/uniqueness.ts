// Mutants of the uniqueness check: a duplicate rule missing, kept on the wrong field, or kept across
// modes instead of within the merchant's mode.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'ewallet-duplicate-check-missing',
    family: 'uniqueness',
    caught: { result: 'uniqueness:createEwalletPayment', reproduced: true },
    mistake:
      'e-wallet payments are indexed by external_id but not unique, so a repeated external_id creates a second payment',
    edits: [
      {
        file: 'ewallets/index.ts',
        within: 'collections',
        find: "{ name: COLLECTION, unique: ['external_id'] },",
        replace: "{ name: COLLECTION, indexed: ['external_id'] },",
      },
    ],
  },
  {
    name: 'customer-duplicate-on-email',
    family: 'uniqueness',
    caught: { result: 'uniqueness:createCustomer', reproduced: true },
    mistake:
      'customers are made unique by email instead of external_id, so a repeated external_id with another email is accepted and customers sharing an email are refused',
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'collections',
        find: "[{ name: COLLECTION, unique: ['external_id'] }]",
        replace: "[{ name: COLLECTION, unique: ['email'] }]",
      },
    ],
  },
  {
    name: 'ewallet-duplicates-across-modes',
    family: 'uniqueness',
    caught: { result: 'uniqueness:createEwalletPayment', reproduced: true },
    mistake:
      "e-wallet payments of both modes are stored under the test mode, so a live payment is refused for a test payment's external_id",
    edits: [
      {
        file: 'ewallets/index.ts',
        within: 'ewalletHandlers.createEwalletPayment',
        find: 'await ctx.store.insert(COLLECTION, principal, record);',
        replace: "await ctx.store.insert(COLLECTION, { ...principal, mode: 'test' }, record);",
      },
    ],
  },
];
