// What the control API's resource lists (listResources) show of each kind: the module's collection, the
// service contract's state machine for it, and the module's own view of a record, so a listed resource
// reads exactly as the service's lookup answers it.
import { toJson } from './balance/callbacks.js';
import { COLLECTION as CUSTOMERS } from './customers/index.js';
import {
  COLLECTIONS as DIRECT_DEBIT,
  paymentMethodView,
  paymentView,
  type PaymentMethodRecord,
  type PaymentRecord,
} from './direct-debit/records.js';
import {
  COLLECTION as DISBURSEMENTS,
  resourceOf as disbursementView,
  type DisbursementRecord,
} from './disbursements/index.js';
import { COLLECTION as EWALLET_PAYMENTS, type EwalletPaymentRecord } from './ewallets/index.js';
import { CODES, codeView, inactiveReason, type StoredCode } from './fixed-payment-codes/records.js';
import { ACCOUNTS, accountView, settledAt, type StoredAccount } from './fixed-virtual-accounts/records.js';
import type { Json, JsonRecord } from './context.js';
import type { ResourceKind, ResourceKindName } from './platform/resources.js';

/** The resource as a JSON object (views are typed by the contract's schemas, which are all JSON). */
function jsonObject(value: object): { [field: string]: Json } {
  return toJson(value) as { [field: string]: Json };
}

/** A kind whose records are stored as `Stored` (every collection holds one module's records only). */
function kind<Stored>(
  collection: string,
  machine: string | null,
  show: (record: Stored, now: Date) => { resource: object; state: string | null },
): ResourceKind {
  return {
    collection,
    machine,
    show: (record: JsonRecord, now: Date) => {
      const shown = show(record as unknown as Stored, now);
      return { resource: jsonObject(shown.resource), state: shown.state };
    },
  };
}

/** An e-wallet payment as its `ewallet.payment` callback shows it: the service has no lookup by id. */
function ewalletPaymentView(record: EwalletPaymentRecord) {
  const { id, external_id, business_id, phone, ewallet_type, amount, status, created } = record;
  return {
    id,
    external_id,
    business_id,
    phone,
    ewallet_type,
    amount,
    status,
    ...(record.failure_code ? { failure_code: record.failure_code } : {}),
    created,
  };
}

export const RESOURCE_KINDS: Readonly<Record<ResourceKindName, ResourceKind>> = {
  fixed_virtual_accounts: kind<StoredAccount>(ACCOUNTS, 'fixedVirtualAccount', (record, now) => {
    const account = settledAt(record, now);
    return { resource: accountView(account), state: account.status };
  }),
  // A code has no status field: its state is computed (state machine fixedPaymentCode).
  fixed_payment_codes: kind<StoredCode>(CODES, 'fixedPaymentCode', (record, now) => ({
    resource: codeView(record),
    state: inactiveReason(record, now) === undefined ? 'ACTIVE' : 'INACTIVE',
  })),
  disbursements: kind<DisbursementRecord>(DISBURSEMENTS, 'disbursement', (record) => ({
    resource: disbursementView(record),
    state: record.status,
  })),
  ewallet_payments: kind<EwalletPaymentRecord>(EWALLET_PAYMENTS, 'ewalletPayment', (record) => ({
    resource: ewalletPaymentView(record),
    state: record.status,
  })),
  customers: kind<JsonRecord>(CUSTOMERS, null, (record) => ({ resource: record, state: null })),
  payment_methods: kind<PaymentMethodRecord>(DIRECT_DEBIT.paymentMethods, 'paymentMethod', (record, now) => {
    const method = paymentMethodView(record, now);
    return { resource: method, state: method.status };
  }),
  direct_debits: kind<PaymentRecord>(DIRECT_DEBIT.payments, 'directDebitPayment', (record) => ({
    resource: paymentView(record),
    state: record.status,
  })),
};
