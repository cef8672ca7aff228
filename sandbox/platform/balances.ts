// The merchant's CASH and HOLDING balances per mode (decision `balance-account-types`). Every change runs in
// the caller's transaction, so a disbursement and the debit that pays for it are stored together or not at
// all, and two concurrent disbursements cannot both spend the same money (transactions are serialized).
import type { AccountType, Balances } from '../context.js';
import type { CollectionDefinition, Scope, Transaction } from '../store/store.js';

export const BALANCES_COLLECTION = 'sandbox_balances';
export const balancesCollections: CollectionDefinition[] = [{ name: BALANCES_COLLECTION }];

/** Large enough that tests never run out unless they mean to; `topUpBalance` adds more. */
export const DEFAULT_INITIAL_BALANCE: Readonly<Record<AccountType, number>> = { CASH: 100_000_000_000, HOLDING: 0 };

type BalanceRecord = { id: string; balance: number };

/** Amounts are IDR with at most two decimals; rounding keeps sums of such amounts exact in binary floating point. */
const money = (value: number): number => Math.round(value * 100) / 100;

function checkAmount(amount: number): void {
  if (!Number.isFinite(amount) || amount <= 0)
    throw new RangeError(`a balance change must be a positive amount (got ${amount})`);
}

export function createBalances(initial: Partial<Record<AccountType, number>> = {}): Balances {
  const start: Record<AccountType, number> = { ...DEFAULT_INITIAL_BALANCE, ...initial };
  // The record is created on first change; until then (and after a reset) the account holds its initial amount.
  const read = async (tx: Transaction, scope: Scope, account: AccountType) =>
    tx.get<BalanceRecord>(BALANCES_COLLECTION, scope, account);
  const write = async (
    tx: Transaction,
    scope: Scope,
    account: AccountType,
    existed: boolean,
    balance: number,
  ): Promise<number> => {
    const record: BalanceRecord = { id: account, balance: money(balance) };
    if (existed) await tx.update(BALANCES_COLLECTION, scope, record);
    else await tx.insert(BALANCES_COLLECTION, scope, record);
    return record.balance;
  };
  const prepareDebit = (tx: Transaction, scope: Scope, account: AccountType) => {
    const reading = read(tx, scope, account);
    // A debit never made (the caller answered a replay instead) leaves its failed read unreported.
    reading.catch(() => undefined);
    return async (amount: number): Promise<boolean> => {
      checkAmount(amount);
      const stored = await reading;
      const balance = stored?.balance ?? start[account];
      if (balance < amount) return false;
      await write(tx, scope, account, stored !== undefined, balance - amount);
      return true;
    };
  };
  return {
    get: async (tx, scope, account) => (await read(tx, scope, account))?.balance ?? start[account],
    credit: async (tx, scope, account, amount) => {
      checkAmount(amount);
      const stored = await read(tx, scope, account);
      return write(tx, scope, account, stored !== undefined, (stored?.balance ?? start[account]) + amount);
    },
    debit: (tx, scope, account, amount) => prepareDebit(tx, scope, account)(amount),
    prepareDebit,
  };
}
