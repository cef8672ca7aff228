// Mutants of the isolation check: objects found by id or merchant reference without the key's merchant or
// mode, another merchant's object changed, and a foreign object answered with the wrong code.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'disbursement-read-across-merchants',
    family: 'isolation',
    caught: {
      result: 'isolation:getDisbursement',
      says: [
        /another merchant's key .*answered 200 with the owner's object; the contract answers INVALID_PERMISSION_ERROR/,
      ],
    },
    mistake:
      "a disbursement is read by its id among every merchant's disbursements of the mode, since ids are unique anyway",
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.getDisbursement',
        find: 'if (elsewhere.some(({ scope }) => scope.mode === principal.mode && scope.merchantId !== principal.merchantId)) {\n        return { status: 403,',
        replace:
          'const foreign = elsewhere.find(({ scope }) => scope.mode === principal.mode);\n      if (foreign) return { status: 200, body: resourceOf(foreign.record) };\n      if (elsewhere.length < 0) {\n        return { status: 403,',
      },
    ],
  },
  {
    name: 'disbursement-other-merchant-not-found',
    family: 'isolation',
    caught: { result: 'isolation:getDisbursement', says: [/another merchant's key .*expected status 403, got 404/] },
    mistake:
      "another merchant's disbursement is answered 404 like an unknown id instead of the documented 403 INVALID_PERMISSION_ERROR",
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.getDisbursement',
        find: "return { status: 403, body: { error_code: 'INVALID_PERMISSION_ERROR', message: `You do not have access to disbursement ${path.id}.` } };",
        replace: 'return notFound(path.id);',
      },
    ],
  },
  {
    name: 'customer-lookup-across-merchants',
    family: 'isolation',
    caught: {
      result: 'isolation:listCustomers',
      says: [/another merchant's key .*answered 200 with the owner's object/],
    },
    class: 'lookups',
    mistake: "customers are looked up by external_id among every merchant's customers of the mode",
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.listCustomers',
        find: "await ctx.store.findBy<CustomerRecord>(COLLECTION, principal, 'external_id', query.external_id, newest);",
        replace:
          "(await ctx.store.findAcrossScopes<CustomerRecord>(COLLECTION, 'external_id', query.external_id)).filter(({ scope }) => scope.mode === principal.mode).map(({ record }) => record);",
      },
    ],
  },
  {
    name: 'customer-update-across-merchants',
    family: 'isolation',
    caught: {
      result: 'isolation:updateCustomer',
      says: [/another merchant's key .*changed the owner's Customer \(read back with the owner's key/],
    },
    mistake: 'a customer is updated wherever its id is found, in the scope that holds it, whoever the key belongs to',
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.updateCustomer',
        find: 'return ctx.store.transaction(async (tx) => {\n        const stored = await tx.get<CustomerRecord>(COLLECTION, principal, path.id);',
        replace:
          "const [holder] = await ctx.store.findAcrossScopes<CustomerRecord>(COLLECTION, 'id', path.id);\n      const owner = holder?.scope ?? principal;\n      return ctx.store.transaction(async (tx) => {\n        const stored = await tx.get<CustomerRecord>(COLLECTION, owner, path.id);",
      },
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.updateCustomer',
        find: 'await tx.update(COLLECTION, principal, toRecord(customer));',
        replace: 'await tx.update(COLLECTION, owner, toRecord(customer));',
      },
    ],
  },
  {
    name: 'fva-read-ignores-mode',
    family: 'isolation',
    caught: {
      result: 'isolation:getFixedVirtualAccount',
      says: [/the other mode's key .*answered 200 with the owner's object/],
    },
    mistake: 'a fixed virtual account is always read from the test data, so the live key reads test accounts',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.getFixedVirtualAccount',
        find: 'const account = await ctx.store.get<StoredAccount>(ACCOUNTS, principal, path.id);',
        replace:
          "const account = await ctx.store.get<StoredAccount>(ACCOUNTS, { ...principal, mode: 'test' }, path.id);",
      },
    ],
  },
];
