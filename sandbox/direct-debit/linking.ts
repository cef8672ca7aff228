// Linking a customer's debit card and making it chargeable: linked account tokens (PENDING -> SUCCESS or
// FAILED by OTP), the linked account a successful token gives access to, and payment methods (one ACTIVE
// per linked account).
import type { Handlers as ControlHandlers } from '@payments-contract/server/sandbox/server';
import type { Handlers, HandlerResponse } from '@payments-contract/server';
import { findCustomer } from '../customers/customers.js';
import { scopeOf, type Caller, type SandboxContext } from '../context.js';
import { DuplicateKeyError } from '../store/store.js';
import { listLimit } from '../contract.js';
import { contract } from './contract.js';
import { judgeOtp, otpMessages } from './otp.js';
import {
  COLLECTIONS,
  currentPaymentMethod,
  linkedAccountView,
  paymentMethodView,
  storedJson,
  tokenView,
  type LinkedAccountRecord,
  type PaymentMethodRecord,
  type TokenRecord,
} from './records.js';

type LinkingHandlers = Pick<
  Handlers<Caller>,
  | 'initializeLinkedAccountTokenization'
  | 'validateLinkedAccountTokenOtp'
  | 'listLinkedAccountTokenAccounts'
  | 'createPaymentMethod'
  | 'listPaymentMethodsByCustomer'
>;
type ResultOf<K extends keyof LinkingHandlers> = Awaited<ReturnType<LinkingHandlers[K]>>;

const tokenNotFound = (id: string): HandlerResponse<404, { error_code: 'DATA_NOT_FOUND_ERROR'; message: string }> => ({
  status: 404,
  body: { error_code: 'DATA_NOT_FOUND_ERROR', message: `Linked account token ${id} was not found.` },
});

/** The bank's label for a linked card: the channel's bank (`DC_BRI` -> BRI) and the card's last digits. */
const cardDescription = (channelCode: string, lastFour: string): string =>
  `${channelCode.replace(/^DC_/, '')} Debit Card ending ${lastFour}`;

const PAYMENT_METHODS_LIMIT = listLimit('listPaymentMethodsByCustomer');
const ACCOUNTS_LIMIT = listLimit('listLinkedAccountTokenAccounts');

export function linkingHandlers(ctx: SandboxContext): LinkingHandlers {
  return {
    initializeLinkedAccountTokenization: ({ body }, { principal }) => {
      const scope = scopeOf(principal);
      return ctx.store.transaction(async (tx): Promise<ResultOf<'initializeLinkedAccountTokenization'>> => {
        if (!(await findCustomer(tx, scope, body.customer_id))) {
          return {
            status: 400,
            body: {
              error_code: 'CUSTOMER_NOT_FOUND_ERROR',
              message: `No customer with id ${body.customer_id} exists. Create the customer first.`,
            },
          };
        }
        // Decision `test-mode-channel-unavailable`, read from the trigger's test_mode. The sandbox reaches no
        // bank in either mode, so live-mode keys get the same simulated bank as test-mode keys.
        if (contract.channelUnavailable.matches(body)) {
          return {
            status: 503,
            body: {
              error_code: 'CHANNEL_UNAVAILABLE',
              message: "The bank's direct debit service is currently unavailable. Try again later.",
            },
          };
        }
        // The schema makes `properties` and its four fields required for DC_BRI, the only channel.
        const properties = body.properties;
        if (
          !properties?.account_mobile_number ||
          !properties.card_last_four ||
          !properties.card_expiry ||
          !properties.account_email
        ) {
          throw new Error(
            'initializeLinkedAccountTokenization: the router let a DC_BRI request without its card properties through',
          );
        }
        const now = ctx.clock.now(scope).toISOString();
        const token: TokenRecord = {
          id: ctx.ids.next('lat-'),
          customer_id: body.customer_id,
          channel_code: body.channel_code,
          status: 'PENDING',
          properties: {
            account_mobile_number: properties.account_mobile_number,
            card_last_four: properties.card_last_four,
            card_expiry: properties.card_expiry,
            account_email: properties.account_email,
          },
          metadata: storedJson(body.metadata),
          created: now,
          otp_sent_at: now,
          otp_wrong_attempts: 0,
        };
        await tx.insert(COLLECTIONS.tokens, scope, token);
        return { status: 200, body: tokenView(token) };
      });
    },

    validateLinkedAccountTokenOtp: ({ path, body }, { principal }) => {
      const scope = scopeOf(principal);
      return ctx.store.transaction(async (tx): Promise<ResultOf<'validateLinkedAccountTokenOtp'>> => {
        const token = await tx.get<TokenRecord>(COLLECTIONS.tokens, scope, path.id);
        if (!token) return tokenNotFound(path.id);
        if (token.status === 'SUCCESS') {
          return {
            status: 409,
            body: {
              error_code: 'ACCOUNT_LINKING_ALREADY_COMPLETED',
              message: 'This account linking is already completed. List the accounts of the token instead.',
            },
          };
        }
        if (token.status === 'FAILED') {
          return {
            status: 409,
            body: {
              error_code: 'ACCOUNT_LINKING_ALREADY_FAILED',
              message: 'This account linking has failed. Initialize a new tokenization.',
            },
          };
        }
        const verdict = judgeOtp(contract.tokenOtp, token, body.otp_code, ctx.clock.now(scope));
        if (verdict.kind === 'wrong') {
          await tx.update(COLLECTIONS.tokens, scope, { ...token, otp_wrong_attempts: verdict.wrongAttempts });
          return {
            status: 400,
            body: { error_code: 'INVALID_OTP_ERROR', message: otpMessages.wrong(verdict.remaining) },
          };
        }
        if (verdict.kind === 'failed') {
          await tx.update(COLLECTIONS.tokens, scope, { ...token, status: 'FAILED' });
          return {
            status: 400,
            body: {
              error_code: verdict.errorCode,
              message: `${otpMessages[verdict.errorCode]('account linking')} Initialize a new tokenization.`,
            },
          };
        }
        await tx.update(COLLECTIONS.tokens, scope, { ...token, status: 'SUCCESS' });
        // The bank reports the one debit card the token was initialized for.
        const account: LinkedAccountRecord = {
          id: ctx.ids.next('la-'),
          token_id: token.id,
          customer_id: token.customer_id,
          channel_code: token.channel_code,
          type: 'DEBIT_CARD',
          properties: {
            ...token.properties,
            currency: 'IDR',
            description: cardDescription(token.channel_code, token.properties.card_last_four),
          },
        };
        await tx.insert(COLLECTIONS.accounts, scope, account);
        return {
          status: 200,
          body: { id: token.id, customer_id: token.customer_id, channel_code: token.channel_code, status: 'SUCCESS' },
        };
      });
    },

    listLinkedAccountTokenAccounts: async (
      { path },
      { principal },
    ): Promise<ResultOf<'listLinkedAccountTokenAccounts'>> => {
      const scope = scopeOf(principal);
      const token = await ctx.store.get<TokenRecord>(COLLECTIONS.tokens, scope, path.id);
      if (!token) return tokenNotFound(path.id);
      // Decision `accounts-before-linking`: a token that is not SUCCESS gives access to nothing.
      if (token.status !== 'SUCCESS') return { status: 200, body: [] };
      // Decision `list-order` (x-matches): newest first; decision `list-bounds`: past the contract's limit, the newest ones.
      const accounts = await ctx.store.findBy<LinkedAccountRecord>(COLLECTIONS.accounts, scope, 'token_id', token.id, {
        order: 'newest',
        limit: ACCOUNTS_LIMIT,
      });
      return { status: 200, body: accounts.map(linkedAccountView) };
    },

    createPaymentMethod: ({ body }, { principal }) => {
      const scope = scopeOf(principal);
      return ctx.store.transaction(async (tx): Promise<ResultOf<'createPaymentMethod'>> => {
        if (!(await findCustomer(tx, scope, body.customer_id))) {
          return {
            status: 400,
            body: {
              error_code: 'CUSTOMER_NOT_FOUND_ERROR',
              message: `No customer with id ${body.customer_id} exists.`,
            },
          };
        }
        const account = await tx.get<LinkedAccountRecord>(COLLECTIONS.accounts, scope, body.properties.id);
        // Decision `payment-method-account-ownership`: another customer's linked account is not found.
        if (!account || account.customer_id !== body.customer_id) {
          return {
            status: 400,
            body: {
              error_code: 'LIINKED_ACCOUNT_NOT_FOUND_ERROR',
              message: `Linked account ${body.properties.id} was not found for this customer.`,
            },
          };
        }
        const now = ctx.clock.now(scope);
        // A method that expired with its card no longer holds the linked account: write that down before the
        // uniqueness of active_linked_account_id decides whether a new one may be ACTIVE.
        const [holder] = await tx.findBy<PaymentMethodRecord>(
          COLLECTIONS.paymentMethods,
          scope,
          'active_linked_account_id',
          account.id,
        );
        if (holder) {
          const current = currentPaymentMethod(holder, now);
          if (current !== holder) await tx.update(COLLECTIONS.paymentMethods, scope, current);
        }
        const method: PaymentMethodRecord = {
          id: ctx.ids.next('pm-'),
          type: body.type,
          properties: {
            id: account.id,
            channel_code: account.channel_code,
            currency: account.properties.currency,
            card_last_four: account.properties.card_last_four,
            card_expiry: account.properties.card_expiry,
            description: account.properties.description,
          },
          customer_id: body.customer_id,
          status: 'ACTIVE',
          created: now.toISOString(),
          updated: now.toISOString(),
          metadata: storedJson(body.metadata),
          active_linked_account_id: account.id,
        };
        try {
          await tx.insert(COLLECTIONS.paymentMethods, scope, method);
        } catch (error) {
          if (!(error instanceof DuplicateKeyError)) throw error;
          return {
            status: 409,
            body: {
              error_code: 'DUPLICATE_ERROR',
              message: `An active payment method already exists for linked account ${account.id}.`,
            },
          };
        }
        return { status: 200, body: paymentMethodView(method, now) };
      });
    },

    listPaymentMethodsByCustomer: async (
      { query },
      { principal },
    ): Promise<ResultOf<'listPaymentMethodsByCustomer'>> => {
      // Decision `payment-methods-unknown-customer`: an unknown customer simply has none.
      // Decision `list-order` (x-matches): newest first; decision `list-bounds`: past the contract's limit, the newest ones.
      const methods = await ctx.store.findBy<PaymentMethodRecord>(
        COLLECTIONS.paymentMethods,
        scopeOf(principal),
        'customer_id',
        query.customer_id,
        { order: 'newest', limit: PAYMENT_METHODS_LIMIT },
      );
      const now = ctx.clock.now(principal);
      return { status: 200, body: methods.map((method) => paymentMethodView(method, now)) };
    },
  };
}

type PaymentMethodControlHandlers = Pick<ControlHandlers<Caller>, 'invalidatePaymentMethod'>;

export function paymentMethodControlHandlers(ctx: SandboxContext): PaymentMethodControlHandlers {
  return {
    // The state machine's `payment_method_invalidated`: an ACTIVE method becomes INACTIVE for good and lets go of its linked account.
    invalidatePaymentMethod: ({ path }, { principal }) => {
      const scope = scopeOf(principal);
      return ctx.store.transaction(
        async (tx): Promise<Awaited<ReturnType<PaymentMethodControlHandlers['invalidatePaymentMethod']>>> => {
          const stored = await tx.get<PaymentMethodRecord>(COLLECTIONS.paymentMethods, scope, path.id);
          if (!stored)
            return {
              status: 404,
              body: { error_code: 'DATA_NOT_FOUND_ERROR', message: `Payment method ${path.id} was not found.` },
            };
          const now = ctx.clock.now(scope);
          const current = currentPaymentMethod(stored, now);
          if (current.status !== 'ACTIVE') {
            return {
              status: 409,
              body: {
                error_code: 'SANDBOX_STATE_CONFLICT',
                message: `Payment method ${path.id} is ${current.status}; only an ACTIVE payment method can be revoked.`,
              },
            };
          }
          const revoked: PaymentMethodRecord = {
            ...current,
            status: 'INACTIVE',
            updated: now.toISOString(),
            active_linked_account_id: null,
          };
          await tx.update(COLLECTIONS.paymentMethods, scope, revoked);
          return { status: 200, body: paymentMethodView(revoked, now) };
        },
      );
    },
  };
}
