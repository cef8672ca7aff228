// The proof that a payout happens exactly once through a network that loses answers, with the client's default
// options: the generated client against a real sandbox (in this process, on a port), first through the
// sandbox's own faults (armFault), then through a proxy in this test that forwards each request, lets the
// sandbox carry it out, and cuts the connection instead of answering. Every call must resolve to its payout;
// the sandbox must hold exactly one disbursement per external_id, and the balance must have been debited
// exactly once for each.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPaymentsClient,
  OutcomeUnknownError,
  type AttemptReport,
  type PaymentsClient,
} from '@payments-contract/client';
import { createSandboxControlClient, type SandboxControlClient } from '@payments-contract/client/sandbox/client';
import {
  createSandboxApp,
  createSite,
  DEFAULT_TEST_SECRET_KEY,
  defaultConfig,
  listen,
  type Listening,
  type SandboxApp,
} from '@payments-contract/sandbox/testing';

const CALLS = 500;
const CONCURRENCY = 50;
const TOP_UP = 1_000_000_000;

let sandbox: SandboxApp;
let served: Listening;
let control: SandboxControlClient;
/** Reads the sandbox directly, retries off: what it holds, as it holds it. */
let direct: PaymentsClient;

beforeAll(async () => {
  // Disbursements stay PENDING (no automatic outcome moves money back), and no rate limit slows the 500 calls:
  // the 429 path is proven by armFault below.
  sandbox = await createSandboxApp(
    defaultConfig({ dataDir: ':memory:', host: '127.0.0.1', port: 0, autoProgress: false, rateLimits: false }),
  );
  await sandbox.start();
  served = await listen(
    createSite({ service: sandbox.service, control: sandbox.control, observer: sandbox.observer }),
    {
      host: '127.0.0.1',
      port: 0,
    },
  );
  const settings = { baseUrl: served.url, secretKey: DEFAULT_TEST_SECRET_KEY, retries: false } as const;
  control = createSandboxControlClient(settings);
  direct = createPaymentsClient(settings);
  const topUp = await control.topUpBalance({ body: { amount: TOP_UP } });
  expect(topUp.ok).toBe(true);
});

afterAll(async () => {
  await served?.close();
  await sandbox?.close();
});

async function cashBalance(): Promise<number> {
  const result = await direct.getBalance({ query: { account_type: 'CASH' } });
  if (!result.ok || result.status !== 200) throw new Error(`getBalance answered ${result.status}`);
  return result.data.balance;
}

/** The disbursements the sandbox holds under `externalId` (none when it answers 404). */
async function held(externalId: string): Promise<{ id: string; amount: number }[]> {
  const result = await direct.listDisbursementsByExternalId({ query: { external_id: externalId } });
  if (result.status === 404) return [];
  if (!result.ok || result.status !== 200) throw new Error(`the lookup answered ${result.status}`);
  return result.data;
}

const payout = (externalId: string, amount: number) => ({
  external_id: externalId,
  bank_code: 'BCA',
  account_holder_name: 'Budi Santoso',
  account_number: '1234567890',
  description: 'Refund',
  amount,
});

async function arm(body: Parameters<SandboxControlClient['armFault']>[0]['body']): Promise<void> {
  const armed = await control.armFault({ body });
  expect(armed.status).toBe(200);
}

describe("the client against the sandbox's own faults", () => {
  // Each case arms one fault on createDisbursement and makes one call with the default options (and, for the
  // delay, an attempt timeout shorter than it): the call resolves to its payout, made once.
  const cases: [string, Parameters<typeof arm>[0], { recovered: boolean; attempts: number }][] = [
    [
      '500 after the payout was made (applied)',
      { kind: 'server_error', outcome: 'applied' },
      { recovered: true, attempts: 2 },
    ],
    [
      '500 before it was made (not applied)',
      { kind: 'server_error', outcome: 'not_applied' },
      { recovered: false, attempts: 2 },
    ],
    [
      '503 SERVICE_UNAVAILABLE, after Retry-After',
      { kind: 'unavailable', retry_after_seconds: 1 },
      { recovered: false, attempts: 2 },
    ],
    [
      '429 RATE_LIMIT_EXCEEDED, after Retry-After',
      { kind: 'rate_limited', retry_after_seconds: 1 },
      { recovered: false, attempts: 2 },
    ],
    [
      'an answer delayed past the attempt timeout',
      { kind: 'delay', delay_ms: 1_500 },
      { recovered: true, attempts: 2 },
    ],
  ];
  it.each(cases)(
    '%s: one payout, the call resolves to it',
    async (_name, fault, want) => {
      const externalId = `fault-${fault.kind}-${String(fault.outcome ?? '')}`;
      const before = await cashBalance();
      await arm({ ...fault, operation: 'createDisbursement' });
      const attempts: AttemptReport[] = [];
      const client = createPaymentsClient({
        baseUrl: served.url,
        secretKey: DEFAULT_TEST_SECRET_KEY,
        onAttempt: (attempt) => attempts.push(attempt),
      });
      const result = await client.createDisbursement(
        { body: payout(externalId, 25_000) },
        fault.kind === 'delay' ? { attemptTimeoutMs: 500 } : {},
      );
      expect(result.ok && result.status === 200 ? result.data.external_id : result.status).toBe(externalId);
      expect(result.ok && result.recovered === true).toBe(want.recovered);
      expect(attempts.filter((attempt) => attempt.kind === 'request')).toHaveLength(want.attempts);
      // The same key on every attempt, made by the client.
      expect(new Set(attempts.map((attempt) => attempt.idempotencyKey)).size).toBe(1);
      expect(await held(externalId)).toHaveLength(1);
      expect(before - (await cashBalance())).toBe(25_000);
    },
    15_000,
  );
});

/**
 * A proxy in front of the sandbox that forwards each request, waits for the sandbox's whole answer (so the
 * work is done), and cuts the connection instead of answering when `cut` says so.
 */
async function startCuttingProxy(
  target: string,
  cut: (request: { method: string; url: string; body: string }) => boolean,
): Promise<{ url: string; server: Server }> {
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers))
      if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers.set(name, value);
    const method = incoming.method ?? 'GET';
    const url = incoming.url ?? '/';
    const answer = await fetch(`${target}${url}`, { method, headers, ...(body === '' ? {} : { body }) });
    const text = await answer.text();
    if (cut({ method, url, body })) {
      incoming.socket.destroy();
      return;
    }
    outgoing.writeHead(answer.status, Object.fromEntries(answer.headers));
    outgoing.end(text);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the client through a proxy that cuts connections after the sandbox has acted', () => {
  it(`${CALLS} createDisbursement calls, half without an idempotency key: each resolves to its payout, made once`, async () => {
    const externalIds = Array.from({ length: CALLS }, (_, index) => `cut-${index}`);
    const indexOf = (externalId: string): number => Number(externalId.slice('cut-'.length));
    // Which answers the proxy loses, by call: the first creation attempt of every other call, the second too of
    // every sixth, and the first lookup of every tenth (the recovery itself survives a lost answer).
    const creations = new Map<number, number>();
    const lookups = new Map<number, number>();
    let cuts = 0;
    const proxy = await startCuttingProxy(served.url, ({ method, url, body }) => {
      let index: number;
      let count: number;
      if (method === 'POST' && url === '/disbursements') {
        index = indexOf((JSON.parse(body) as { external_id: string }).external_id);
        count = (creations.get(index) ?? 0) + 1;
        creations.set(index, count);
      } else if (method === 'GET' && url.startsWith('/disbursements?')) {
        index = indexOf(new URL(url, 'http://proxy').searchParams.get('external_id') ?? '');
        count = (lookups.get(index) ?? 0) + 1;
        lookups.set(index, count);
        const cut = count === 1 && index % 10 === 0;
        cuts += Number(cut);
        return cut;
      } else return false;
      const cut = (count === 1 && index % 2 === 0) || (count === 2 && index % 6 === 0);
      cuts += Number(cut);
      return cut;
    });
    // The sandbox's own faults on the way too: some creations answered 503 or 429 (nothing done), some 500
    // after or before the payout was made.
    await arm({ kind: 'unavailable', operation: 'createDisbursement', count: 20, retry_after_seconds: 1 });
    await arm({ kind: 'server_error', operation: 'createDisbursement', count: 20, outcome: 'applied' });
    await arm({ kind: 'server_error', operation: 'createDisbursement', count: 20, outcome: 'not_applied' });
    await arm({ kind: 'rate_limited', operation: 'createDisbursement', count: 20, retry_after_seconds: 1 });

    const before = await cashBalance();
    const attempts: AttemptReport[] = [];
    const client = createPaymentsClient({
      baseUrl: proxy.url,
      secretKey: DEFAULT_TEST_SECRET_KEY,
      onAttempt: (attempt) => attempts.push(attempt),
    });
    const amountOf = (index: number): number => 10_000 + index;
    const outcomes: { externalId: string; id?: string; recovered: boolean; failure?: unknown }[] = [];
    const started = Date.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < CALLS) {
        const index = next++;
        const externalId = externalIds[index] as string;
        try {
          const result = await client.createDisbursement({
            // Half the callers give their own key; the client makes one for the other half.
            ...(index % 4 < 2 ? { idempotencyKey: `key-${externalId}` } : {}),
            body: payout(externalId, amountOf(index)),
          });
          if (result.ok && result.status === 200 && result.data.external_id === externalId)
            outcomes.push({ externalId, id: result.data.id, recovered: result.recovered === true });
          else outcomes.push({ externalId, recovered: false, failure: result.status });
        } catch (error) {
          outcomes.push({
            externalId,
            recovered: false,
            failure: error instanceof OutcomeUnknownError ? error.message : error,
          });
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const elapsedMs = Date.now() - started;
    proxy.server.close();

    expect(outcomes.filter((outcome) => outcome.failure !== undefined)).toEqual([]);
    expect(outcomes).toHaveLength(CALLS);
    const holdings = await Promise.all(externalIds.map(held));
    const counts = holdings.map((list) => list.length);
    expect(counts.filter((count) => count !== 1)).toEqual([]);
    // Each call resolved to the very disbursement the sandbox holds for it.
    const heldIds = new Map(externalIds.map((externalId, index) => [externalId, holdings[index]?.[0]?.id]));
    expect(outcomes.filter((outcome) => heldIds.get(outcome.externalId) !== outcome.id)).toEqual([]);
    const expectedDebit = externalIds.reduce((sum, _externalId, index) => sum + amountOf(index), 0);
    expect(before - (await cashBalance())).toBe(expectedDebit);

    const recovered = outcomes.filter((outcome) => outcome.recovered).length;
    const requests = attempts.filter((attempt) => attempt.kind === 'request').length;
    // The figures the closing note reports.
    console.info(
      `${CALLS} calls in ${elapsedMs} ms: ${cuts} answers cut by the proxy, ${requests} creation attempts, ` +
        `${recovered} answers recovered by lookup, ${CALLS} payouts held, debit ${expectedDebit} IDR`,
    );
    // The cuts did reach the recovery: a call whose lost answer had made the payout met the replay answer and
    // resolved by the lookup (a cut answer to a 503 or a not-applied 500 is simply sent again and created).
    expect(recovered).toBeGreaterThan(0);
    expect(cuts).toBeGreaterThan(CALLS / 2);
  }, 90_000);
});

describe('the direct debit, whose key the contract lets a client recover by reference_id', () => {
  /** A payment method to charge: a customer, a linked debit card (the test OTP), its account, the method. */
  async function paymentMethod(): Promise<string> {
    const customer = await direct.createCustomer({
      body: {
        external_id: 'client-network-dd',
        customer_type: 'INDIVIDUAL',
        given_name: 'Budi',
        surname: 'Santoso',
        mobile_number: '+6281234567890',
        email: 'budi@example.co.id',
      },
    });
    if (!customer.ok || customer.status !== 200) throw new Error(`createCustomer answered ${customer.status}`);
    const token = await direct.initializeLinkedAccountTokenization({
      body: {
        customer_id: customer.data.id,
        channel_code: 'DC_BRI',
        properties: {
          account_mobile_number: '+6281234567890',
          card_last_four: '8888',
          card_expiry: '06/29',
          account_email: 'budi@example.co.id',
        },
      },
    });
    if (!token.ok || token.status !== 200)
      throw new Error(`initializeLinkedAccountTokenization answered ${token.status}`);
    const validated = await direct.validateLinkedAccountTokenOtp({
      path: { id: token.data.id },
      body: { otp_code: '222000' },
    });
    if (!validated.ok) throw new Error(`validateLinkedAccountTokenOtp answered ${validated.status}`);
    const accounts = await direct.listLinkedAccountTokenAccounts({ path: { id: token.data.id } });
    const account = accounts.ok && accounts.status === 200 ? accounts.data[0] : undefined;
    if (!account) throw new Error(`listLinkedAccountTokenAccounts answered ${accounts.status} without an account`);
    const method = await direct.createPaymentMethod({
      body: { customer_id: customer.data.id, type: 'DEBIT_CARD', properties: { id: account.id } },
    });
    if (!method.ok || method.status !== 200) throw new Error(`createPaymentMethod answered ${method.status}`);
    return method.data.id;
  }

  it('a 500 after the payment was made: the repeat meets 409 DUPLICATE_ERROR and the call resolves to the payment, recovered', async () => {
    const methodId = await paymentMethod();
    await arm({ kind: 'server_error', operation: 'createDirectDebitPayment', outcome: 'applied' });
    const attempts: AttemptReport[] = [];
    const client = createPaymentsClient({
      baseUrl: served.url,
      secretKey: DEFAULT_TEST_SECRET_KEY,
      onAttempt: (attempt) => attempts.push(attempt),
    });
    const referenceId = 'client-network-dd-applied';
    const result = await client.createDirectDebitPayment({
      body: {
        reference_id: referenceId,
        payment_method_id: methodId,
        currency: 'IDR',
        amount: 150_000,
        callback_url: 'https://merchant.example/callbacks/direct-debit',
      },
    });
    expect(result.ok && result.status === 200 ? result.data.reference_id : result.status).toBe(referenceId);
    expect(result.ok && result.recovered === true).toBe(true);
    // The repeat carried the key the client made for the call, met the replay answer, and the lookup found it.
    expect(attempts.map((attempt) => `${attempt.kind} ${attempt.status ?? attempt.error}`)).toEqual([
      'request 500',
      'request 409',
      'recovery 200',
    ]);
    expect(new Set(attempts.map((attempt) => attempt.idempotencyKey)).size).toBe(1);
    const found = await direct.getDirectDebitPaymentByReferenceId({ query: { reference_id: referenceId } });
    expect(found.ok && found.status === 200 ? found.data.id : found.status).toBe(
      result.ok && result.status === 200 ? result.data.id : 'no payment',
    );
  }, 15_000);
});
