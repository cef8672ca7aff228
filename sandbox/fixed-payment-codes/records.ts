// How fixed payment codes and their payments are stored, and how a stored code is shown. A code has no
// status field: it is inactive once its expiry has passed on the sandbox clock or, single-use, once paid
// (state machine `fixedPaymentCode`), which is computed at read time.
import type { components } from '@payments-contract/server/types';
import type { FixedPaymentCodePaidCallback } from '@payments-contract/client/webhooks';
import type { JsonRecord } from '../context.js';
import type { CollectionDefinition } from '../store/store.js';

export type FixedPaymentCode = components['schemas']['FixedPaymentCode'];
export type RetailOutlet = FixedPaymentCode['retail_outlet_name'];

export const CODES = 'fixed_payment_codes';
export const PAYMENTS = 'fixed_payment_code_payments';

export interface StoredCode extends JsonRecord {
  id: string;
  owner_id: string;
  external_id: string;
  retail_outlet_name: RetailOutlet;
  prefix: string;
  name: string;
  payment_code: string;
  type: FixedPaymentCode['type'];
  expected_amount: number;
  is_single_use: boolean;
  expiration_date: string;
  /** A single-use code that has been paid is inactive. */
  paid: boolean;
  created: string;
  updated: string;
  /** `<retail_outlet_name>:<payment_code>`: a code is unique per outlet (the duplicate trigger's fields). */
  code_key: string;
}

/** A payment as its callback reported it, kept so a code's payments can be traced. */
export type StoredCodePayment = JsonRecord & FixedPaymentCodePaidCallback;

export const collections: CollectionDefinition[] = [
  { name: CODES, unique: ['code_key'] },
  { name: PAYMENTS, unique: ['payment_id'], indexed: ['fixed_payment_code_id'] },
];

export const codeKey = (outlet: RetailOutlet, code: string): string => `${outlet}:${code}`;

/** Why the code can no longer be paid or updated at `now`, or undefined while it is active. */
export function inactiveReason(code: StoredCode, now: Date): string | undefined {
  if (code.is_single_use && code.paid) return `Fixed payment code ${code.id} is single-use and has been paid.`;
  if (Date.parse(code.expiration_date) <= now.getTime())
    return `Fixed payment code ${code.id} expired at ${code.expiration_date}.`;
  return undefined;
}

export function codeView(code: StoredCode): FixedPaymentCode {
  return {
    id: code.id,
    owner_id: code.owner_id,
    external_id: code.external_id,
    retail_outlet_name: code.retail_outlet_name,
    prefix: code.prefix,
    name: code.name,
    payment_code: code.payment_code,
    type: code.type,
    expected_amount: code.expected_amount,
    is_single_use: code.is_single_use,
    expiration_date: code.expiration_date,
  };
}
