// Mutants of check 5 (stateful_workflows): each request is answered in the right shape, but what the
// service remembers is wrong — an update not kept, a lookup that ignores its filter, a resource not found
// right after its creation.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'fva-update-not-stored',
    family: 'stateful_workflows',
    caught: { result: 'stateful_workflows:fixed-virtual-account' },
    mistake:
      'a fixed virtual account update answers the changed account but never writes it, so the account keeps its old values and stays ACTIVE',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: 'await tx.update(ACCOUNTS, principal, changed);',
        replace: '',
      },
    ],
  },
  {
    name: 'disbursement-lookup-ignores-external-id',
    family: 'stateful_workflows',
    caught: {
      result: 'stateful_workflows:disbursement',
      says: [/find by identifier: an item does not match the query \(external_id\)/],
      shownBy: /\/disbursements\?external_id=/,
      reproduced: true,
    },
    class: 'lookups',
    mistake:
      'the disbursement lookup by external_id answers every disbursement of the merchant (the filter was dropped)',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.listDisbursementsByExternalId',
        find: "ctx.store.findBy<DisbursementRecord>(COLLECTION, principal, 'external_id', query.external_id, {",
        replace: 'ctx.store.list<DisbursementRecord>(COLLECTION, principal, {',
      },
    ],
  },
  {
    name: 'fpc-get-reads-live-mode',
    family: 'stateful_workflows',
    caught: { result: 'stateful_workflows:fixed-payment-code' },
    mistake:
      'a fixed payment code is read from the live-mode store whatever the key, so a test-mode code is not found right after its creation',
    edits: [
      {
        file: 'fixed-payment-codes/index.ts',
        within: 'fixedPaymentCodeHandlers.getFixedPaymentCode',
        find: 'const code = await ctx.store.get<StoredCode>(CODES, principal, path.id);',
        replace: "const code = await ctx.store.get<StoredCode>(CODES, { ...principal, mode: 'live' }, path.id);",
      },
    ],
  },
  {
    name: 'customer-update-not-stored',
    family: 'stateful_workflows',
    caught: { result: 'stateful_workflows:customer' },
    mistake:
      'a customer update answers the updated customer but is never written, so the lookup shows the old contact details',
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.updateCustomer',
        find: 'await tx.update(COLLECTION, principal, toRecord(customer));',
        replace: '',
      },
    ],
  },
];
