// Balance and bank lists: getBalance reads the ledger (ctx.balances, which money-in credits and money-out
// debits); the bank lists are the contract's catalogs, the virtual account one narrowed to the banks the
// merchant has activated.
import type { Handlers } from '@payments-contract/server';
import type { AccountType, Caller, SandboxContext } from '../context.js';
import { disbursementBankCatalog, virtualAccountBankCatalog } from './banks.js';
import { isObject } from '@payments-contract/contract/model';
import { contractOperation } from '../contract.js';
import { sandboxModule } from '../module.js';

export {
  disbursementBankCatalog,
  findDisbursementBank,
  virtualAccountBankCatalog,
  type DisbursementBank,
  type VirtualAccountBank,
} from './banks.js';

const isAccountType = (value: unknown): value is AccountType => value === 'CASH' || value === 'HOLDING';

/** The account read when `account_type` is left out: the parameter's default in the contract. */
const defaultAccountType: AccountType = (() => {
  const parameter = contractOperation('getBalance').parameters.find((p) => p.name === 'account_type');
  const fallback = isObject(parameter?.schema) ? parameter.schema.default : undefined;
  if (!isAccountType(fallback)) throw new Error('getBalance account_type has no CASH/HOLDING default in the contract');
  return fallback;
})();

export function balanceAndBankHandlers(
  ctx: SandboxContext,
): Pick<Handlers<Caller>, 'getBalance' | 'listVirtualAccountBanks' | 'listDisbursementBanks'> {
  return {
    getBalance: async ({ query }, { principal }) => {
      const account = query.account_type ?? defaultAccountType;
      // One read of committed data: the store runs it without a transaction of its own when none is under way.
      const balance = await ctx.balances.get(ctx.store, principal, account);
      return { status: 200, body: { balance } };
    },
    listVirtualAccountBanks: async (_input, { principal }) => {
      const { virtual_account_bank_activation: activated } = await ctx.settings.get(principal);
      return { status: 200, body: virtualAccountBankCatalog.filter((bank) => activated.includes(bank.code)) };
    },
    listDisbursementBanks: async () => ({ status: 200, body: [...disbursementBankCatalog] }),
  };
}

/** The balance and bank lists as a product: the ledger is ctx.balances' own storage, so it keeps no collection. */
export const product = sandboxModule({ name: 'balance', service: balanceAndBankHandlers });
