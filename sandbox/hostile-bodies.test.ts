// Bodies that parse as JSON but cannot be kept as they are: numbers beyond a double (`1e309`, which
// JSON.parse makes Infinity and JSON.stringify writes back as null) and nesting deep enough to overflow a
// recursive walk. Each operation that stores what it is given answers them with its validation error
// (decision `json-body-limits`), stores nothing, and reports no router error (no 500).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  closeSandbox,
  createCustomer,
  linkCard,
  openSandbox,
  paymentRequest,
  pendingToken,
  tokenRequest,
} from './direct-debit/testing.js';
import { COLLECTIONS } from './direct-debit/records.js';
import { scopeOf, type TestSandbox } from './testing/index.js';

let sandbox: TestSandbox;
beforeEach(async () => void (sandbox = await openSandbox()));
afterEach(() => closeSandbox(sandbox));

/** Stands for the literal put in its place in the JSON text. */
const HOSTILE = '__hostile__';
const withLiteral = (body: object, literal: string): string => JSON.stringify(body).replace(`"${HOSTILE}"`, literal);
const deep = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

interface Operation {
  method: string;
  /** The path, made once the operation's prerequisites exist. */
  path: () => Promise<string>;
  /** A valid body with HOSTILE where the value goes. */
  body: () => Promise<object>;
  headers?: Record<string, string>;
  /** Validation status of the operation (x-validation-error). */
  status: number;
}

let keys = 0;
const operations: [string, Operation][] = [
  [
    'createDisbursement, in an unknown field',
    {
      method: 'POST',
      path: async () => '/disbursements',
      body: async () => ({
        external_id: 'd-1',
        bank_code: 'BCA',
        account_holder_name: 'Siti',
        account_number: '1234567890',
        description: 'Refund',
        amount: 10_000,
        extra: HOSTILE,
      }),
      headers: { 'x-idempotency-key': `k-${++keys}` },
      status: 400,
    },
  ],
  [
    'createCustomer, in metadata',
    {
      method: 'POST',
      path: async () => '/customers',
      body: async () => ({
        external_id: 'c-1',
        customer_type: 'INDIVIDUAL',
        given_name: 'Siti',
        metadata: { x: HOSTILE },
      }),
      status: 400,
    },
  ],
  [
    'updateCustomer, in an unknown field',
    {
      method: 'PUT',
      path: async () => `/customers/${await createCustomer(sandbox)}`,
      body: async () => ({ given_name: 'Ani', extra: { x: HOSTILE } }),
      status: 400,
    },
  ],
  [
    'initializeLinkedAccountTokenization, in metadata',
    {
      method: 'POST',
      path: async () => '/linked_account_tokens/auth',
      body: async () => ({ ...tokenRequest(await createCustomer(sandbox)), metadata: { x: HOSTILE } }),
      status: 400,
    },
  ],
  [
    'createPaymentMethod, in metadata',
    {
      method: 'POST',
      path: async () => '/payment_methods',
      body: async () => {
        const token = await pendingToken(sandbox);
        return {
          customer_id: token.customer_id,
          type: 'DEBIT_CARD',
          properties: { id: 'la-unknown' },
          metadata: { x: HOSTILE },
        };
      },
      status: 400,
    },
  ],
  [
    'createDirectDebitPayment, in metadata',
    {
      method: 'POST',
      path: async () => '/direct_debits',
      body: async () => ({ ...paymentRequest((await linkCard(sandbox)).paymentMethodId), metadata: { x: HOSTILE } }),
      headers: { 'idempotency-key': `k-${++keys}` },
      status: 400,
    },
  ],
];

describe.each(operations)('%s', (_name, operation) => {
  const send = async (literal: string) => {
    const path = await operation.path();
    const body = withLiteral(await operation.body(), literal);
    return sandbox.request(operation.method, path, {
      body,
      headers: { ...operation.headers, 'idempotency-key': `k-${++keys}`, 'x-idempotency-key': `k-${++keys}` },
    });
  };

  it.each(['1e309', '-1e309', '123e999'])(
    'refuses %s with the validation error, pointing at the value',
    async (literal) => {
      const answer = await send(literal);
      expect(answer.status).toBe(operation.status);
      expect(answer.body).toMatchObject({
        error_code: expect.any(String),
        errors: [{ location: 'body', keyword: 'type', path: expect.stringMatching(/\/(x|extra)$/) }],
      });
    },
  );

  it.each([33, 5_000, 100_000])('refuses a value nested %i levels deep with the validation error', async (levels) => {
    const answer = await send(deep(levels));
    expect(answer.status).toBe(operation.status);
    expect(answer.body).toMatchObject({ errors: [{ location: 'body', keyword: 'maxDepth' }] });
  });
});

describe('callback URLs with a user name or password (decision callback-url-without-credentials)', () => {
  it('are refused on a direct debit, where the callback would never be delivered', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const answer = await sandbox.request('POST', '/direct_debits', {
      body: { ...paymentRequest(paymentMethodId), callback_url: 'https://merchant:hunter2@merchant.example/cb' },
      headers: { 'idempotency-key': 'cred-1' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ errors: [{ location: 'body', path: '/callback_url', keyword: 'pattern' }] });
    expect(await sandbox.ctx.store.list(COLLECTIONS.payments, scopeOf('aTest'))).toEqual([]);
  });

  it('are refused in the dashboard settings, and the setting keeps its value', async () => {
    const settings = async () => {
      const read = await sandbox.control().getSettings();
      if (!read.ok) throw new Error(`getSettings refused: ${read.status}`);
      return read.data;
    };
    const before = await settings();
    const answer = await sandbox.request('PATCH', '/sandbox/settings', {
      body: { callback_urls: { disbursement_callback_url: 'https://user:secret@merchant.example/cb' } },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      errors: [{ path: '/callback_urls/disbursement_callback_url', keyword: 'pattern' }],
    });
    expect(await settings()).toEqual(before);
  });

  it('are still accepted with an @ in the path or query', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    const answer = await sandbox.request('POST', '/direct_debits', {
      body: {
        ...paymentRequest(paymentMethodId),
        callback_url: 'https://merchant.example/cb?notify=ops@merchant.example',
      },
      headers: { 'idempotency-key': 'cred-2' },
    });
    expect(answer.status).toBe(200);
  });
});
