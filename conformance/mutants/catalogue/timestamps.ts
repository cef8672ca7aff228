// Mutants of the timestamps check (class time): an update time that changes stay from moving, a creation
// time written again by a change, an update time stamped by a read, a transition's time never set, times
// written in local time as if UTC. Each spans several resources where the mistake would.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'updated-stamped-only-at-creation',
    family: 'timestamps',
    caught: { result: 'timestamps:createFixedVirtualAccount' },
    class: 'time',
    mistake:
      '`updated` is written when the object is created and carried along by every later change, so a customer update, a fixed virtual account update and a payment method revoked all keep their creation time',
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.updateCustomer',
        find: 'created, updated: ctx.clock.now(principal).toISOString() };',
        replace: 'created, updated: _previous };',
      },
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: 'updated: nextStamp(account.updated, now),',
        replace: 'updated: account.updated,',
      },
      {
        file: 'direct-debit/linking.ts',
        within: 'paymentMethodControlHandlers.invalidatePaymentMethod',
        find: "status: 'INACTIVE', updated: now.toISOString(),",
        replace: "status: 'INACTIVE',",
      },
    ],
  },
  {
    name: 'created-restamped-on-change',
    family: 'timestamps',
    caught: { result: 'timestamps:createFixedVirtualAccount' },
    class: 'time',
    mistake:
      'a change writes the whole record with fresh timestamps, `created` included, so a customer or fixed virtual account updated later claims to have been created then',
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.updateCustomer',
        find: 'created, updated: ctx.clock.now(principal).toISOString() };',
        replace: 'created: ctx.clock.now(principal).toISOString(), updated: ctx.clock.now(principal).toISOString() };',
      },
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: 'updated: nextStamp(account.updated, now),',
        replace: 'updated: nextStamp(account.updated, now),\n          created: now.toISOString(),',
      },
    ],
  },
  {
    name: 'updated-touched-by-read',
    family: 'timestamps',
    caught: { result: 'timestamps:createFixedVirtualAccount' },
    class: 'time',
    mistake:
      'reading an object stamps it as seen now, so `updated` of a fixed virtual account or a disbursement moves with every GET',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.getFixedVirtualAccount',
        find: 'body: accountView(settledAt(account, ctx.clock.now(principal)))',
        replace:
          'body: { ...accountView(settledAt(account, ctx.clock.now(principal))), updated: ctx.clock.now(principal).toISOString() }',
      },
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.getDisbursement',
        find: 'if (own) return { status: 200, body: resourceOf(own) };',
        replace:
          'if (own) return { status: 200, body: { ...resourceOf(own), updated: ctx.clock.now(principal).toISOString() } };',
      },
    ],
  },
  {
    name: 'ewallet-transaction-date-kept-at-request',
    family: 'timestamps',
    caught: { result: 'timestamps:createEwalletPayment' },
    class: 'time',
    mistake:
      'the e-wallet status answers the time the payment was requested as `transaction_date` even after the end user paid',
    edits: [
      {
        file: 'ewallets/index.ts',
        within: 'statusOf',
        find: 'transaction_date: record.paid ?? record.created',
        replace: 'transaction_date: record.created',
      },
    ],
  },
  {
    name: 'timestamps-written-in-jakarta-time',
    family: 'timestamps',
    caught: { result: 'timestamps:createCustomer' },
    class: 'time',
    mistake:
      "new customers' `created` and `updated` are the wall-clock time in Jakarta (UTC+7) written with a Z, seven hours in the future",
    edits: [
      {
        file: 'customers/customers.ts',
        within: 'customerHandlers.createCustomer',
        find: 'const now = ctx.clock.now(principal).toISOString();',
        replace: 'const now = new Date(ctx.clock.now(principal).getTime() + 7 * 60 * 60 * 1000).toISOString();',
      },
    ],
  },
];
