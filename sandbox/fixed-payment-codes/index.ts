// Fixed payment codes: creation, update, get, and the control API's simulated payment at the outlet. The
// router has enforced the schema's rules (outlets, amount limits, code digits); what is left depends on the
// merchant's code ranges, the stored codes and the clock. No callback reports creation or update; a
// payment's callback is written in the transaction that records it.
import type {
  Handlers as ControlHandlerSet,
  SimulateFixedPaymentCodePaymentHandlerResult,
} from '@payments-contract/server/sandbox/server';
import type {
  CreateFixedPaymentCodeHandlerResult,
  Handlers,
  UpdateFixedPaymentCodeHandlerResult,
} from '@payments-contract/server';
import type { FixedPaymentCodePaidCallback } from '@payments-contract/client/webhooks';
import { enqueueDashboardCallback } from '../callbacks/enqueue.js';
import type { Caller, SandboxContext, Transaction } from '../context.js';
import { sandboxModule } from '../module.js';
import { resourceKind } from '../platform/resources.js';
import { inRange, insertClaiming, pickFreeNumber, type NumberRange } from '../fixed-virtual-accounts/number-range.js';
import { addYears, DEFAULT_LIFETIME_YEARS } from '../fixed-virtual-accounts/records.js';
import {
  CODES,
  collections,
  codeKey,
  codeView,
  inactiveReason,
  PAYMENTS,
  type RetailOutlet,
  type StoredCode,
  type StoredCodePayment,
} from './records.js';

export { collections };

type ControlHandlers = ControlHandlerSet<Caller>;

const fail = <Status extends number, Code extends string>(status: Status, error_code: Code, message: string) => ({
  status,
  body: { error_code, message },
});
const notFound = (id: string) =>
  fail(404, 'FIXED_PAYMENT_CODE_NOT_FOUND_ERROR', `No fixed payment code with id ${id} was found.`);

async function codeTaken(tx: Transaction, caller: Caller, outlet: RetailOutlet, code: string): Promise<boolean> {
  return (await tx.findBy<StoredCode>(CODES, caller, 'code_key', codeKey(outlet, code), { limit: 1 })).length > 0;
}

/** The settlement states the callback can report, with the balance each one credits (decision `fpc-callback-statuses`). */
const creditedAccount = { COMPLETED: 'CASH', SETTLING: 'HOLDING' } as const satisfies Record<
  FixedPaymentCodePaidCallback['status'],
  'CASH' | 'HOLDING'
>;

export function fixedPaymentCodeHandlers(
  ctx: SandboxContext,
): Pick<Handlers<Caller>, 'createFixedPaymentCode' | 'getFixedPaymentCode' | 'updateFixedPaymentCode'> {
  return {
    createFixedPaymentCode: async ({ body }, { principal }) => {
      // Settings are read before the transaction: they are stored apart and transactions do not nest.
      const settings = await ctx.settings.get(principal);
      const now = ctx.clock.now(principal);
      const outlet = body.retail_outlet_name;
      if (body.expiration_date !== undefined && Date.parse(body.expiration_date) < now.getTime()) {
        return fail(400, 'EXPIRATION_DATE_INVALID_ERROR', 'expiration_date must not be earlier than the current time.');
      }
      // An outlet that assigned the merchant no range has no code inside it.
      const range: NumberRange | undefined = settings.payment_code_range[outlet];
      if (!range)
        return fail(
          400,
          'PAYMENT_CODE_OUTSIDE_RANGE',
          `${outlet} has assigned you no payment code range, so no code is inside it.`,
        );
      const requested = body.payment_code;
      if (requested !== undefined && !inRange(requested, range)) {
        return fail(
          400,
          'PAYMENT_CODE_OUTSIDE_RANGE',
          `Payment code ${requested} is outside your range for ${outlet} (${range.from} to ${range.to}).`,
        );
      }

      return ctx.store.transaction(async (tx): Promise<CreateFixedPaymentCodeHandlerResult> => {
        const paymentCode =
          requested ?? (await pickFreeNumber(range, (candidate) => codeTaken(tx, principal, outlet, candidate)));
        if (paymentCode === undefined)
          return fail(
            400,
            'PAYMENT_CODE_OUTSIDE_RANGE',
            `Every code of your range for ${outlet} is in use; no free code is left.`,
          );
        const stamp = now.toISOString();
        const code: StoredCode = {
          id: ctx.ids.next(),
          owner_id: principal.ownerId,
          external_id: body.external_id,
          retail_outlet_name: outlet,
          prefix: range.prefix,
          name: body.name,
          payment_code: paymentCode,
          // Decision `fpc-type-values`: the only type.
          type: 'USER',
          expected_amount: body.expected_amount,
          is_single_use: body.is_single_use ?? false,
          // Decision `fpc-default-expiration`: as long as a fixed virtual account's default.
          expiration_date:
            body.expiration_date === undefined
              ? addYears(now, DEFAULT_LIFETIME_YEARS).toISOString()
              : new Date(body.expiration_date).toISOString(),
          paid: false,
          created: stamp,
          updated: stamp,
          code_key: codeKey(outlet, paymentCode),
        };
        // A code's uniqueness per outlet is the collection's unique key.
        if (!(await insertClaiming(tx, CODES, principal, code)))
          return fail(400, 'DUPLICATE_PAYMENT_CODE_ERROR', `Payment code ${paymentCode} already exists for ${outlet}.`);
        return { status: 200, body: codeView(code) };
      });
    },

    getFixedPaymentCode: async ({ path }, { principal }) => {
      const code = await ctx.store.get<StoredCode>(CODES, principal, path.id);
      if (!code) return notFound(path.id);
      return { status: 200, body: codeView(code) };
    },

    updateFixedPaymentCode: async ({ path, body }, { principal }) => {
      const settings = await ctx.settings.get(principal);
      return ctx.store.transaction(async (tx): Promise<UpdateFixedPaymentCodeHandlerResult> => {
        const now = ctx.clock.now(principal);
        const code = await tx.get<StoredCode>(CODES, principal, path.id);
        if (!code) return notFound(path.id);
        const inactive = inactiveReason(code, now);
        if (inactive !== undefined)
          return fail(400, 'INACTIVE_FIXED_PAYMENT_CODE_ERROR', `${inactive} An inactive code cannot be updated.`);
        // Decision `fpc-update-range-error`: the stored code is checked against today's range.
        const range: NumberRange | undefined = settings.payment_code_range[code.retail_outlet_name];
        if (!range || range.prefix !== code.prefix || !inRange(code.payment_code, range)) {
          return fail(
            400,
            'PAYMENT_CODE_OUTSIDE_RANGE',
            `Payment code ${code.payment_code} is outside your current range for ${code.retail_outlet_name}.`,
          );
        }
        const changed: StoredCode = {
          ...code,
          name: body.name ?? code.name,
          expected_amount: body.expected_amount ?? code.expected_amount,
          // A past expiry is accepted: it is how a code is cancelled (inactive from now on).
          expiration_date:
            body.expiration_date === undefined ? code.expiration_date : new Date(body.expiration_date).toISOString(),
          updated: now.toISOString(),
        };
        await tx.update(CODES, principal, changed);
        return { status: 200, body: codeView(changed) };
      });
    },
  };
}

export function fixedPaymentCodeControlHandlers(
  ctx: SandboxContext,
): Pick<ControlHandlers, 'simulateFixedPaymentCodePayment'> {
  return {
    simulateFixedPaymentCodePayment: async ({ path, body }, { principal }) => {
      const settings = await ctx.settings.get(principal);
      return ctx.store.transaction(async (tx): Promise<SimulateFixedPaymentCodePaymentHandlerResult> => {
        const now = ctx.clock.now(principal);
        const code = await tx.get<StoredCode>(CODES, principal, path.id);
        if (!code) return notFound(path.id);
        const inactive = inactiveReason(code, now);
        if (inactive !== undefined) return fail(409, 'SANDBOX_STATE_CONFLICT', `${inactive} It can no longer be paid.`);
        const amount = body?.amount ?? code.expected_amount;
        if (amount !== code.expected_amount)
          return fail(
            409,
            'SANDBOX_STATE_CONFLICT',
            `The cashier collects the code's expected_amount ${code.expected_amount}, not ${amount}.`,
          );
        const status = body?.status ?? 'COMPLETED';

        const stamp = now.toISOString();
        const payment: StoredCodePayment = {
          id: ctx.ids.next(),
          external_id: code.external_id,
          prefix: code.prefix,
          payment_code: code.payment_code,
          retail_outlet_name: code.retail_outlet_name,
          name: code.name,
          amount,
          status,
          transaction_timestamp: stamp,
          payment_id: ctx.ids.next(),
          fixed_payment_code_payment_id: ctx.ids.next(),
          fixed_payment_code_id: code.id,
          owner_id: code.owner_id,
        };
        await tx.insert(PAYMENTS, principal, payment);
        await ctx.balances.credit(tx, principal, creditedAccount[status], amount);
        if (code.is_single_use) await tx.update(CODES, principal, { ...code, paid: true, updated: stamp });
        // The stored payment is the callback's body, nothing more.
        await enqueueDashboardCallback(ctx, tx, principal, 'fixedPaymentCodePaid', payment, settings);
        return { status: 200, body: payment };
      });
    },
  };
}

export const product = sandboxModule({
  name: 'fixed-payment-codes',
  collections,
  service: fixedPaymentCodeHandlers,
  control: fixedPaymentCodeControlHandlers,
  views: {
    // A code has no status field: its state is computed (state machine fixedPaymentCode).
    fixed_payment_codes: resourceKind<StoredCode>(CODES, 'fixedPaymentCode', (record, now) => ({
      resource: codeView(record),
      state: inactiveReason(record, now) === undefined ? 'ACTIVE' : 'INACTIVE',
    })),
  },
});
