// How fixed virtual accounts and their payments are stored, and how a stored record is shown. The status
// is computed at read time from `expiration_date` and the sandbox clock, so advancing the clock expires
// accounts without timers; the transition is stored the next time the account is written.
import type { components } from '@payments-contract/server/types';
import type { JsonRecord } from '../context.js';
import type { CollectionDefinition } from '../store/store.js';

export type FixedVirtualAccount = components['schemas']['FixedVirtualAccount'];
export type FixedVirtualAccountPayment = components['schemas']['FixedVirtualAccountPayment'];
export type BankCode = FixedVirtualAccount['bank_code'];
export type AccountStatus = FixedVirtualAccount['status'];

export const ACCOUNTS = 'fixed_virtual_accounts';
export const PAYMENTS = 'fixed_virtual_account_payments';

export interface StoredAccount extends JsonRecord {
  id: string;
  owner_id: string;
  external_id: string;
  bank_code: BankCode;
  merchant_code: string;
  name: string;
  account_number: string;
  suggested_amount: number | null;
  is_closed: boolean;
  expected_amount: number | null;
  is_single_use: boolean;
  /** As last written; `statusAt` gives the status at a given time. */
  status: AccountStatus;
  expiration_date: string;
  created: string;
  updated: string;
  /** `<bank_code>:<account_number>`: a number is unique per bank (decision `fva-duplicate-means-number`). */
  number_key: string;
}

/** A payment as getFixedVirtualAccountPayment answers it, nothing more. */
export type StoredPayment = JsonRecord & FixedVirtualAccountPayment;

export const collections: CollectionDefinition[] = [
  { name: ACCOUNTS, unique: ['number_key'] },
  { name: PAYMENTS, unique: ['payment_id'], indexed: ['callback_virtual_account_id'] },
];

export const numberKey = (bank: BankCode, accountNumber: string): string => `${bank}:${accountNumber}`;

/** Whether the account's expiry has been reached at `now` (it stops accepting payments at that instant). */
export const isExpired = (account: StoredAccount, now: Date): boolean =>
  Date.parse(account.expiration_date) <= now.getTime();

/** The record as it stands at `now`: an account past its expiry is INACTIVE, changed at its expiry. */
export function settledAt(account: StoredAccount, now: Date): StoredAccount {
  if (account.status === 'INACTIVE' || !isExpired(account, now)) return account;
  const updated =
    Date.parse(account.updated) < Date.parse(account.expiration_date)
      ? new Date(account.expiration_date).toISOString()
      : account.updated;
  return { ...account, status: 'INACTIVE', updated };
}

/** The resource the contract documents (internal fields left out, absent amounts omitted). */
export function accountView(account: StoredAccount): FixedVirtualAccount {
  return {
    id: account.id,
    owner_id: account.owner_id,
    external_id: account.external_id,
    bank_code: account.bank_code,
    merchant_code: account.merchant_code,
    name: account.name,
    account_number: account.account_number,
    ...(account.suggested_amount === null ? {} : { suggested_amount: account.suggested_amount }),
    is_closed: account.is_closed,
    ...(account.expected_amount === null ? {} : { expected_amount: account.expected_amount }),
    is_single_use: account.is_single_use,
    status: account.status,
    expiration_date: account.expiration_date,
    created: account.created,
    updated: account.updated,
  };
}

/**
 * The time to stamp as `updated` on a change: now, but always later than the previous stamp, because
 * merchants tell a creation callback from later ones, and deduplicate, by `updated` (decision
 * `fva-changed-creation-vs-update`), and a change within the same millisecond would repeat it.
 */
export function nextStamp(previous: string, now: Date): string {
  const last = Date.parse(previous);
  return (now.getTime() > last ? now : new Date(last + 1)).toISOString();
}

/** Default lifetime of an account created without `expiration_date` (decision `fva-default-expiration`). */
export const DEFAULT_LIFETIME_YEARS = 31;

export function addYears(time: Date, years: number): Date {
  const later = new Date(time.getTime());
  later.setUTCFullYear(later.getUTCFullYear() + years);
  return later;
}
