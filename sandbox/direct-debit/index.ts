// The direct debit module: its service operations, its control-API simulations, the collections it stores,
// what it auto-resolves and how the resource lists show its payment methods and payments.
import type { Handlers as ControlHandlers } from '@payments-contract/server/sandbox/server';
import type { Handlers } from '@payments-contract/server';
import type { Caller, SandboxContext } from '../context.js';
import { linkingHandlers, paymentMethodControlHandlers } from './linking.js';
import { sandboxModule } from '../module.js';
import { resourceKind } from '../platform/resources.js';
import { autoResolveHandlers, paymentControlHandlers, paymentHandlers } from './payments.js';
import {
  collections,
  COLLECTIONS,
  paymentMethodView,
  paymentView,
  type PaymentMethodRecord,
  type PaymentRecord,
} from './records.js';

export { autoResolveHandlers, collections };

export type DirectDebitHandlers = Pick<
  Handlers<Caller>,
  | 'initializeLinkedAccountTokenization'
  | 'validateLinkedAccountTokenOtp'
  | 'listLinkedAccountTokenAccounts'
  | 'createPaymentMethod'
  | 'listPaymentMethodsByCustomer'
  | 'createDirectDebitPayment'
  | 'validateDirectDebitPaymentOtp'
  | 'getDirectDebitPaymentByReferenceId'
  | 'getDirectDebitPayment'
>;

export type DirectDebitControlHandlers = Pick<
  ControlHandlers<Caller>,
  'completeDirectDebitPayment' | 'failDirectDebitPayment' | 'invalidatePaymentMethod'
>;

export function directDebitHandlers(ctx: SandboxContext): DirectDebitHandlers {
  return { ...linkingHandlers(ctx), ...paymentHandlers(ctx) };
}

export function directDebitControlHandlers(ctx: SandboxContext): DirectDebitControlHandlers {
  return { ...paymentControlHandlers(ctx), ...paymentMethodControlHandlers(ctx) };
}

export const product = sandboxModule({
  name: 'direct-debit',
  collections,
  service: directDebitHandlers,
  control: directDebitControlHandlers,
  autoResolve: autoResolveHandlers,
  views: {
    payment_methods: resourceKind<PaymentMethodRecord>(COLLECTIONS.paymentMethods, 'paymentMethod', (record, now) => {
      const method = paymentMethodView(record, now);
      return { resource: method, state: method.status };
    }),
    direct_debits: resourceKind<PaymentRecord>(COLLECTIONS.payments, 'directDebitPayment', (record) => ({
      resource: paymentView(record),
      state: record.status,
    })),
  },
});
