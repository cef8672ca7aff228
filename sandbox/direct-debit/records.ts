// The stored shapes of the direct debit objects and the views the contract answers with. Records keep a
// little bookkeeping the responses do not show (OTP attempts, the callback URL, the uniqueness key of an
// ACTIVE payment method); the views drop it, and compute what depends on time at read time.
import type { components } from '@payments-contract/server/types';
import type { Json } from '../context.js';
import type { CollectionDefinition } from '../store/store.js';
import type { OtpState } from './otp.js';

export type Schemas = components['schemas'];

export const COLLECTIONS = {
  tokens: 'linked_account_tokens',
  accounts: 'linked_accounts',
  paymentMethods: 'payment_methods',
  payments: 'direct_debit_payments',
} as const;

export const collections: CollectionDefinition[] = [
  { name: COLLECTIONS.tokens },
  { name: COLLECTIONS.accounts, indexed: ['token_id'] },
  // `active_linked_account_id` is the linked account's id while the method is ACTIVE and null after: the
  // store's uniqueness then enforces "one ACTIVE payment method per linked account".
  { name: COLLECTIONS.paymentMethods, unique: ['active_linked_account_id'], indexed: ['customer_id'] },
  { name: COLLECTIONS.payments, indexed: ['reference_id'] },
];

export type TokenRecord = OtpState & {
  id: string;
  customer_id: string;
  channel_code: Schemas['LinkedAccountChannelCode'];
  status: Schemas['LinkedAccountToken']['status'];
  /** The card details given on initialization; the linked account is built from them. */
  properties: LinkedAccountProperties;
  metadata: Json;
  created: string;
};

export type LinkedAccountProperties = {
  account_mobile_number: string;
  card_last_four: string;
  card_expiry: string;
  account_email: string;
};

export type LinkedAccountRecord = {
  id: string;
  token_id: string;
  customer_id: string;
  channel_code: Schemas['LinkedAccountChannelCode'];
  type: Schemas['LinkedAccount']['type'];
  properties: LinkedAccountProperties & { currency: string; description: string };
};

export type PaymentMethodRecord = {
  id: string;
  type: Schemas['PaymentMethod']['type'];
  properties: {
    id: string;
    channel_code: Schemas['LinkedAccountChannelCode'];
    currency: string;
    card_last_four: string;
    card_expiry: string;
    description: string | null;
  };
  customer_id: string;
  status: Schemas['PaymentMethod']['status'];
  created: string;
  updated: string;
  metadata: Json;
  active_linked_account_id: string | null;
};

export type PaymentRecord = OtpState & {
  id: string;
  reference_id: string;
  channel_code: Schemas['LinkedAccountChannelCode'];
  payment_method_id: string;
  currency: string;
  amount: number;
  description: string | null;
  status: Schemas['DirectDebitPayment']['status'];
  basket: Json;
  failure_code: Schemas['DirectDebitFailureCode'] | null;
  is_otp_required: boolean;
  otp_mobile_number: string;
  otp_expiration_timestamp: string;
  /** True once validateDirectDebitPaymentOtp accepted the code: the bank's outcome may follow. */
  otp_accepted: boolean;
  callback_url: string;
  created: string;
  updated: string | null;
  metadata: Json;
};

/**
 * A request value (or an object of a generated type) as stored JSON: the round trip drops `undefined`
 * properties, which the generated types allow and JSON has not; an absent value is stored as null.
 */
export const storedJson = (value: unknown): Json =>
  value === undefined ? null : (JSON.parse(JSON.stringify(value)) as Json);

/** The first moment after the card's expiry month (`MM/YY`), when a payment method on it becomes EXPIRED. */
export function cardExpiresAt(cardExpiry: string): Date {
  const [month, year] = cardExpiry.split('/').map(Number);
  // Date.UTC's month is 0-based, so `month` itself names the month after the expiry month.
  return new Date(Date.UTC(2000 + (year ?? 0), month ?? 0, 1));
}

/**
 * The payment method as it stands at `now`: an ACTIVE method whose card expiry month has passed is EXPIRED
 * (decision `payment-method-statuses`), changed at the moment the month ended. Nothing runs when the month
 * ends; the next read sees it, so advancing the sandbox clock expires cards.
 */
export function currentPaymentMethod(record: PaymentMethodRecord, now: Date): PaymentMethodRecord {
  if (record.status !== 'ACTIVE') return record;
  const expiresAt = cardExpiresAt(record.properties.card_expiry);
  if (now.getTime() < expiresAt.getTime()) return record;
  const updated = Date.parse(record.updated) > expiresAt.getTime() ? record.updated : expiresAt.toISOString();
  return { ...record, status: 'EXPIRED', updated, active_linked_account_id: null };
}

export function tokenView(record: TokenRecord): Schemas['LinkedAccountToken'] {
  return {
    id: record.id,
    customer_id: record.customer_id,
    channel_code: record.channel_code,
    authorizer_url: null,
    status: record.status,
    metadata: record.metadata as Schemas['Metadata'],
  };
}

export function linkedAccountView(record: LinkedAccountRecord): Schemas['LinkedAccount'] {
  return { id: record.id, channel_code: record.channel_code, type: record.type, properties: record.properties };
}

export function paymentMethodView(record: PaymentMethodRecord, now: Date): Schemas['PaymentMethod'] {
  const current = currentPaymentMethod(record, now);
  return {
    id: current.id,
    type: current.type,
    properties: current.properties,
    customer_id: current.customer_id,
    status: current.status,
    created: current.created,
    updated: current.updated,
    metadata: current.metadata as Schemas['Metadata'],
  };
}

export function paymentView(record: PaymentRecord): Schemas['DirectDebitPayment'] {
  return {
    id: record.id,
    reference_id: record.reference_id,
    channel_code: record.channel_code,
    payment_method_id: record.payment_method_id,
    currency: record.currency,
    amount: record.amount,
    description: record.description,
    status: record.status,
    basket: record.basket as Schemas['DirectDebitPayment']['basket'],
    failure_code: record.failure_code,
    is_otp_required: record.is_otp_required,
    otp_mobile_number: record.otp_mobile_number,
    otp_expiration_timestamp: record.otp_expiration_timestamp,
    created: record.created,
    updated: record.updated,
    metadata: record.metadata as Schemas['DirectDebitMetadata'],
  };
}
