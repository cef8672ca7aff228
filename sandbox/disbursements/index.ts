// Disbursements in the sandbox: creation takes the amount from the CASH balance in the transaction that
// stores the PENDING disbursement (X-IDEMPOTENCY-KEY makes a retry safe), the lookups by id and by
// external_id, and the bank's answer through the control API: COMPLETED, or FAILED with a failure code and
// the amount returned to CASH, each announced by the `disbursement.finished` callback in the same
// transaction. While the merchant's `disbursement_auto_resolve` is on, the bank answers by itself once the
// auto-resolve delay has passed: COMPLETED, or in test mode FAILED with the code the control contract's
// `x-test-modes` gives the destination account number.
import type { Handlers as ControlHandlerSet } from '@payments-contract/server/sandbox/server';
import type { Handlers } from '@payments-contract/server';
import type { components } from '@payments-contract/server/types';
import type { DisbursementFinishedCallback } from '@payments-contract/client/webhooks';
import { enqueueDashboardCallback } from '../callbacks/enqueue.js';
import { findDisbursementBank } from '../balance/index.js';
import type { CollectionDefinition } from '../store/store.js';
import type { AutoResolveHandlers, Caller, SandboxContext, Scope, Transaction } from '../context.js';
import { canonicalJson } from '../json.js';
import { sandboxModule } from '../module.js';
import { resourceKind } from '../platform/resources.js';
import { autoResolveOutcomes, listLimit } from '../contract.js';

type ControlHandlers = ControlHandlerSet<Caller>;
type Disbursement = components['schemas']['Disbursement'];
type EmailList = components['schemas']['DisbursementEmailList'];
type CreateDisbursementRequest = components['schemas']['CreateDisbursementRequest'];

export const COLLECTION = 'disbursements';
const OPERATION = 'createDisbursement';

/** A disbursement as stored: the resource's fields (absent ones as null) and what only the callback carries. */
export type DisbursementRecord = {
  id: string;
  /** The id again: ids are global, and the store finds a record in any scope only by an indexed field. */
  disbursement_id: string;
  user_id: string;
  external_id: string;
  amount: number;
  bank_code: string;
  account_holder_name: string;
  account_number: string;
  disbursement_description: string;
  status: Disbursement['status'];
  failure_code: NonNullable<Disbursement['failure_code']> | null;
  email_to: EmailList | null;
  email_cc: EmailList | null;
  email_bcc: EmailList | null;
  /** Decision `disbursement-is-instant-callback-only`: known once the bank answered, shown only in the callback. */
  is_instant: boolean | null;
  created: string;
  updated: string;
};

export const collections: CollectionDefinition[] = [
  // external_id need not be unique (a failed disbursement is repeated under the same one).
  { name: COLLECTION, indexed: ['external_id'] },
];

export function resourceOf(record: DisbursementRecord): Disbursement {
  const {
    id,
    user_id,
    external_id,
    amount,
    bank_code,
    account_holder_name,
    disbursement_description,
    status,
    created,
    updated,
  } = record;
  return {
    id,
    user_id,
    external_id,
    amount,
    bank_code,
    account_holder_name,
    disbursement_description,
    status,
    ...(record.failure_code ? { failure_code: record.failure_code } : {}),
    ...(record.email_to ? { email_to: record.email_to } : {}),
    ...(record.email_cc ? { email_cc: record.email_cc } : {}),
    ...(record.email_bcc ? { email_bcc: record.email_bcc } : {}),
    created,
    updated,
  };
}

function callbackOf(record: DisbursementRecord): DisbursementFinishedCallback {
  const resource = resourceOf(record);
  if (resource.status === 'PENDING' || record.is_instant === null)
    throw new Error(`disbursement ${record.id} has not finished; it has no callback yet`);
  // The sandbox charges no fee, so the optional service_fee_amount and the ledger's transaction fields are left out.
  return { ...resource, status: resource.status, is_instant: record.is_instant, disbursement_id: record.id };
}

type Created = { ok: true; record: DisbursementRecord } | { ok: false; reason: 'insufficient_balance' };

/** Stores the PENDING disbursement and takes its amount from CASH, or changes nothing when CASH is short; `autoResolve` starts its countdown. */
async function create(
  ctx: SandboxContext,
  tx: Transaction,
  caller: Caller,
  body: CreateDisbursementRequest,
  description: string,
  autoResolve: boolean,
  debit: (amount: number) => Promise<boolean>,
): Promise<Created> {
  if (!(await debit(body.amount))) return { ok: false, reason: 'insufficient_balance' };
  const id = ctx.ids.next();
  const now = ctx.clock.now(caller).toISOString();
  const record: DisbursementRecord = {
    id,
    disbursement_id: id,
    user_id: caller.ownerId,
    external_id: body.external_id,
    amount: body.amount,
    bank_code: body.bank_code,
    account_holder_name: body.account_holder_name,
    account_number: body.account_number,
    disbursement_description: description,
    status: 'PENDING',
    failure_code: null,
    email_to: body.email_to ?? null,
    email_cc: body.email_cc ?? null,
    email_bcc: body.email_bcc ?? null,
    is_instant: null,
    created: now,
    updated: now,
  };
  const stored = await tx.insert(COLLECTION, caller, record);
  if (autoResolve) await ctx.autoResolve.schedule(tx, caller, AUTO_RESOLVE_KIND, id);
  return { ok: true, record: stored };
}

const notFound = (id: string) =>
  ({
    status: 404,
    body: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR', message: `Disbursement ${id} was not found.` },
  }) as const;

const LIST_LIMIT = listLimit('listDisbursementsByExternalId');

export function disbursementHandlers(
  ctx: SandboxContext,
): Pick<Handlers<Caller>, 'createDisbursement' | 'getDisbursement' | 'listDisbursementsByExternalId'> {
  return {
    createDisbursement: async ({ header, body }, { principal }) => {
      // Checks of the request itself come before the idempotency key is used, so a corrected request may
      // reuse it; only an executed request (created, or refused for the balance) is remembered.
      if (!findDisbursementBank(body.bank_code)) {
        return {
          status: 400,
          body: {
            error_code: 'BANK_CODE_NOT_SUPPORTED_ERROR',
            message: `Bank code ${body.bank_code} is not supported for disbursements.`,
          },
        };
      }
      // Decision `disbursement-description-default`.
      const settings = ctx.settings.peek(principal);
      const description = body.description ?? settings.default_disbursement_description;
      if (description === null) {
        return {
          status: 400,
          body: {
            error_code: 'DISBURSEMENT_DESCRIPTION_NOT_FOUND_ERROR',
            message: 'No description was sent and no default disbursement description is configured in the dashboard.',
          },
        };
      }
      const key = header['x-idempotency-key'];
      const answer = await ctx.store.transaction(async (tx) => {
        const auto = settings.disbursement_auto_resolve;
        // CASH is read now, beside the key's lookup rather than after it: one round trip less under the
        // merchant's lock (PostgreSQL), and only a wasted read when the key turns out to be a replay.
        const debit = ctx.balances.prepareDebit(tx, principal, 'CASH');
        if (key === undefined)
          return { kind: 'first' as const, result: await create(ctx, tx, principal, body, description, auto, debit) };
        return ctx.idempotency.run(
          tx,
          principal,
          OPERATION,
          key,
          canonicalJson(body),
          () => create(ctx, tx, principal, body, description, auto, debit),
          (result) => (result.ok ? result.record.id : null),
        );
      });
      // Decision `idempotency-key-reuse`.
      if (answer.kind === 'replay') {
        const what =
          answer.originalId === null
            ? 'the request it came with was refused'
            : `it created disbursement ${answer.originalId}`;
        return {
          status: 400,
          body: {
            error_code: 'DUPLICATE_TRANSACTION_ERROR',
            message: `This idempotency key was already used; ${what}.`,
          },
        };
      }
      if (answer.kind === 'mismatch') {
        return {
          status: 400,
          body: {
            error_code: 'IDEMPOTENCY_KEY_MISMATCH_ERROR',
            message:
              'This idempotency key was used with different parameters; the request does not match the original. Use a new key.',
          },
        };
      }
      if (!answer.result.ok) {
        return {
          status: 400,
          body: {
            error_code: 'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR',
            message: `The cash balance is too low to send ${body.amount} IDR.`,
          },
        };
      }
      return { status: 200, body: resourceOf(answer.result.record) };
    },

    getDisbursement: async ({ path }, { principal }) => {
      const own = await ctx.store.get<DisbursementRecord>(COLLECTION, principal, path.id);
      if (own) return { status: 200, body: resourceOf(own) };
      // Ids are global: the same id under another merchant (in the key's mode) exists but is not the key's to
      // read. In the other mode it does not exist at all, like every object of that mode.
      const elsewhere = await ctx.store.findAcrossScopes<DisbursementRecord>(COLLECTION, 'id', path.id);
      if (elsewhere.some(({ scope }) => scope.mode === principal.mode && scope.merchantId !== principal.merchantId)) {
        return {
          status: 403,
          body: {
            error_code: 'INVALID_PERMISSION_ERROR',
            message: `You do not have access to disbursement ${path.id}.`,
          },
        };
      }
      return notFound(path.id);
    },

    listDisbursementsByExternalId: async ({ query }, { principal }) => {
      // Decision `list-order` (x-matches): newest first, so a repeat after a failure comes before the failed one;
      // decision `list-bounds`: past the contract's limit, the newest ones, limited in the store.
      const found = await ctx.store.findBy<DisbursementRecord>(
        COLLECTION,
        principal,
        'external_id',
        query.external_id,
        { order: 'newest', limit: LIST_LIMIT },
      );
      const [first, ...rest] = found.map(resourceOf);
      if (!first)
        return {
          status: 404,
          body: {
            error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR',
            message: `No disbursement with external_id ${query.external_id} was found.`,
          },
        };
      return { status: 200, body: [first, ...rest] };
    },
  };
}

type Finish =
  | { status: 'COMPLETED'; is_instant: boolean }
  | { status: 'FAILED'; failure_code: NonNullable<Disbursement['failure_code']>; is_instant: boolean };
type Finished =
  | { kind: 'finished'; record: DisbursementRecord }
  | { kind: 'missing' }
  | { kind: 'final'; record: DisbursementRecord };

/**
 * The bank's answer to a PENDING disbursement: its final state, CASH refunded on failure, and the callback.
 * `outcome` may depend on the disbursement as read in the deciding transaction (an automatic answer does).
 * `alsoInTransaction` runs in that transaction (an auto-resolve countdown ends there), beside the
 * disbursement's read rather than before it: on PostgreSQL both go in one round trip under the merchant's lock.
 */
async function finish(
  ctx: SandboxContext,
  scope: Scope,
  id: string,
  outcomeOf: Finish | ((record: DisbursementRecord) => Finish),
  alsoInTransaction?: (tx: Transaction) => Promise<void>,
): Promise<Finished> {
  // Settings are read before the transaction: they are not part of it.
  const settings = ctx.settings.peek(scope);
  return ctx.store.transaction(async (tx): Promise<Finished> => {
    const [, record] = await Promise.all([alsoInTransaction?.(tx), tx.get<DisbursementRecord>(COLLECTION, scope, id)]);
    if (!record) return { kind: 'missing' };
    if (record.status !== 'PENDING') return { kind: 'final', record };
    const outcome = typeof outcomeOf === 'function' ? outcomeOf(record) : outcomeOf;
    const finished: DisbursementRecord = {
      ...record,
      status: outcome.status,
      failure_code: outcome.status === 'FAILED' ? outcome.failure_code : null,
      is_instant: outcome.is_instant,
      updated: ctx.clock.now(scope).toISOString(),
    };
    await tx.update(COLLECTION, scope, finished);
    // No money left the merchant's account when the bank rejected the transfer.
    if (finished.status === 'FAILED') await ctx.balances.credit(tx, scope, 'CASH', finished.amount);
    await enqueueDashboardCallback(ctx, tx, scope, 'disbursementFinished', callbackOf(finished), settings);
    return { kind: 'finished', record: finished };
  });
}

const conflict = (record: DisbursementRecord, action: string) =>
  ({
    status: 409,
    body: {
      error_code: 'SANDBOX_STATE_CONFLICT',
      message: `Disbursement ${record.id} is ${record.status}; only a PENDING disbursement can be ${action}.`,
    },
  }) as const;

export function disbursementControlHandlers(
  ctx: SandboxContext,
): Pick<ControlHandlers, 'completeDisbursement' | 'failDisbursement'> {
  return {
    completeDisbursement: async ({ path, body }, { principal }) => {
      // Sandbox decision (control API): an instant transfer unless the request says otherwise.
      const result = await finish(ctx, principal, path.id, {
        status: 'COMPLETED',
        is_instant: body?.is_instant ?? true,
      });
      if (result.kind === 'missing') return notFound(path.id);
      if (result.kind === 'final') return conflict(result.record, 'completed');
      return { status: 200, body: resourceOf(result.record) };
    },

    failDisbursement: async ({ path, body }, { principal }) => {
      // The router has checked failure_code against the contract's DisbursementFailureCode.
      const result = await finish(ctx, principal, path.id, {
        status: 'FAILED',
        failure_code: body.failure_code,
        is_instant: body.is_instant ?? false,
      });
      if (result.kind === 'missing') return notFound(path.id);
      if (result.kind === 'final') return conflict(result.record, 'failed');
      return { status: 200, body: resourceOf(result.record) };
    },
  };
}

/** The auto-resolve kind of a disbursement's answer from the bank (stored in its countdown: never renamed). */
const AUTO_RESOLVE_KIND = 'disbursement';

/** In test mode as the account number selects (the control contract's `x-test-modes`); live disbursements complete. */
const autoResolveOutcome = autoResolveOutcomes<NonNullable<Disbursement['failure_code']>>(
  OPERATION,
  'DisbursementFailureCode',
);

/** What the bank answers by itself; instant unless it failed, as the control API's simulations default. */
function autoResolveFinish(scope: Scope, record: DisbursementRecord): Finish {
  const outcome = autoResolveOutcome(scope.mode, record);
  return outcome.status === 'FAILED'
    ? { status: 'FAILED', failure_code: outcome.failureCode, is_instant: false }
    : { status: 'COMPLETED', is_instant: true };
}

/**
 * The disbursement's auto-resolve answer, when its time has come: only while the setting is still on, and
 * only if it is still PENDING, as finish() reads it in the deciding transaction (a simulation may have ended
 * it meanwhile; the countdown ends there either way). No read before that transaction: it was a second read
 * and parse of the disbursement per automatic answer.
 */
export function autoResolveHandlers(ctx: SandboxContext): AutoResolveHandlers {
  return {
    [AUTO_RESOLVE_KIND]: async (scope, id, ran) => {
      if (!ctx.settings.peek(scope).disbursement_auto_resolve) return;
      await finish(ctx, scope, id, (record) => autoResolveFinish(scope, record), ran);
    },
  };
}

export const product = sandboxModule({
  name: 'disbursements',
  collections,
  service: disbursementHandlers,
  control: disbursementControlHandlers,
  autoResolve: autoResolveHandlers,
  views: {
    disbursements: resourceKind<DisbursementRecord>(COLLECTION, 'disbursement', (record) => ({
      resource: resourceOf(record),
      state: record.status,
    })),
  },
});
