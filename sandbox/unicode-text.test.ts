// Text no store keeps, in a request body: a lone surrogate escape (`"\ud800"`) in a free-text field of each
// create and update operation that takes one, and U+0000 in metadata. PostgreSQL's jsonb refuses both (once a
// 500 there, a 200 on the other stores); the contract refuses them with the operation's validation error
// (decision `json-body-text`), so every store answers the same, stores nothing and reports no router error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_URL, createCustomer, pendingToken, tokenRequest } from './direct-debit/testing.js';
import type { StoreChoice } from './store/open-store.js';
import { useThrowawayPostgres } from './store/postgres/testing/test-database.js';
import { createTestSandbox, type RawAnswer, type TestSandbox } from './testing/index.js';

const { server } = useThrowawayPostgres();

/** Stands for the JSON literal put in its place in the body's text. */
const HOSTILE = '__hostile__';
const LONE_SURROGATE = '"Siti \\ud800"';
const NUL = '"a\\u0000b"';

interface Case {
  method: string;
  /** The path, made once the operation's prerequisites exist. */
  path: (sandbox: TestSandbox) => Promise<string>;
  /** A valid body with HOSTILE where the value goes. */
  body: (sandbox: TestSandbox) => Promise<object>;
  literal: string;
  /** Where the refusal points. */
  at: string;
}

let unique = 0;
const next = (): number => ++unique;

async function created(sandbox: TestSandbox, path: string, body: object): Promise<string> {
  const answer = await sandbox.request('POST', path, { body });
  const id = (answer.body as { id?: unknown } | undefined)?.id;
  if (answer.status !== 200 || typeof id !== 'string')
    throw new Error(`POST ${path} refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  return id;
}
const fixedVirtualAccount = (n: number) => ({
  external_id: `va-unicode-${n}`,
  bank_code: 'BNI',
  name: 'Toko Sinar Jaya',
});
const fixedPaymentCode = (n: number) => ({
  external_id: `fpc-unicode-${n}`,
  retail_outlet_name: 'ALFAMART',
  name: 'Dewi Lestari',
  expected_amount: 125000,
});

/** A linked account of a new customer, through the API (customer, token, OTP), with no payment method yet. */
async function linkedAccount(sandbox: TestSandbox): Promise<{ customerId: string; accountId: string }> {
  const token = await pendingToken(sandbox);
  const otp = await sandbox
    .service()
    .validateLinkedAccountTokenOtp({ path: { id: token.id }, body: { otp_code: '222000' } });
  if (!otp.ok) throw new Error(`OTP refused: ${JSON.stringify(otp.error)}`);
  const accounts = await sandbox.service().listLinkedAccountTokenAccounts({ path: { id: token.id } });
  const account = accounts.ok ? accounts.data[0] : undefined;
  if (!account) throw new Error('the linked token gives access to no account');
  return { customerId: token.customer_id, accountId: account.id };
}

const CASES: [string, Case][] = [
  [
    'createFixedVirtualAccount name',
    {
      method: 'POST',
      path: async () => '/callback_virtual_accounts',
      body: async () => ({ ...fixedVirtualAccount(next()), name: HOSTILE }),
      literal: LONE_SURROGATE,
      at: '/name',
    },
  ],
  [
    'createFixedPaymentCode name',
    {
      method: 'POST',
      path: async () => '/fixed_payment_code',
      body: async () => ({ ...fixedPaymentCode(next()), name: HOSTILE }),
      literal: LONE_SURROGATE,
      at: '/name',
    },
  ],
  [
    'updateFixedPaymentCode name',
    {
      method: 'PATCH',
      path: async (s) => `/fixed_payment_code/${await created(s, '/fixed_payment_code', fixedPaymentCode(next()))}`,
      body: async () => ({ name: HOSTILE }),
      literal: LONE_SURROGATE,
      at: '/name',
    },
  ],
  [
    'createDisbursement description',
    {
      method: 'POST',
      path: async () => '/disbursements',
      body: async () => ({
        external_id: `payout-unicode-${next()}`,
        bank_code: 'BCA',
        account_holder_name: 'Siti Rahmawati',
        account_number: '1234567890',
        description: HOSTILE,
        amount: 17500,
      }),
      literal: LONE_SURROGATE,
      at: '/description',
    },
  ],
  [
    'createCustomer given_name',
    {
      method: 'POST',
      path: async () => '/customers',
      body: async () => ({ external_id: `cust-unicode-${next()}`, customer_type: 'INDIVIDUAL', given_name: HOSTILE }),
      literal: LONE_SURROGATE,
      at: '/given_name',
    },
  ],
  [
    'updateCustomer given_name',
    {
      method: 'PUT',
      path: async (s) => `/customers/${await createCustomer(s)}`,
      body: async () => ({ given_name: HOSTILE }),
      literal: LONE_SURROGATE,
      at: '/given_name',
    },
  ],
  [
    'createDirectDebitPayment description',
    {
      method: 'POST',
      path: async () => '/direct_debits',
      body: async (s) => {
        const { customerId, accountId } = await linkedAccount(s);
        const paymentMethodId = await created(s, '/payment_methods', {
          customer_id: customerId,
          type: 'DEBIT_CARD',
          properties: { id: accountId },
        });
        return {
          reference_id: `INV-unicode-${next()}`,
          payment_method_id: paymentMethodId,
          currency: 'IDR',
          amount: 99000,
          callback_url: CALLBACK_URL,
          enable_otp: false,
          description: HOSTILE,
        };
      },
      literal: LONE_SURROGATE,
      at: '/description',
    },
  ],
  [
    'createPaymentMethod metadata value',
    {
      method: 'POST',
      path: async () => '/payment_methods',
      body: async (s) => {
        const { customerId, accountId } = await linkedAccount(s);
        return {
          customer_id: customerId,
          type: 'DEBIT_CARD',
          properties: { id: accountId },
          metadata: { note: HOSTILE },
        };
      },
      literal: NUL,
      at: '/metadata/note',
    },
  ],
  [
    'initializeLinkedAccountTokenization metadata value',
    {
      method: 'POST',
      path: async () => '/linked_account_tokens/auth',
      body: async (s) => ({ ...tokenRequest(await createCustomer(s)), metadata: { note: HOSTILE } }),
      literal: NUL,
      at: '/metadata/note',
    },
  ],
  [
    'createCustomer metadata value',
    {
      method: 'POST',
      path: async () => '/customers',
      body: async () => ({
        external_id: `cust-unicode-${next()}`,
        customer_type: 'INDIVIDUAL',
        given_name: 'Siti',
        metadata: { note: HOSTILE },
      }),
      literal: LONE_SURROGATE,
      at: '/metadata/note',
    },
  ],
];

const STORES: StoreChoice[] = ['journal', 'sqlite', 'postgres'];
/** What each store answered to each case, compared across stores at the end. */
const answers = new Map<StoreChoice, Map<string, RawAnswer>>();

describe.each(STORES)('on the %s store', (store) => {
  let sandbox: TestSandbox;
  beforeAll(async () => {
    const database = { url: server().url, poolSize: 4, statementTimeoutMs: 10_000 };
    // Router errors are what this file looks for: they are asserted, not thrown at the request.
    sandbox = await createTestSandbox({
      config: { store, ...(store === 'postgres' ? { database } : {}) },
      failOnRouterErrors: false,
      startDispatcher: false,
    });
    answers.set(store, new Map());
  });
  afterAll(() => sandbox.close());

  it.each(CASES)('%s: the validation error pointing at the value, no 500', async (name, c) => {
    const path = await c.path(sandbox);
    const body = JSON.stringify(await c.body(sandbox)).replace(`"${HOSTILE}"`, c.literal);
    const answer = await sandbox.request(c.method, path, {
      body,
      headers: { 'idempotency-key': `u-${next()}`, 'x-idempotency-key': `u-${next()}` },
    });
    answers.get(store)?.set(name, answer);
    expect(answer.body).toMatchObject({
      error_code: 'API_VALIDATION_ERROR',
      errors: [{ location: 'body', path: c.at, keyword: 'pattern' }],
    });
    expect(answer.status).toBe(400);
    expect(sandbox.routerErrors).toEqual([]);
  });
});

describe('every store', () => {
  it('gives the same answer to each case', () => {
    const bodies = (store: StoreChoice) =>
      [...(answers.get(store) ?? new Map<string, RawAnswer>())].map(([name, answer]) => [
        name,
        answer.status,
        answer.body,
      ]);
    expect(bodies('journal')).toHaveLength(CASES.length);
    for (const store of STORES) expect(bodies(store), store).toEqual(bodies('journal'));
  });
});
