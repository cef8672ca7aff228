// The contract holds everything the seed specifies: its 27 operations at their exact paths and methods,
// its six callbacks, and every error code at its operation and status. This table is the seed's checklist;
// the spec is the source of truth for everything else.
import { describe, expect, it } from 'vitest';
import {
  deref,
  documentedCodes,
  isObject,
  listOperations,
  listWebhooks,
  loadBundled,
  type JsonObject,
  type OperationEntry,
} from './document.js';

const doc = loadBundled();
const operations = listOperations(doc);
const webhooks = listWebhooks(doc);

type SeedCodes = Record<string, string[]>;
const COMMON: SeedCodes = {
  401: ['INVALID_API_KEY'],
  403: ['REQUEST_FORBIDDEN_ERROR'],
  429: ['RATE_LIMIT_EXCEEDED'],
  500: ['SERVER_ERROR'],
  503: ['SERVICE_UNAVAILABLE'],
};
const FVA_CREATE = [
  'API_VALIDATION_ERROR',
  'INVALID_JSON_FORMAT',
  'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE',
  'BANK_NOT_SUPPORTED_ERROR',
  'EXPIRATION_DATE_NOT_SUPPORTED_ERROR',
  'EXPIRATION_DATE_INVALID_ERROR',
  'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR',
  'EXPECTED_AMOUNT_REQUIRED_ERROR',
  'CLOSED_VA_NOT_SUPPORTED_ERROR',
  'DUPLICATE_CALLBACK_VIRTUAL_ACCOUNT_ERROR',
  'MINIMUM_EXPECTED_AMOUNT_ERROR',
  'MAXIMUM_EXPECTED_AMOUNT_ERROR',
  'CALLBACK_VIRTUAL_ACCOUNT_NAME_NOT_ALLOWED_ERROR',
];
const FVA_UPDATE = [
  'API_VALIDATION_ERROR',
  'INVALID_JSON_FORMAT',
  'VIRTUAL_ACCOUNT_NUMBER_OUTSIDE_RANGE',
  'BANK_NOT_SUPPORTED_ERROR',
  'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR',
  'EXPECTED_AMOUNT_REQUIRED_ERROR',
  'CLOSED_VA_NOT_SUPPORTED_ERROR',
  'INACTIVE_VIRTUAL_ACCOUNT_ERROR',
  'MINIMUM_EXPECTED_AMOUNT_ERROR',
  'MAXIMUM_EXPECTED_AMOUNT_ERROR',
];
const FPC_CREATE = [
  'API_VALIDATION_ERROR',
  'INVALID_JSON_FORMAT',
  'PAYMENT_CODE_OUTSIDE_RANGE',
  'RETAIL_OUTLET_NOT_SUPPORTED_ERROR',
  'DUPLICATE_PAYMENT_CODE_ERROR',
  'EXPIRATION_DATE_INVALID_ERROR',
  'MINIMUM_EXPECTED_AMOUNT_ERROR',
  'MAXIMUM_EXPECTED_AMOUNT_ERROR',
];
const FPC_UPDATE = [
  'API_VALIDATION_ERROR',
  'INVALID_JSON_FORMAT',
  'PAYMENT_CODE_OUTSIDE_RANGE',
  'INACTIVE_FIXED_PAYMENT_CODE_ERROR',
  'MINIMUM_EXPECTED_AMOUNT_ERROR',
  'MAXIMUM_EXPECTED_AMOUNT_ERROR',
];
const DISBURSEMENT_CREATE = [
  'API_VALIDATION_ERROR',
  'INVALID_JSON_FORMAT',
  'DISBURSEMENT_DESCRIPTION_NOT_FOUND_ERROR',
  'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR',
  'DUPLICATE_TRANSACTION_ERROR',
  'BANK_CODE_NOT_SUPPORTED_ERROR',
  'RECIPIENT_ACCOUNT_NUMBER_ERROR',
  'RECIPIENT_AMOUNT_ERROR',
  'MAXIMUM_TRANSFER_LIMIT_ERROR',
];
const CUSTOMER_CREATE = ['API_VALIDATION_ERROR', 'INVALID_JSON_FORMAT', 'DUPLICATE_CUSTOMER_ERROR'];
const OTP = ['INVALID_OTP_ERROR', 'EXPIRED_OTP_ERROR', 'MAX_OTP_ATTEMPTS_ERROR'];

/** [operationId, METHOD, path, the seed's codes per status] */
const SEED_OPERATIONS: [string, string, string, SeedCodes][] = [
  ['getBalance', 'GET', '/balance', {}],
  ['listVirtualAccountBanks', 'GET', '/available_virtual_account_banks', {}],
  ['listDisbursementBanks', 'GET', '/available_disbursements_banks', {}],
  ['createFixedVirtualAccount', 'POST', '/callback_virtual_accounts', { 400: FVA_CREATE }],
  ['updateFixedVirtualAccount', 'PATCH', '/callback_virtual_accounts/{id}', { 400: FVA_UPDATE }],
  [
    'getFixedVirtualAccount',
    'GET',
    '/callback_virtual_accounts/{id}',
    { 404: ['CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR'] },
  ],
  [
    'getFixedVirtualAccountPayment',
    'GET',
    '/callback_virtual_account_payments/payment_id={payment_id}',
    { 404: ['CALLBACK_VIRTUAL_ACCOUNT_PAYMENT_NOT_FOUND_ERROR'] },
  ],
  ['createFixedPaymentCode', 'POST', '/fixed_payment_code', { 400: FPC_CREATE }],
  ['updateFixedPaymentCode', 'PATCH', '/fixed_payment_code/{id}', { 400: FPC_UPDATE }],
  ['getFixedPaymentCode', 'GET', '/fixed_payment_code/{id}', { 404: ['FIXED_PAYMENT_CODE_NOT_FOUND_ERROR'] }],
  ['createDisbursement', 'POST', '/disbursements', { 400: DISBURSEMENT_CREATE, 500: ['SERVER_ERROR'] }],
  [
    'getDisbursement',
    'GET',
    '/disbursements/{id}',
    { 400: ['INVALID_JSON_FORMAT'], 403: ['INVALID_PERMISSION_ERROR'], 404: ['DIRECT_DISBURSEMENT_NOT_FOUND_ERROR'] },
  ],
  ['listDisbursementsByExternalId', 'GET', '/disbursements', { 404: ['DIRECT_DISBURSEMENT_NOT_FOUND_ERROR'] }],
  [
    'createEwalletPayment',
    'POST',
    '/ewallets',
    {
      422: ['API_VALIDATION_ERROR', 'EWALLET_TYPE_NOT_SUPPORTED'],
      400: ['DUPLICATE_PAYMENT_REQUEST_ERROR'],
      403: ['REQUEST_FORBIDDEN_ERROR'],
    },
  ],
  [
    'getEwalletPaymentStatus',
    'GET',
    '/ewallets',
    { 404: ['PAYMENT_NOT_FOUND_ERROR'], 403: ['REQUEST_FORBIDDEN_ERROR'] },
  ],
  ['createCustomer', 'POST', '/customers', { 400: CUSTOMER_CREATE }],
  ['updateCustomer', 'PUT', '/customers/{id}', { 400: [...CUSTOMER_CREATE, 'CUSTOMER_NOT_FOUND_ERROR'] }],
  ['listCustomers', 'GET', '/customers', {}],
  [
    'initializeLinkedAccountTokenization',
    'POST',
    '/linked_account_tokens/auth',
    { 400: ['CHANNEL_CODE_NOT_SUPPORTED_ERROR', 'CUSTOMER_NOT_FOUND_ERROR'], 503: ['CHANNEL_UNAVAILABLE'] },
  ],
  [
    'validateLinkedAccountTokenOtp',
    'POST',
    '/linked_account_tokens/{id}/validate_otp',
    {
      404: ['DATA_NOT_FOUND_ERROR'],
      400: OTP,
      409: ['ACCOUNT_LINKING_ALREADY_COMPLETED', 'ACCOUNT_LINKING_ALREADY_FAILED'],
    },
  ],
  ['listLinkedAccountTokenAccounts', 'GET', '/linked_account_tokens/{id}/accounts', { 404: ['DATA_NOT_FOUND_ERROR'] }],
  [
    'createPaymentMethod',
    'POST',
    '/payment_methods',
    { 400: ['LIINKED_ACCOUNT_NOT_FOUND_ERROR', 'CUSTOMER_NOT_FOUND_ERROR'], 409: ['DUPLICATE_ERROR'] },
  ],
  ['listPaymentMethodsByCustomer', 'GET', '/payment_methods', {}],
  [
    'createDirectDebitPayment',
    'POST',
    '/direct_debits',
    { 409: ['DUPLICATE_ERROR'], 400: ['PAYMENT_METHOD_NOT_FOUND_ERROR'], 503: ['INVALID_PAYMENT_METHOD_ERROR'] },
  ],
  [
    'validateDirectDebitPaymentOtp',
    'POST',
    '/direct_debits/{id}/validate_otp/',
    { 404: ['DATA_NOT_FOUND_ERROR'], 400: OTP, 409: ['DIRECT_DEBIT_ALREADY_COMPLETED', 'DIRECT_DEBIT_ALREADY_FAILED'] },
  ],
  ['getDirectDebitPaymentByReferenceId', 'GET', '/direct_debits', {}],
  ['getDirectDebitPayment', 'GET', '/direct_debits/{id}/', {}],
];

const SEED_WEBHOOKS: [string, string][] = [
  ['fixed_virtual_account.paid', 'fixedVirtualAccountPaid'],
  ['fixed_virtual_account.changed', 'fixedVirtualAccountChanged'],
  ['fixed_payment_code.paid', 'fixedPaymentCodePaid'],
  ['disbursement.finished', 'disbursementFinished'],
  ['ewallet.payment', 'ewalletPayment'],
  ['direct_debit.payment', 'directDebitPayment'],
];

describe('operations', () => {
  it("are exactly the seed's 27, at its paths and methods", () => {
    const actual = operations.map((o) => `${o.method.toUpperCase()} ${o.key} ${o.operationId}`).sort();
    const expected = SEED_OPERATIONS.map(([id, method, path]) => `${method} ${path} ${id}`).sort();
    expect(actual).toEqual(expected);
  });

  it('have unique camelCase operationIds', () => {
    const ids = [...operations, ...webhooks].map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
  });

  it.each(operations.map((o) => [o.operationId, o] as const))(
    '%s has one tag, a summary and a description',
    (_id, entry) => {
      expect(entry.operation.tags).toHaveLength(1);
      expect(typeof entry.operation.summary).toBe('string');
      expect(String(entry.operation.description).length).toBeGreaterThan(40);
    },
  );

  it.each(SEED_OPERATIONS.map(([id, , , codes]) => [id, codes] as const))(
    '%s documents every code the seed gives it, at its status, plus 401/403/429/500/503',
    (id, codes) => {
      const entry = operations.find((o) => o.operationId === id);
      expect(entry, `operation ${id}`).toBeDefined();
      const documented = documentedCodes(doc, entry as OperationEntry);
      for (const [status, expected] of Object.entries({ ...COMMON, ...codes })) {
        expect(documented[status] ?? [], `${id} ${status}`).toEqual(expect.arrayContaining(expected));
      }
      for (const [status, common] of Object.entries(COMMON)) {
        expect(documented[status] ?? [], `${id} ${status}`).toEqual(expect.arrayContaining(common));
      }
    },
  );
});

describe('webhooks', () => {
  it("are the seed's six callbacks", () => {
    expect(webhooks.map((w) => [w.key, w.operationId]).sort()).toEqual([...SEED_WEBHOOKS].sort());
    expect(webhooks.every((w) => w.method === 'post')).toBe(true);
  });

  it.each(webhooks.map((w) => [w.key, w] as const))(
    '%s carries the x-callback-token header and the callback token security',
    (_key, entry) => {
      const parameters = (Array.isArray(entry.operation.parameters) ? entry.operation.parameters : []).map((p) =>
        deref(doc, p),
      );
      expect(
        parameters.some(
          (p) =>
            isObject(p) &&
            p.in === 'header' &&
            String(p.name).toLowerCase() === 'x-callback-token' &&
            p.required === true,
        ),
      ).toBe(true);
      expect(entry.operation.security).toEqual([{ callbackToken: [] }]);
    },
  );
});

describe('document', () => {
  it("is OpenAPI 3.1, at or after the seed's latest release (1.4.11)", () => {
    expect(doc.openapi).toBe('3.1.0');
    const [major, minor, patch] = String((doc.info as JsonObject).version)
      .split('.')
      .map(Number) as [number, number, number];
    expect(major * 1e6 + minor * 1e3 + patch).toBeGreaterThanOrEqual(1_004_011);
  });

  it('secures every operation with HTTP Basic (secret key as user name)', () => {
    const schemes = ((doc.components as JsonObject).securitySchemes ?? {}) as JsonObject;
    expect(schemes.secretKey).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(doc.security).toEqual([{ secretKey: [] }]);
    expect(operations.filter((o) => o.operation.security !== undefined).map((o) => o.operationId)).toEqual([]);
  });

  it('documents the changelog the seed gives', () => {
    const description = String((doc.info as JsonObject).description);
    for (const release of [
      '1.4.11',
      '1.4.10',
      '1.4.9',
      '1.4.8',
      '1.4.7',
      '1.4.6',
      '1.4.5',
      '1.4.4',
      '1.4.3',
      '1.4.2',
      '1.4.1',
      '1.4.0',
      '1.3.4',
    ]) {
      expect(description).toContain(release);
    }
  });
});
