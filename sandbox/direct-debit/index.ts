// The direct debit module as app.ts wires it: its service operations, its control-API simulations and the
// collections it stores.
import type { Handlers as ControlHandlers } from '@payments-contract/server/sandbox/server';
import type { Handlers } from '@payments-contract/server';
import type { Caller, SandboxContext } from '../context.js';
import { linkingHandlers, paymentMethodControlHandlers } from './linking.js';
import { paymentControlHandlers, paymentHandlers } from './payments.js';

export { collections } from './records.js';
export { automaticOutcomes } from './payments.js';

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
