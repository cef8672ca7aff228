// Type-level specification of generated/server/src/server.ts. `tsc --noEmit` (npm run typecheck) is the real judge:
// each `@ts-expect-error` line fails the typecheck if the misuse below it compiles. The `it` blocks only
// build handlers, they never run a request.
import { describe, expectTypeOf, it } from 'vitest';
import {
  createRouter,
  type CreateDisbursementHandlerInput,
  type CreateEwalletPaymentHandlerInput,
  type CreateEwalletPaymentHandlerResult,
  type GetBalanceHandlerInput,
  type GetDirectDebitPaymentHandlerInput,
  type Handlers,
  type ListVirtualAccountBanksHandlerInput,
  type RequestContext,
} from '@payments-contract/server';
import type { components } from '@payments-contract/server/types';

type Merchant = { merchantId: string };
const payment: components['schemas']['EwalletPayment'] = {
  business_id: 'b',
  external_id: 'order-1',
  amount: 125000,
  phone: '081234567890',
  ewallet_type: 'OVO',
  status: 'PENDING',
  created: '2026-11-21T09:30:00.000Z',
};

describe('handler inputs', () => {
  it('are typed per operation and location from the contract', () => {
    expectTypeOf<CreateEwalletPaymentHandlerInput['body']>().toEqualTypeOf<
      components['schemas']['CreateEwalletPaymentRequest']
    >();
    expectTypeOf<CreateEwalletPaymentHandlerInput['body']['amount']>().toEqualTypeOf<number>();
    expectTypeOf<GetBalanceHandlerInput['query']['account_type']>().toEqualTypeOf<'CASH' | 'HOLDING' | undefined>();
    expectTypeOf<GetDirectDebitPaymentHandlerInput['path']>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<ListVirtualAccountBanksHandlerInput>().toEqualTypeOf<Record<string, never>>();
  });

  it('name header parameters in lower case, as the router hands them over', () => {
    expectTypeOf<CreateDisbursementHandlerInput['header']>().toEqualTypeOf<{ 'x-idempotency-key'?: string }>();
    const read = (input: CreateDisbursementHandlerInput): string | undefined => input.header['x-idempotency-key'];
    // @ts-expect-error the contract writes X-IDEMPOTENCY-KEY, but handlers get the lower-case name
    const wrongCase = (input: CreateDisbursementHandlerInput): unknown => input.header['X-IDEMPOTENCY-KEY'];
    void [read, wrongCase];
  });

  it('reject access to what the operation does not take', () => {
    // @ts-expect-error the e-wallet creation body has no `currency`
    const unknownField = (input: CreateEwalletPaymentHandlerInput): unknown => input.body.currency;
    // @ts-expect-error getBalance takes no body
    const noBody = (input: GetBalanceHandlerInput): unknown => input.body;
    // @ts-expect-error amount is a number, not a string
    const wrongType = (input: CreateEwalletPaymentHandlerInput): string => input.body.amount;
    void [unknownField, noBody, wrongType];
  });
});

describe('handler results', () => {
  it('a documented success or error response compiles', () => {
    const ok: CreateEwalletPaymentHandlerResult = { status: 200, body: payment };
    const coded: CreateEwalletPaymentHandlerResult = {
      status: 422,
      body: { error_code: 'EWALLET_TYPE_NOT_SUPPORTED', message: 'Only OVO.' },
    };
    const withHeaders: CreateEwalletPaymentHandlerResult = {
      status: 400,
      body: { error_code: 'DUPLICATE_PAYMENT_REQUEST_ERROR', message: 'Used.' },
      headers: { 'x-request-id': 'r1' },
    };
    void [ok, coded, withHeaders];
  });

  it('an undocumented status does not compile', () => {
    // @ts-expect-error createEwalletPayment documents no 201
    const created: CreateEwalletPaymentHandlerResult = { status: 201, body: payment };
    void created;
  });

  it('an error_code the status does not document does not compile', () => {
    // @ts-expect-error EWALLET_TYPE_NOT_SUPPORTED is documented at 422, not at 400
    const wrongStatus: CreateEwalletPaymentHandlerResult = {
      status: 400,
      body: { error_code: 'EWALLET_TYPE_NOT_SUPPORTED', message: 'Only OVO.' },
    };
    const unknownCode: CreateEwalletPaymentHandlerResult = {
      status: 422,
      // @ts-expect-error NOT_A_CODE is documented nowhere
      body: { error_code: 'NOT_A_CODE', message: 'm' },
    };
    void [wrongStatus, unknownCode];
  });

  it('a success body breaking its schema does not compile', () => {
    // @ts-expect-error status must be PENDING in the creation answer
    const wrongEnum: CreateEwalletPaymentHandlerResult = { status: 200, body: { ...payment, status: 'COMPLETED' } };
    const errorAsSuccess: CreateEwalletPaymentHandlerResult = {
      status: 200,
      // @ts-expect-error an error body is not a success body
      body: { error_code: 'SERVER_ERROR', message: 'm' },
    };
    void [wrongEnum, errorAsSuccess];
  });
});

describe('Handlers and createRouter', () => {
  it('type each handler, and give it the principal authenticate returns', () => {
    const createEwalletPayment: Handlers<Merchant>['createEwalletPayment'] = async (input, context) => {
      expectTypeOf(context).toEqualTypeOf<RequestContext<Merchant>>();
      expectTypeOf(context.principal.merchantId).toEqualTypeOf<string>();
      if (input.body.ewallet_type !== 'OVO')
        return { status: 422, body: { error_code: 'EWALLET_TYPE_NOT_SUPPORTED', message: 'Only OVO.' } };
      return { status: 200, body: { ...payment, external_id: input.body.external_id, amount: input.body.amount } };
    };
    void createEwalletPayment;
  });

  it('a handler answering an undocumented error code does not compile inside Handlers', () => {
    // @ts-expect-error getBalance documents only API_VALIDATION_ERROR at 400
    const getBalance: Handlers['getBalance'] = () => ({
      status: 400,
      body: { error_code: 'INVALID_JSON_FORMAT', message: 'm' },
    });
    void getBalance;
  });

  it('createRouter needs one handler per operation and an authenticate hook returning the principal', () => {
    const build = (handlers: Handlers<Merchant>) => {
      const router = createRouter(handlers, {
        authenticate: (credentials) => (credentials ? { merchantId: credentials.username } : null),
      });
      expectTypeOf(router).toEqualTypeOf<(request: Request) => Promise<Response>>();
      // @ts-expect-error the handlers expect a Merchant principal, authenticate returns a string
      createRouter(handlers, { authenticate: () => 'merchant' });
      const { getBalance: _omitted, ...incomplete } = handlers;
      // @ts-expect-error getBalance has no handler
      createRouter(incomplete, { authenticate: () => ({ merchantId: 'm' }) });
      return router;
    };
    void build;
  });
});
