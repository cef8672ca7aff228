// Direct debit steps for tests, on the shared in-process sandbox (sandbox/testing): the real app with every
// module and response validation on, its clock held at START (tests move it with advance).
import type { components } from '@payments-contract/server/types';
import type { DeliveryRecord } from '../callbacks/outbox.js';
import { createTestSandbox, scopeOf, type TestKeyName, type TestSandbox } from '../testing/index.js';

export const START = '2026-11-21T09:30:00.000Z';
export const CALLBACK_URL = 'https://toko-sejahtera.co.id/webhooks/direct-debit';

export function openSandbox(): Promise<TestSandbox> {
  const start = Date.parse(START);
  return createTestSandbox({ realTime: () => start });
}

/** Closes the sandbox after a test, which fails if the routers reported an error (a thrown handler, an answer off the contract). */
export async function closeSandbox(sandbox: TestSandbox): Promise<void> {
  const errors = [...sandbox.routerErrors];
  await sandbox.close();
  if (errors.length > 0) throw new Error(`the sandbox reported router errors: ${errors.map(String).join('; ')}`);
}

let created = 0;

/** A new INDIVIDUAL customer of the key's merchant and mode, through the customers module. */
export async function createCustomer(sandbox: TestSandbox, key: TestKeyName = 'aTest'): Promise<string> {
  const result = await sandbox.service(key).createCustomer({
    body: {
      external_id: `dd-customer-${++created}`,
      customer_type: 'INDIVIDUAL',
      given_name: 'Siti',
      surname: 'Rahayu',
    },
  });
  if (!result.ok) throw new Error(`customer refused: ${result.status} ${JSON.stringify(result.error)}`);
  return result.data.id;
}

/** A request body for initializeLinkedAccountTokenization, as the contract's example has it. */
export function tokenRequest(customerId: string, card: { last_four?: string; expiry?: string } = {}) {
  return {
    customer_id: customerId,
    channel_code: 'DC_BRI' as const,
    properties: {
      account_mobile_number: '+6281234567890',
      card_last_four: card.last_four ?? '8888',
      card_expiry: card.expiry ?? '06/29',
      account_email: 'siti.rahayu@example.co.id',
    },
    metadata: { crm_member_id: 'MBR-20418' },
  };
}

/** A PENDING linked account token of a new customer. */
export async function pendingToken(
  sandbox: TestSandbox,
  key: TestKeyName = 'aTest',
): Promise<components['schemas']['LinkedAccountToken']> {
  const token = await sandbox
    .service(key)
    .initializeLinkedAccountTokenization({ body: tokenRequest(await createCustomer(sandbox, key)) });
  if (!token.ok) throw new Error(`tokenization refused: ${token.status} ${JSON.stringify(token.error)}`);
  return token.data;
}

/** Customer -> token -> OTP 222000 -> linked account -> ACTIVE payment method, through the API; throws on any refusal. */
export async function linkCard(
  sandbox: TestSandbox,
  options: { key?: TestKeyName; expiry?: string } = {},
): Promise<{ customerId: string; tokenId: string; accountId: string; paymentMethodId: string }> {
  const key = options.key ?? 'aTest';
  const api = sandbox.service(key);
  const customerId = await createCustomer(sandbox, key);
  const token = await api.initializeLinkedAccountTokenization({
    body: tokenRequest(customerId, { expiry: options.expiry ?? '06/29' }),
  });
  if (!token.ok) throw new Error(`tokenization refused: ${JSON.stringify(token.error)}`);
  const otp = await api.validateLinkedAccountTokenOtp({ path: { id: token.data.id }, body: { otp_code: '222000' } });
  if (!otp.ok) throw new Error(`OTP refused: ${JSON.stringify(otp.error)}`);
  const accounts = await api.listLinkedAccountTokenAccounts({ path: { id: token.data.id } });
  const account = accounts.ok ? accounts.data[0] : undefined;
  if (!account) throw new Error('the linked token gives access to no account');
  const method = await api.createPaymentMethod({
    body: { customer_id: customerId, type: 'DEBIT_CARD', properties: { id: account.id } },
  });
  if (!method.ok) throw new Error(`payment method refused: ${JSON.stringify(method.error)}`);
  return { customerId, tokenId: token.data.id, accountId: account.id, paymentMethodId: method.data.id };
}

/** A request body for createDirectDebitPayment. */
export function paymentRequest(
  paymentMethodId: string,
  overrides: { amount?: number; enable_otp?: boolean; reference_id?: string } = {},
) {
  return {
    reference_id: overrides.reference_id ?? 'INV-2026-11-000184',
    payment_method_id: paymentMethodId,
    currency: 'IDR',
    amount: overrides.amount ?? 99000,
    callback_url: CALLBACK_URL,
    enable_otp: overrides.enable_otp ?? false,
    description: 'Langganan bulanan November',
    metadata: { order_channel: 'mobile_app', branch_id: 17 },
  };
}

/** The callbacks the scope's changes queued, oldest first (whether or not delivered yet). */
export async function deliveries(sandbox: TestSandbox, key: TestKeyName = 'aTest'): Promise<DeliveryRecord[]> {
  return (await sandbox.app.platform.callbacks.list(scopeOf(key))).reverse();
}

/** The key's CASH balance. */
export async function cash(sandbox: TestSandbox, key: TestKeyName = 'aTest'): Promise<number> {
  const balance = await sandbox.service(key).getBalance({ query: { account_type: 'CASH' } });
  if (!balance.ok) throw new Error(`balance refused: ${balance.status}`);
  return balance.data.balance;
}

/** The error_code of an answer, or its status when it has none. */
export function codeOf(result: { status: number; error?: unknown }): string {
  const error = result.error;
  return typeof error === 'object' && error !== null && 'error_code' in error
    ? String(error.error_code)
    : `status ${result.status}`;
}
