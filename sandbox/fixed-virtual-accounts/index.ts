// Fixed virtual accounts: creation, update, get, payment lookup, and the control API's simulated transfer.
// The router has already enforced every rule the schemas state (bank list, amounts, the closed-account and
// suggested-amount conditions, name characters); what is left here is what depends on the merchant's
// settings, the stored accounts and the clock, each answered with the code the contract's x-error-triggers
// give it. Every change and its callback are written in one transaction.
import type {
  Handlers as ControlHandlerSet,
  SimulateFixedVirtualAccountPaymentHandlerResult,
} from '@payments-contract/server/sandbox/server';
import type {
  CreateFixedVirtualAccountHandlerResult,
  Handlers,
  UpdateFixedVirtualAccountHandlerResult,
} from '@payments-contract/server';
import type { FixedVirtualAccountPaidCallback } from '@payments-contract/client/webhooks';
import { enqueueDashboardCallback } from '../callbacks/enqueue.js';
import { errorTrigger, valuesRequiring } from '../contract.js';
import type { Caller, SandboxSettings, SandboxContext, Transaction } from '../context.js';
import { sandboxModule } from '../module.js';
import { resourceKind } from '../platform/resources.js';
import { inRange, insertClaiming, pickFreeNumber, type NumberRange } from './number-range.js';
import {
  ACCOUNTS,
  collections,
  PAYMENTS,
  accountView,
  addYears,
  DEFAULT_LIFETIME_YEARS,
  nextStamp,
  numberKey,
  settledAt,
  type BankCode,
  type StoredAccount,
  type StoredPayment,
} from './records.js';

export { collections };

type ControlHandlers = ControlHandlerSet<Caller>;

/** Words a name may not contain (decision `fva-name-forbidden-terms`), as one whole-word, any-case pattern. */
const forbiddenNameTerms = (() => {
  const { terms } = errorTrigger(
    'createFixedVirtualAccount',
    'CALLBACK_VIRTUAL_ACCOUNT_NAME_NOT_ALLOWED_ERROR',
    'forbidden_terms',
  );
  // Longest first, so "SAHABAT SAMPOERNA" is reported rather than "SAMPOERNA"; a space matches any run of spaces.
  const alternatives = [...terms]
    .sort((a, b) => b.length - a.length)
    .map((term) =>
      term
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('\\s+'),
    );
  return new RegExp(`(?<![A-Za-z])(?:${alternatives.join('|')})(?![A-Za-z])`, 'i');
})();

/** Banks whose accounts take `suggested_amount`: the update rule fires for a stored bank `not_in` them. */
const banksWithSuggestedAmount = (() => {
  const rule = errorTrigger('updateFixedVirtualAccount', 'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR', 'stored_field');
  if (!rule.not_in)
    throw new Error('updateFixedVirtualAccount SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR names no banks (not_in)');
  return rule.not_in;
})();
const supportsSuggestedAmount = (bank: BankCode): boolean => banksWithSuggestedAmount.includes(bank);

/** Banks that report the payer's name in the payment callback (decision `fva-callback-sender-name`). */
const banksReportingSenderName = valuesRequiring('FixedVirtualAccountPaidCallback', 'bank_code', 'sender_name');

const fail = <Status extends number, Code extends string>(status: Status, error_code: Code, message: string) => ({
  status,
  body: { error_code, message },
});
const notFound = (id: string) =>
  fail(404, 'CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR', `No fixed virtual account with id ${id} was found.`);

/**
 * The merchant's number range at the bank, or why there is none. A bank is usable only when it is
 * activated and has a range (decision `fva-bank-activation`: activation is what assigns the range).
 */
function bankRange(settings: SandboxSettings, bank: BankCode): (NumberRange & { merchantCode: string }) | string {
  const range = settings.virtual_account_number_range[bank];
  if (!settings.virtual_account_bank_activation.includes(bank))
    return `${bank} is not activated for your fixed virtual accounts.`;
  if (!range) return `${bank} has assigned you no virtual account number range.`;
  return { prefix: range.merchant_code, from: range.from, to: range.to, merchantCode: range.merchant_code };
}

async function numberTaken(tx: Transaction, caller: Caller, bank: BankCode, accountNumber: string): Promise<boolean> {
  return (
    (await tx.findBy<StoredAccount>(ACCOUNTS, caller, 'number_key', numberKey(bank, accountNumber), { limit: 1 }))
      .length > 0
  );
}

/** The stored account as it stands now; a time-expired account's INACTIVE status is written back. */
async function currentAccount(
  ctx: SandboxContext,
  tx: Transaction,
  caller: Caller,
  id: string,
): Promise<StoredAccount | undefined> {
  const stored = await tx.get<StoredAccount>(ACCOUNTS, caller, id);
  if (!stored) return undefined;
  const current = settledAt(stored, ctx.clock.now(caller));
  if (current !== stored) await tx.update(ACCOUNTS, caller, current);
  return current;
}

export function fixedVirtualAccountHandlers(
  ctx: SandboxContext,
): Pick<
  Handlers<Caller>,
  'createFixedVirtualAccount' | 'getFixedVirtualAccount' | 'updateFixedVirtualAccount' | 'getFixedVirtualAccountPayment'
> {
  return {
    createFixedVirtualAccount: async ({ body }, { principal }) => {
      // Settings are read before the transaction: they are stored apart and transactions do not nest.
      const settings = await ctx.settings.get(principal);
      const now = ctx.clock.now(principal);
      const bank = body.bank_code;
      const range = bankRange(settings, bank);
      if (typeof range === 'string') return fail(400, 'BANK_NOT_SUPPORTED_ERROR', range);
      if (body.is_closed === true && !settings.closed_virtual_accounts_enabled)
        return fail(
          400,
          'CLOSED_VA_NOT_SUPPORTED_ERROR',
          `Closed virtual accounts are not enabled for your account at ${bank}.`,
        );
      if (body.expiration_date !== undefined) {
        if (!settings.expiration_date_enabled)
          return fail(
            400,
            'EXPIRATION_DATE_NOT_SUPPORTED_ERROR',
            `Custom expiration dates are not enabled for your ${bank} virtual accounts.`,
          );
        if (Date.parse(body.expiration_date) < now.getTime())
          return fail(
            400,
            'EXPIRATION_DATE_INVALID_ERROR',
            'expiration_date must not be earlier than the current time.',
          );
      }
      const forbidden = forbiddenNameTerms.exec(body.name);
      if (forbidden)
        return fail(
          400,
          'CALLBACK_VIRTUAL_ACCOUNT_NAME_NOT_ALLOWED_ERROR',
          `The name must not contain a bank or institution name (found "${forbidden[0]}").`,
        );
      const requested = body.virtual_account_number;
      if (requested !== undefined && !inRange(requested, range)) {
        return fail(
          400,
          'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE',
          `The virtual account number is outside your range for ${bank} (${range.from} to ${range.to}).`,
        );
      }

      return ctx.store.transaction(async (tx): Promise<CreateFixedVirtualAccountHandlerResult> => {
        const accountNumber =
          requested ?? (await pickFreeNumber(range, (candidate) => numberTaken(tx, principal, bank, candidate)));
        if (accountNumber === undefined)
          return fail(
            400,
            'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE',
            `Every number of your range for ${bank} is in use; no free number is left.`,
          );
        const stamp = now.toISOString();
        const account: StoredAccount = {
          id: ctx.ids.next(),
          owner_id: principal.ownerId,
          external_id: body.external_id,
          bank_code: bank,
          merchant_code: range.merchantCode,
          name: body.name,
          account_number: accountNumber,
          suggested_amount: body.suggested_amount ?? null,
          is_closed: body.is_closed ?? false,
          expected_amount: body.expected_amount ?? null,
          is_single_use: body.is_single_use ?? false,
          // The sandbox's banks register a number at once, so no account is ever PENDING.
          status: 'ACTIVE',
          expiration_date:
            body.expiration_date === undefined
              ? addYears(now, DEFAULT_LIFETIME_YEARS).toISOString()
              : new Date(body.expiration_date).toISOString(),
          created: stamp,
          updated: stamp,
          number_key: numberKey(bank, accountNumber),
        };
        // The number's uniqueness per bank is the collection's unique key (decision fva-duplicate-means-number).
        if (!(await insertClaiming(tx, ACCOUNTS, principal, account))) {
          return fail(
            400,
            'DUPLICATE_CALLBACK_VIRTUAL_ACCOUNT_ERROR',
            `Virtual account number ${accountNumber} already exists for ${bank}.`,
          );
        }
        const view = accountView(settledAt(account, now));
        await enqueueDashboardCallback(ctx, tx, principal, 'fixedVirtualAccountChanged', view, settings);
        return { status: 200, body: view };
      });
    },

    getFixedVirtualAccount: async ({ path }, { principal }) => {
      const account = await ctx.store.get<StoredAccount>(ACCOUNTS, principal, path.id);
      if (!account) return notFound(path.id);
      return { status: 200, body: accountView(settledAt(account, ctx.clock.now(principal))) };
    },

    updateFixedVirtualAccount: async ({ path, body }, { principal }) => {
      const settings = await ctx.settings.get(principal);
      return ctx.store.transaction(async (tx): Promise<UpdateFixedVirtualAccountHandlerResult> => {
        const now = ctx.clock.now(principal);
        const account = await currentAccount(ctx, tx, principal, path.id);
        if (!account) return notFound(path.id);
        if (account.status === 'INACTIVE')
          return fail(
            400,
            'INACTIVE_VIRTUAL_ACCOUNT_ERROR',
            `The fixed virtual account ${account.id} is inactive and cannot be updated.`,
          );
        // Decision `fva-update-setting-errors`: the stored account is checked against today's configuration.
        const bank = account.bank_code;
        const range = bankRange(settings, bank);
        if (typeof range === 'string') return fail(400, 'BANK_NOT_SUPPORTED_ERROR', range);
        if (range.merchantCode !== account.merchant_code || !inRange(account.account_number, range)) {
          return fail(
            400,
            'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE',
            `The account number ${account.account_number} is outside your current range for ${bank}.`,
          );
        }
        if (body.suggested_amount !== undefined && !supportsSuggestedAmount(bank)) {
          return fail(
            400,
            'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR',
            `suggested_amount is not supported for ${bank} accounts.`,
          );
        }
        if (body.is_closed === true && !settings.closed_virtual_accounts_enabled)
          return fail(
            400,
            'CLOSED_VA_NOT_SUPPORTED_ERROR',
            `Closed virtual accounts are not enabled for your account at ${bank}.`,
          );

        const expiration =
          body.expiration_date === undefined ? account.expiration_date : new Date(body.expiration_date).toISOString();
        const changed: StoredAccount = {
          ...account,
          suggested_amount: body.suggested_amount ?? account.suggested_amount,
          expected_amount: body.expected_amount ?? account.expected_amount,
          is_single_use: body.is_single_use ?? account.is_single_use,
          is_closed: body.is_closed ?? account.is_closed,
          expiration_date: expiration,
          // An expiry in the past is how an account is cancelled: INACTIVE at once, still reported by the
          // changed callback (decision `fva-expire-by-update-callback`).
          status: Date.parse(expiration) <= now.getTime() ? 'INACTIVE' : account.status,
          updated: nextStamp(account.updated, now),
        };
        await tx.update(ACCOUNTS, principal, changed);
        const view = accountView(changed);
        await enqueueDashboardCallback(ctx, tx, principal, 'fixedVirtualAccountChanged', view, settings);
        return { status: 200, body: view };
      });
    },

    getFixedVirtualAccountPayment: async ({ path }, { principal }) => {
      const [payment] = await ctx.store.findBy<StoredPayment>(PAYMENTS, principal, 'payment_id', path.payment_id, {
        limit: 1,
      });
      if (!payment)
        return fail(
          404,
          'CALLBACK_VIRTUAL_ACCOUNT_PAYMENT_NOT_FOUND_ERROR',
          `No fixed virtual account payment with payment_id ${path.payment_id} was found.`,
        );
      return { status: 200, body: payment };
    },
  };
}

export function fixedVirtualAccountControlHandlers(
  ctx: SandboxContext,
): Pick<ControlHandlers, 'simulateFixedVirtualAccountPayment'> {
  return {
    simulateFixedVirtualAccountPayment: async ({ path, body }, { principal }) => {
      const settings = await ctx.settings.get(principal);
      return ctx.store.transaction(async (tx): Promise<SimulateFixedVirtualAccountPaymentHandlerResult> => {
        const now = ctx.clock.now(principal);
        const account = await currentAccount(ctx, tx, principal, path.id);
        if (!account) return notFound(path.id);
        if (account.status !== 'ACTIVE')
          return fail(
            409,
            'SANDBOX_STATE_CONFLICT',
            `Fixed virtual account ${account.id} is ${account.status}; only an ACTIVE account can be paid.`,
          );
        const amount = body?.amount ?? account.expected_amount ?? account.suggested_amount;
        if (amount === null) {
          const message =
            "must have required property 'amount' (the account has no expected_amount or suggested_amount to pay)";
          return {
            status: 400,
            body: {
              error_code: 'API_VALIDATION_ERROR',
              message: `The request breaks 1 rule: body (whole body) ${message}.`,
              errors: [{ location: 'body', path: '', message, keyword: 'required' }],
            },
          };
        }
        if (account.is_closed && amount !== account.expected_amount) {
          return fail(
            409,
            'SANDBOX_STATE_CONFLICT',
            `Fixed virtual account ${account.id} is closed and accepts exactly ${account.expected_amount}, not ${amount}.`,
          );
        }

        const stamp = now.toISOString();
        const payment: StoredPayment = {
          id: ctx.ids.next(),
          payment_id: ctx.ids.next(),
          callback_virtual_account_id: account.id,
          external_id: account.external_id,
          merchant_code: account.merchant_code,
          account_number: account.account_number,
          bank_code: account.bank_code,
          amount,
          transaction_timestamp: stamp,
        };
        await tx.insert(PAYMENTS, principal, payment);
        await ctx.balances.credit(tx, principal, 'CASH', amount);
        if (account.is_single_use)
          await tx.update(ACCOUNTS, principal, {
            ...account,
            status: 'INACTIVE',
            updated: nextStamp(account.updated, now),
          });

        const callback: FixedVirtualAccountPaidCallback = {
          id: payment.id,
          payment_id: payment.payment_id,
          callback_virtual_account_id: account.id,
          owner_id: account.owner_id,
          external_id: account.external_id,
          // Decision `fva-callback-account-number`: this callback leaves out the merchant_code prefix.
          account_number: account.account_number.slice(account.merchant_code.length),
          bank_code: account.bank_code,
          amount,
          transaction_timestamp: stamp,
          merchant_code: account.merchant_code,
          updated: stamp,
          created: stamp,
          ...(banksReportingSenderName.includes(account.bank_code)
            ? { sender_name: body?.sender_name ?? account.name }
            : {}),
        };
        await enqueueDashboardCallback(ctx, tx, principal, 'fixedVirtualAccountPaid', callback, settings);
        return { status: 200, body: payment };
      });
    },
  };
}

export const product = sandboxModule({
  name: 'fixed-virtual-accounts',
  collections,
  service: fixedVirtualAccountHandlers,
  control: fixedVirtualAccountControlHandlers,
  views: {
    fixed_virtual_accounts: resourceKind<StoredAccount>(ACCOUNTS, 'fixedVirtualAccount', (record, now) => {
      const account = settledAt(record, now);
      return { resource: accountView(account), state: account.status };
    }),
  },
});
