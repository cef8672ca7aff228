// The server team's first lines, as generator/README.md shows them (compiled by tsc, run by
// generator/tests/round-trip.test.ts): implement a handler with the types the contract gives it, and serve
// every operation through the generated router, authenticated with the merchants' secret keys.
import { secretsEqual } from '@payments-contract/server/runtime/constant-time';
import { createRouter, type CreateEwalletPaymentHandlerInput, type Handlers } from '@payments-contract/server';
import type { components } from '@payments-contract/server/types';

export type Merchant = { id: string; secretKey: string };
export interface EwalletPayments {
  /** The payment requested, or null when the merchant used this external_id before. */
  request(
    merchant: Merchant,
    body: CreateEwalletPaymentHandlerInput['body'],
  ): Promise<components['schemas']['EwalletPayment'] | null>;
}

export function paymentsRouter(
  merchants: Merchant[],
  payments: EwalletPayments,
  others: Omit<Handlers<Merchant>, 'createEwalletPayment'>,
  development: boolean,
) {
  const handlers: Handlers<Merchant> = {
    ...others,
    createEwalletPayment: async ({ body }, { principal }) => {
      const payment = await payments.request(principal, body); // body: typed and validated against the contract
      if (payment) return { status: 200, body: payment };
      return {
        status: 400,
        body: {
          error_code: 'DUPLICATE_PAYMENT_REQUEST_ERROR',
          message: `external_id ${body.external_id} was used before.`,
        },
      };
    },
  };
  return createRouter(handlers, {
    authenticate: (key) =>
      key?.password === ''
        ? (merchants.find((merchant) => secretsEqual(key.username, merchant.secretKey)) ?? null)
        : null,
    validateResponses: development, // an answer off the contract becomes a 500 and an onError report
    onError: (error) => console.error(error),
  }); // (request: Request) => Promise<Response>: serve it with Bun.serve, Deno.serve, a worker or @hono/node-server
}
