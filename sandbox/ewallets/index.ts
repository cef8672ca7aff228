// E-wallet payments in the sandbox: creation (PENDING, external_id unique per merchant and mode), the status
// lookup, and the end of a payment, COMPLETED (CASH credited) or FAILED with a failure code, each announced by
// the `ewallet.payment` callback. With the merchant setting `ewallet_auto_resolve` on, a payment ends right
// after creation as the contract's test-mode table says for its amount; with it off, it waits for the
// control API's approve or decline.
import type { Handlers as ControlHandlerSet } from '@payments-contract/server/sandbox/server';
import type { Handlers } from '@payments-contract/server';
import type { components } from '@payments-contract/server/types';
import { webhookMetadata, type EwalletPaymentCallback } from '@payments-contract/client/webhooks';
import { DuplicateKeyError, type CollectionDefinition } from '../store/store.js';
import type { Caller, SandboxSettings, SandboxContext, Scope, Transaction } from '../context.js';
import { enqueueDashboardCallback } from '../callbacks/enqueue.js';
import { sandboxModule } from '../module.js';
import { resourceKind } from '../platform/resources.js';
import { readEwalletTestMode, type EwalletOutcome } from './contract.js';

type ControlHandlers = ControlHandlerSet<Caller>;
type EwalletType = components['schemas']['EwalletPaymentStatus']['ewallet_type'];
type EwalletStatus = components['schemas']['EwalletPaymentStatus']['status'];

export const COLLECTION = 'ewallet_payments';

/** A payment as stored: the create answer's fields, its state, and what the callback and the lookup need. */
export type EwalletPaymentRecord = {
  /** The service's id of the payment; it first appears in the callback (decision `ewallet-callback-id`). */
  id: string;
  external_id: string;
  ewallet_type: EwalletType;
  amount: number;
  phone: string;
  business_id: string;
  status: EwalletStatus;
  failure_code: NonNullable<EwalletPaymentCallback['failure_code']> | null;
  created: string;
  /** When the end user paid (COMPLETED only). */
  paid: string | null;
  updated: string;
};

export const collections: CollectionDefinition[] = [
  // Decision `ewallet-duplicate-scope`: external_id is unique per merchant and mode, whatever the e-wallet type.
  { name: COLLECTION, unique: ['external_id'] },
];

const testMode = readEwalletTestMode('createEwalletPayment');

function statusOf(record: EwalletPaymentRecord): components['schemas']['EwalletPaymentStatus'] {
  // Decision `ewallet-status-transaction-date`: the payment time once paid, the request time until then.
  return {
    amount: record.amount,
    external_id: record.external_id,
    transaction_date: record.paid ?? record.created,
    business_id: record.business_id,
    ewallet_type: record.ewallet_type,
    status: record.status,
  };
}

/** A payment as its `ewallet.payment` callback shows it, whatever its status (the resource lists show it so). */
function paymentView(record: EwalletPaymentRecord) {
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

function callbackOf(record: EwalletPaymentRecord): EwalletPaymentCallback {
  const { status } = record;
  if (status === 'PENDING') throw new Error(`e-wallet payment ${record.id} has not ended; it has no callback yet`);
  return { event: webhookMetadata.ewalletPayment.name, ...paymentView(record), status };
}

async function findPayment(
  tx: Transaction,
  scope: Scope,
  externalId: string,
  type: EwalletType,
): Promise<EwalletPaymentRecord | undefined> {
  const [found] = await tx.findBy<EwalletPaymentRecord>(COLLECTION, scope, 'external_id', externalId);
  return found?.ewallet_type === type ? found : undefined;
}

/** Ends a PENDING payment: its new state, CASH credited when it completed, and its callback, in `tx`. */
async function conclude(
  ctx: SandboxContext,
  tx: Transaction,
  scope: Scope,
  record: EwalletPaymentRecord,
  outcome: EwalletOutcome,
  settings: SandboxSettings,
): Promise<EwalletPaymentRecord> {
  const now = ctx.clock.now(scope).toISOString();
  const ended: EwalletPaymentRecord = {
    ...record,
    status: outcome.status,
    failure_code: outcome.status === 'FAILED' ? outcome.failure_code : null,
    paid: outcome.status === 'COMPLETED' ? now : null,
    updated: now,
  };
  await tx.update(COLLECTION, scope, ended);
  // The money the end user paid is the merchant's income.
  if (ended.status === 'COMPLETED') await ctx.balances.credit(tx, scope, 'CASH', ended.amount);
  await enqueueDashboardCallback(ctx, tx, scope, 'ewalletPayment', callbackOf(ended), settings);
  return ended;
}

/**
 * The outcome a new payment reaches on its own. Test mode follows the contract's table; live mode has no
 * table (`x-test-mode` is test-mode behaviour), so there the end user approves whatever the amount.
 */
function automaticOutcome(scope: Scope, body: object): EwalletOutcome {
  return scope.mode === 'test' ? testMode.outcomeOf(body) : testMode.defaultOutcome;
}

const notFound = (type: EwalletType, externalId: string) =>
  ({
    status: 404,
    body: {
      error_code: 'PAYMENT_NOT_FOUND_ERROR',
      message: `No ${type} payment with external_id ${externalId} was found.`,
    },
  }) as const;
const conflict = (record: EwalletPaymentRecord, action: string) =>
  ({
    status: 409,
    body: {
      error_code: 'SANDBOX_STATE_CONFLICT',
      message: `${record.ewallet_type} payment ${record.external_id} is ${record.status}; only a PENDING payment can be ${action}.`,
    },
  }) as const;

export function ewalletHandlers(
  ctx: SandboxContext,
): Pick<Handlers<Caller>, 'createEwalletPayment' | 'getEwalletPaymentStatus'> {
  return {
    createEwalletPayment: async ({ body }, { principal }) => {
      const settings = await ctx.settings.get(principal);
      const now = ctx.clock.now(principal).toISOString();
      const record: EwalletPaymentRecord = {
        id: ctx.ids.next(),
        external_id: body.external_id,
        ewallet_type: body.ewallet_type,
        amount: body.amount,
        phone: body.phone,
        business_id: principal.ownerId,
        status: 'PENDING',
        failure_code: null,
        created: now,
        paid: null,
        updated: now,
      };
      try {
        await ctx.store.insert(COLLECTION, principal, record);
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        return {
          status: 400,
          body: {
            error_code: 'DUPLICATE_PAYMENT_REQUEST_ERROR',
            message: `An e-wallet payment with external_id ${body.external_id} already exists. Use a new external_id.`,
          },
        };
      }
      // The payment is stored PENDING first (what this answer shows); its outcome is a change of its own, so
      // a failure after the first commit leaves a PENDING payment the control API can still end.
      if (settings.ewallet_auto_resolve) {
        await ctx.store.transaction(async (tx) => {
          const stored = await tx.get<EwalletPaymentRecord>(COLLECTION, principal, record.id);
          if (stored?.status === 'PENDING')
            await conclude(ctx, tx, principal, stored, automaticOutcome(principal, body), settings);
        });
      }
      const { business_id, external_id, amount, phone, ewallet_type, created } = record;
      return {
        status: 200,
        body: { business_id, external_id, amount, phone, ewallet_type, status: 'PENDING', created },
      };
    },

    getEwalletPaymentStatus: async ({ query }, { principal }) => {
      const found = await ctx.store.transaction((tx) =>
        findPayment(tx, principal, query.external_id, query.ewallet_type),
      );
      if (!found) return notFound(query.ewallet_type, query.external_id);
      return { status: 200, body: statusOf(found) };
    },
  };
}

type Resolution =
  | { kind: 'ended'; record: EwalletPaymentRecord }
  | { kind: 'missing' }
  | { kind: 'not-pending'; record: EwalletPaymentRecord };

/** Ends the named payment with `outcome` if it is still PENDING. */
async function resolveByControl(
  ctx: SandboxContext,
  scope: Scope,
  externalId: string,
  type: EwalletType,
  outcome: EwalletOutcome,
): Promise<Resolution> {
  // Settings are read before the transaction: they are not part of it.
  const settings = await ctx.settings.get(scope);
  return ctx.store.transaction(async (tx): Promise<Resolution> => {
    const record = await findPayment(tx, scope, externalId, type);
    if (!record) return { kind: 'missing' };
    if (record.status !== 'PENDING') return { kind: 'not-pending', record };
    return { kind: 'ended', record: await conclude(ctx, tx, scope, record, outcome, settings) };
  });
}

export function ewalletControlHandlers(
  ctx: SandboxContext,
): Pick<ControlHandlers, 'approveEwalletPayment' | 'declineEwalletPayment'> {
  return {
    approveEwalletPayment: async ({ body }, { principal }) => {
      const result = await resolveByControl(ctx, principal, body.external_id, body.ewallet_type, {
        status: 'COMPLETED',
      });
      if (result.kind === 'missing') return notFound(body.ewallet_type, body.external_id);
      if (result.kind === 'not-pending') return conflict(result.record, 'approved');
      return { status: 200, body: statusOf(result.record) };
    },

    declineEwalletPayment: async ({ body }, { principal }) => {
      // The router has checked failure_code against the contract's EwalletFailureCode.
      const result = await resolveByControl(ctx, principal, body.external_id, body.ewallet_type, {
        status: 'FAILED',
        failure_code: body.failure_code,
      });
      if (result.kind === 'missing') return notFound(body.ewallet_type, body.external_id);
      if (result.kind === 'not-pending') return conflict(result.record, 'declined');
      return { status: 200, body: statusOf(result.record) };
    },
  };
}

export const product = sandboxModule({
  name: 'ewallets',
  collections,
  service: ewalletHandlers,
  control: ewalletControlHandlers,
  // The service has no lookup by id: the list shows a payment as its callback does.
  views: {
    ewallet_payments: resourceKind<EwalletPaymentRecord>(COLLECTION, 'ewalletPayment', (record) => ({
      resource: paymentView(record),
      state: record.status,
    })),
  },
});
