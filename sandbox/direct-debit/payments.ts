// Direct debit payments: creation under an Idempotency-key, OTP confirmation, lookups, and the bank's
// outcome, which in the sandbox comes from the control API (decision `direct-debit-outcome`) or, while the
// merchant's `direct_debit_auto_resolve` is on, by itself once the auto-resolve delay has passed after the OTP
// was accepted (or after creation without OTP): COMPLETED, or in test mode FAILED with the code the control
// contract's `x-test-modes` gives the amount. Every move out of PENDING is written together with its
// `direct_debit.payment` callback, in one transaction.
import { createHash } from 'node:crypto';
import type { Handlers as ControlHandlers } from '@payments-contract/server/sandbox/server';
import type { Handlers, HandlerResponse } from '@payments-contract/server';
import type { DirectDebitPaymentCallback } from '@payments-contract/client/webhooks';
import {
  scopeOf,
  type AutoResolveHandlers,
  type Caller,
  type SandboxContext,
  type Scope,
  type Transaction,
} from '../context.js';
import { canonicalJson } from '../json.js';
import { autoResolveOutcomes } from '../contract.js';
import { contract } from './contract.js';
import { judgeOtp, otpExpiresAt, otpMessages } from './otp.js';
import {
  COLLECTIONS,
  currentPaymentMethod,
  paymentView,
  storedJson,
  type LinkedAccountRecord,
  type PaymentMethodRecord,
  type PaymentRecord,
} from './records.js';

type PaymentHandlers = Pick<
  Handlers<Caller>,
  | 'createDirectDebitPayment'
  | 'validateDirectDebitPaymentOtp'
  | 'getDirectDebitPaymentByReferenceId'
  | 'getDirectDebitPayment'
>;
type PaymentControlHandlers = Pick<ControlHandlers<Caller>, 'completeDirectDebitPayment' | 'failDirectDebitPayment'>;
type ResultOf<K extends keyof PaymentHandlers> = Awaited<ReturnType<PaymentHandlers[K]>>;
type ControlResultOf<K extends keyof PaymentControlHandlers> = Awaited<ReturnType<PaymentControlHandlers[K]>>;
type CreateResult = ResultOf<'createDirectDebitPayment'>;

const CREATE_OPERATION = 'createDirectDebitPayment';

const paymentNotFound = (
  id: string,
): HandlerResponse<404, { error_code: 'DATA_NOT_FOUND_ERROR'; message: string }> => ({
  status: 404,
  body: { error_code: 'DATA_NOT_FOUND_ERROR', message: `Direct debit payment ${id} was not found.` },
});

/**
 * A 503 answer to creation. Decision `idempotency-key-reuse`: a 5xx result is not stored, so it is thrown
 * out of the transaction (rolling back the key's record) and answered after.
 */
class NotStored extends Error {
  constructor(readonly response: Extract<CreateResult, { status: 503 }>) {
    super(response.body.message);
  }
}

/** Same request, same fingerprint: the body as canonical JSON (keys sorted at every level), hashed. */
export const requestFingerprint = (body: unknown): string =>
  createHash('sha256').update(canonicalJson(body)).digest('hex');

/** `+6281234567890` -> `+62812*****890`: the first six and last three characters stay, as the contract's samples show. */
export function maskMobileNumber(number: string): string {
  const keepStart = Math.min(6, Math.max(0, number.length - 6));
  const keepEnd = Math.min(3, number.length);
  return (
    number.slice(0, keepStart) + '*'.repeat(number.length - keepStart - keepEnd) + number.slice(number.length - keepEnd)
  );
}

/** The callback body for the payment as it stands now (decision `direct-debit-callback-statuses`). */
function callbackOf(payment: PaymentRecord, timestamp: string): DirectDebitPaymentCallback {
  const view = paymentView(payment);
  return {
    event: 'direct_debit.payment',
    timestamp,
    id: view.id,
    reference_id: view.reference_id,
    channel_code: view.channel_code,
    payment_method_id: view.payment_method_id,
    currency: view.currency,
    amount: view.amount,
    description: view.description,
    status: view.status,
    failure_code: view.failure_code,
    metadata: view.metadata,
  };
}

/** Stores the payment's move out of PENDING and queues its callback to the request's callback_url, in `tx`. */
async function finish(
  ctx: SandboxContext,
  tx: Transaction,
  scope: Scope,
  payment: PaymentRecord,
  change: Pick<PaymentRecord, 'status' | 'failure_code'>,
): Promise<PaymentRecord> {
  const now = ctx.clock.now(scope).toISOString();
  const finished: PaymentRecord = { ...payment, ...change, updated: now };
  await tx.update(COLLECTIONS.payments, scope, finished);
  // The webhook body is built from the generated type; the outbox validates it against the contract.
  await ctx.callbacks.enqueue(
    tx,
    scope,
    contract.paymentWebhook,
    storedJson(callbackOf(finished, now)),
    finished.callback_url,
  );
  return finished;
}

export function paymentHandlers(ctx: SandboxContext): PaymentHandlers {
  /** The payment as creation makes it, or the error creation answers; runs inside the idempotency record. */
  async function create(
    tx: Transaction,
    scope: Scope,
    body: Parameters<PaymentHandlers['createDirectDebitPayment']>[0]['body'],
    autoResolve: boolean,
  ): Promise<CreateResult> {
    const stored = await tx.get<PaymentMethodRecord>(COLLECTIONS.paymentMethods, scope, body.payment_method_id);
    if (!stored) {
      return {
        status: 400,
        body: {
          error_code: 'PAYMENT_METHOD_NOT_FOUND_ERROR',
          message: `Payment method ${body.payment_method_id} was not found.`,
        },
      };
    }
    const now = ctx.clock.now(scope);
    const method = currentPaymentMethod(stored, now);
    if (method.status !== 'ACTIVE') {
      throw new NotStored({
        status: 503,
        body: {
          error_code: 'INVALID_PAYMENT_METHOD_ERROR',
          message: `Payment method ${method.id} is ${method.status} and cannot be charged.`,
        },
      });
    }
    const withOtp = body.enable_otp === true;
    // The bank texts the OTP to the number registered for the card, which the linked account holds.
    const account = await tx.get<LinkedAccountRecord>(COLLECTIONS.accounts, scope, method.properties.id);
    const sentAt = now.toISOString();
    const payment: PaymentRecord = {
      id: ctx.ids.next('ddpy-'),
      reference_id: body.reference_id,
      channel_code: method.properties.channel_code,
      payment_method_id: method.id,
      currency: body.currency,
      amount: body.amount,
      description: body.description ?? null,
      status: 'PENDING',
      basket: storedJson(body.basket ?? null),
      failure_code: null,
      is_otp_required: withOtp,
      // Decision `otp-fields-when-disabled`: empty strings without OTP.
      otp_mobile_number: withOtp ? maskMobileNumber(account?.properties.account_mobile_number ?? '') : '',
      otp_expiration_timestamp: withOtp ? otpExpiresAt(sentAt).toISOString() : '',
      otp_sent_at: sentAt,
      otp_wrong_attempts: 0,
      otp_accepted: false,
      callback_url: body.callback_url,
      created: sentAt,
      updated: null,
      metadata: storedJson(body.metadata ?? null),
    };
    await tx.insert(COLLECTIONS.payments, scope, payment);
    // Without OTP nothing stands between the payment and the bank's answer: its countdown starts now.
    if (!withOtp && autoResolve) await ctx.autoResolve.schedule(tx, scope, AUTO_RESOLVE_KIND, payment.id);
    return { status: 200, body: paymentView(payment) };
  }

  return {
    createDirectDebitPayment: async ({ header, body }, { principal }): Promise<CreateResult> => {
      const scope = scopeOf(principal);
      const key = header['idempotency-key'];
      // Settings are read before the transaction: they are not part of it.
      const auto = (await ctx.settings.get(scope)).direct_debit_auto_resolve;
      try {
        const outcome = await ctx.store.transaction((tx) =>
          ctx.idempotency.run(
            tx,
            scope,
            CREATE_OPERATION,
            key,
            requestFingerprint(body),
            () => create(tx, scope, body, auto),
            (result) => (result.status === 200 ? result.body.id : null),
          ),
        );
        if (outcome.kind === 'first') return outcome.result;
        if (outcome.kind === 'replay') {
          const what = outcome.originalId === null ? 'it was refused' : `it created ${outcome.originalId}`;
          return {
            status: 409,
            body: {
              error_code: 'DUPLICATE_ERROR',
              message: `A request with this Idempotency-key was already processed; ${what}.`,
            },
          };
        }
        return {
          status: 409,
          body: {
            error_code: 'IDEMPOTENCY_KEY_MISMATCH_ERROR',
            message: 'This Idempotency-key was used with a different request. Use a new key for a new payment.',
          },
        };
      } catch (error) {
        if (error instanceof NotStored) return error.response;
        throw error;
      }
    },

    validateDirectDebitPaymentOtp: async ({ path, body }, { principal }) => {
      const scope = scopeOf(principal);
      const auto = (await ctx.settings.get(scope)).direct_debit_auto_resolve;
      return ctx.store.transaction(async (tx): Promise<ResultOf<'validateDirectDebitPaymentOtp'>> => {
        const payment = await tx.get<PaymentRecord>(COLLECTIONS.payments, scope, path.id);
        if (!payment) return paymentNotFound(path.id);
        if (payment.status === 'COMPLETED')
          return {
            status: 409,
            body: {
              error_code: 'DIRECT_DEBIT_ALREADY_COMPLETED',
              message: 'This direct debit payment is already completed.',
            },
          };
        if (payment.status === 'FAILED')
          return {
            status: 409,
            body: {
              error_code: 'DIRECT_DEBIT_ALREADY_FAILED',
              message: 'This direct debit payment has failed. Create a new payment to try again.',
            },
          };
        // Decision `direct-debit-otp-not-required`: no code to validate, no attempt counted.
        if (!payment.is_otp_required)
          return {
            status: 400,
            body: {
              error_code: 'INVALID_OTP_ERROR',
              message: 'This direct debit payment was created without OTP; there is no code to validate.',
            },
          };
        // Decision `direct-debit-otp-outcome`: once accepted, validating again answers the payment as it is.
        if (payment.otp_accepted) return { status: 200, body: paymentView(payment) };
        const verdict = judgeOtp(contract.paymentOtp, payment, body.otp_code, ctx.clock.now(scope));
        if (verdict.kind === 'wrong') {
          await tx.update(COLLECTIONS.payments, scope, { ...payment, otp_wrong_attempts: verdict.wrongAttempts });
          return {
            status: 400,
            body: { error_code: 'INVALID_OTP_ERROR', message: otpMessages.wrong(verdict.remaining) },
          };
        }
        if (verdict.kind === 'failed') {
          // Decision `direct-debit-otp-failure-code`: an OTP failure leaves failure_code null; the callback is still sent.
          await finish(ctx, tx, scope, payment, { status: 'FAILED', failure_code: null });
          return {
            status: 400,
            body: {
              error_code: verdict.errorCode,
              message: `${otpMessages[verdict.errorCode]('payment')} Create a new payment.`,
            },
          };
        }
        const accepted: PaymentRecord = { ...payment, otp_accepted: true, updated: ctx.clock.now(scope).toISOString() };
        await tx.update(COLLECTIONS.payments, scope, accepted);
        // The OTP was the last step before the bank's answer: its countdown starts now.
        if (auto) await ctx.autoResolve.schedule(tx, scope, AUTO_RESOLVE_KIND, accepted.id);
        return { status: 200, body: paymentView(accepted) };
      });
    },

    getDirectDebitPaymentByReferenceId: async (
      { query },
      { principal },
    ): Promise<ResultOf<'getDirectDebitPaymentByReferenceId'>> => {
      // Decision `direct-debit-by-reference-single`: the newest payment with this reference_id.
      const [payment] = await ctx.store.findBy<PaymentRecord>(
        COLLECTIONS.payments,
        scopeOf(principal),
        'reference_id',
        query.reference_id,
        { order: 'newest', limit: 1 },
      );
      if (!payment)
        return {
          status: 404,
          body: {
            error_code: 'DATA_NOT_FOUND_ERROR',
            message: `No direct debit payment with reference_id ${query.reference_id} was found.`,
          },
        };
      return { status: 200, body: paymentView(payment) };
    },

    getDirectDebitPayment: async ({ path }, { principal }): Promise<ResultOf<'getDirectDebitPayment'>> => {
      const payment = await ctx.store.get<PaymentRecord>(COLLECTIONS.payments, scopeOf(principal), path.id);
      return payment ? { status: 200, body: paymentView(payment) } : paymentNotFound(path.id);
    },
  };
}

/** Why the bank's outcome cannot apply to the payment now, or null when it can. */
function outcomeConflict(payment: PaymentRecord): string | null {
  if (payment.status !== 'PENDING')
    return `Direct debit payment ${payment.id} is ${payment.status}; only a PENDING payment whose OTP is not outstanding can get the bank's outcome.`;
  if (payment.is_otp_required && !payment.otp_accepted)
    return `Direct debit payment ${payment.id} is waiting for its OTP; validate it before the bank can answer.`;
  return null;
}

/** The bank's outcome applied to a payment `outcomeConflict` allows it for: its callback, and the money credited when it completed. */
async function applyBankOutcome(
  ctx: SandboxContext,
  tx: Transaction,
  scope: Scope,
  payment: PaymentRecord,
  change: Pick<PaymentRecord, 'status' | 'failure_code'>,
): Promise<PaymentRecord> {
  const finished = await finish(ctx, tx, scope, payment, change);
  // The debited money is the merchant's income, in the same transaction as the status change.
  if (finished.status === 'COMPLETED') await ctx.balances.credit(tx, scope, 'CASH', finished.amount);
  return finished;
}

export function paymentControlHandlers(ctx: SandboxContext): PaymentControlHandlers {
  /** Applies the bank's outcome to a payment the state machine lets it apply to (`bank_outcome`). */
  const settle = (
    caller: Caller,
    id: string,
    change: Pick<PaymentRecord, 'status' | 'failure_code'>,
  ): Promise<ControlResultOf<'completeDirectDebitPayment'>> => {
    const scope = scopeOf(caller);
    return ctx.store.transaction(async (tx): Promise<ControlResultOf<'completeDirectDebitPayment'>> => {
      const payment = await tx.get<PaymentRecord>(COLLECTIONS.payments, scope, id);
      if (!payment) return paymentNotFound(id);
      const conflict = outcomeConflict(payment);
      if (conflict !== null) return { status: 409, body: { error_code: 'SANDBOX_STATE_CONFLICT', message: conflict } };
      return { status: 200, body: paymentView(await applyBankOutcome(ctx, tx, scope, payment, change)) };
    });
  };
  return {
    completeDirectDebitPayment: ({ path }, { principal }) =>
      settle(principal, path.id, { status: 'COMPLETED', failure_code: null }),
    failDirectDebitPayment: ({ path, body }, { principal }) =>
      settle(principal, path.id, { status: 'FAILED', failure_code: body.failure_code }),
  };
}

/** The auto-resolve kind of a direct debit payment's outcome from the bank (stored in its countdown: never renamed). */
const AUTO_RESOLVE_KIND = 'direct_debit_payment';

/** In test mode as the amount selects (the control contract's `x-test-modes`); live payments complete. */
const autoResolveOutcome = autoResolveOutcomes<NonNullable<PaymentRecord['failure_code']>>(
  CREATE_OPERATION,
  'DirectDebitFailureCode',
);

/** What the bank answers by itself. */
function autoResolveChange(scope: Scope, payment: PaymentRecord): Pick<PaymentRecord, 'status' | 'failure_code'> {
  const outcome = autoResolveOutcome(scope.mode, payment);
  return outcome.status === 'FAILED'
    ? { status: 'FAILED', failure_code: outcome.failureCode }
    : { status: 'COMPLETED', failure_code: null };
}

/** The payment's auto-resolve outcome, when its time has come: only while the setting is still on, and only where a bank's outcome may apply. */
export function autoResolveHandlers(ctx: SandboxContext): AutoResolveHandlers {
  return {
    [AUTO_RESOLVE_KIND]: async (scope, id, ran) => {
      if (!(await ctx.settings.get(scope)).direct_debit_auto_resolve) return;
      await ctx.store.transaction(async (tx) => {
        await ran(tx);
        const payment = await tx.get<PaymentRecord>(COLLECTIONS.payments, scope, id);
        // A simulation may have ended it since its countdown started.
        if (payment && outcomeConflict(payment) === null)
          await applyBankOutcome(ctx, tx, scope, payment, autoResolveChange(scope, payment));
      });
    },
  };
}
