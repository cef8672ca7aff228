// What the compiler accepts and refuses in code that uses generated/client/src/client.ts. Each `@ts-expect-error` line
// must fail to compile (tsc reports an unused directive otherwise), so `npx tsc --noEmit` proves the misuse
// is caught; the misuse sits in functions that are never called. `expectTypeOf` states the types that flow.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createPaymentsClient,
  type CallOptions,
  type CreateDirectDebitPaymentInput,
  type CreateDisbursementInput,
  type CreateDisbursementResult,
  type CreateEwalletPaymentResult,
  type GetBalanceInput,
  type PaymentsClient,
} from '@payments-contract/client';
import type { components } from '@payments-contract/server/types';

const client: PaymentsClient = createPaymentsClient({
  baseUrl: 'https://payments.test',
  secretKey: 'sk_test_types',
  fetch: async () => Response.json({}),
});

const disbursement = {
  external_id: 'd-1',
  bank_code: 'BCA',
  account_holder_name: 'Budi',
  account_number: '1234567890',
  amount: 90000,
};
const directDebit = {
  reference_id: 'r-1',
  payment_method_id: 'pm-1',
  currency: 'IDR',
  amount: 10000,
  callback_url: 'https://merchant.test/cb',
};

describe('client inputs', () => {
  it('takes typed path, query, header options and body, and nothing where the operation has none', () => {
    expectTypeOf(client.listVirtualAccountBanks).parameters.toEqualTypeOf<[call?: CallOptions]>();
    expectTypeOf(client.getBalance).parameters.toEqualTypeOf<[input?: GetBalanceInput, call?: CallOptions]>();
    expectTypeOf<CreateDisbursementInput['body']>().toEqualTypeOf<components['schemas']['CreateDisbursementRequest']>();
    expectTypeOf<CreateDisbursementInput['idempotencyKey']>().toEqualTypeOf<string | undefined>();
    expectTypeOf(client.createEwalletPayment)
      .parameter(0)
      .toHaveProperty('apiVersion')
      .toEqualTypeOf<string | undefined>();
    expectTypeOf(client.getFixedVirtualAccountPayment)
      .parameter(0)
      .toHaveProperty('path')
      .toEqualTypeOf<{ payment_id: string }>();
  });

  it('refuses a body field of the wrong type', () => {
    const misuse = () =>
      client.createDisbursement({
        body: {
          ...disbursement,
          // @ts-expect-error amount is a number in the contract, not text
          amount: '90000',
        },
      });
    expectTypeOf(misuse).toBeFunction();
  });

  it('refuses a body without a required field', () => {
    const misuse = () =>
      client.createDisbursement({
        // @ts-expect-error amount is required
        body: { external_id: 'd-1', bank_code: 'BCA', account_holder_name: 'Budi', account_number: '1234567890' },
      });
    expectTypeOf(misuse).toBeFunction();
  });

  it('leaves the idempotency key optional, where the contract requires it (direct debit) too: the client makes one', () => {
    expectTypeOf<CreateDirectDebitPaymentInput['idempotencyKey']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CreateDisbursementInput['idempotencyKey']>().toEqualTypeOf<string | undefined>();
    const withoutKey = () => client.createDirectDebitPayment({ body: directDebit });
    expectTypeOf(withoutKey).toBeFunction();
  });

  it('offers encoding: form only where the contract accepts a form body', () => {
    const fine = () =>
      client.createFixedPaymentCode({
        body: {
          external_id: 'p',
          retail_outlet_name: 'ALFAMART',
          name: 'Budi',
          expected_amount: 10000,
          is_single_use: false,
        },
        encoding: 'form',
      });
    const misuse = () =>
      client.createDisbursement({
        body: disbursement,
        // @ts-expect-error disbursements are JSON only
        encoding: 'form',
      });
    expectTypeOf(fine).toBeFunction();
    expectTypeOf(misuse).toBeFunction();
  });

  it('refuses a wrong path parameter, a missing one, and an operation the contract does not have', () => {
    // @ts-expect-error the parameter is payment_id, not id
    const wrongName = () => client.getFixedVirtualAccountPayment({ path: { id: 'p' } });
    // @ts-expect-error the path parameter is required
    const missing = () => client.getFixedVirtualAccount();
    // @ts-expect-error no such operation
    const unknown = () => client.deleteFixedVirtualAccount({ path: { id: 'v' } });
    expectTypeOf(wrongName).toBeFunction();
    expectTypeOf(missing).toBeFunction();
    expectTypeOf(unknown).toBeFunction();
  });
});

describe('client results', () => {
  it('types a success by its documented body', () => {
    const check = (result: CreateDisbursementResult) => {
      if (result.ok) {
        expectTypeOf(result.status).toEqualTypeOf<200>();
        expectTypeOf(result.data).toEqualTypeOf<components['schemas']['Disbursement']>();
      }
    };
    expectTypeOf(check).toBeFunction();
  });

  it('narrows error_code to the codes the operation documents for that status', () => {
    const check = (result: CreateEwalletPaymentResult) => {
      if (!result.ok && result.status === 422)
        expectTypeOf(result.error.error_code).toEqualTypeOf<'API_VALIDATION_ERROR' | 'EWALLET_TYPE_NOT_SUPPORTED'>();
      if (!result.ok && result.status === 400)
        expectTypeOf(result.error.error_code).toEqualTypeOf<
          'DUPLICATE_PAYMENT_REQUEST_ERROR' | 'INVALID_JSON_FORMAT'
        >();
      if (!result.ok && result.status === 401) expectTypeOf(result.error.error_code).toEqualTypeOf<'INVALID_API_KEY'>();
    };
    expectTypeOf(check).toBeFunction();
  });

  it('checks every case of a switch on error_code', () => {
    const describeRefusal = (result: CreateDisbursementResult): string => {
      if (!result.ok && result.status === 400) {
        switch (result.error.error_code) {
          case 'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR':
            return 'top up';
          // @ts-expect-error not a code of the contract
          case 'NOT_A_CODE':
            return 'never';
          // @ts-expect-error a code of the contract, but documented under 401, not 400
          case 'INVALID_API_KEY':
            return 'never';
          default:
            return result.error.message;
        }
      }
      return 'other';
    };
    expectTypeOf(describeRefusal).toBeFunction();
  });

  it('lets a switch be exhaustive over the documented codes', () => {
    const exhaustive = (result: CreateEwalletPaymentResult): string => {
      if (result.ok || result.status !== 422) return 'other';
      switch (result.error.error_code) {
        case 'API_VALIDATION_ERROR':
          return 'fix the request';
        case 'EWALLET_TYPE_NOT_SUPPORTED':
          return 'use OVO';
        default: {
          const unhandled: never = result.error.error_code;
          return unhandled;
        }
      }
    };
    expectTypeOf(exhaustive).toBeFunction();
  });

  it('keeps undocumented statuses apart from documented ones', () => {
    const check = (result: CreateDisbursementResult) => {
      // @ts-expect-error a success is only the documented 200
      if (result.ok && result.status === 201) return;
      if (!result.ok && result.status === 502) {
        expectTypeOf(result.error).toBeUnknown();
        expectTypeOf(result.status).toExtend<number>();
      }
      // 404 is not documented for createDisbursement, so its body is not known to be an error object
      // @ts-expect-error error is unknown here
      if (!result.ok && result.status === 404) return result.error.error_code;
    };
    expectTypeOf(check).toBeFunction();
  });

  it('has no any in its inputs or results', () => {
    expectTypeOf<CreateDisbursementResult>().not.toBeAny();
    expectTypeOf<CreateDisbursementInput['body']['amount']>().toEqualTypeOf<number>();
    expect(Object.keys(client)).toContain('createDisbursement');
  });
});
