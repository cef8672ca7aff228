// `payments-sandbox trigger KIND`: fires one callback of a kind by creating what it needs through the public
// API and driving it to the event through the control API, as a merchant's code and a tester would. Only the
// typed clients are used, so a trigger is exactly the chain of calls a user would otherwise read up and type.
import { createPaymentsClient, type PaymentsClient } from '@payments-contract/client';
import type { components } from '@payments-contract/client/types';
import { createSandboxControlClient, type SandboxControlClient } from '@payments-contract/client/sandbox/client';
import { isObject } from '@payments-contract/contract/model';
import { UsageError } from '@payments-contract/server/runtime/command-line';
import { componentSchema, contractOperation, sandboxTestMode } from '../contract.js';

type Schemas = components['schemas'];

/** The six callback kinds, each with the request that creates its object (the one `--set` changes). */
export const TRIGGER_KINDS = {
  'fixed_virtual_account.paid': 'CreateFixedVirtualAccountRequest',
  'fixed_virtual_account.changed': 'CreateFixedVirtualAccountRequest',
  'fixed_payment_code.paid': 'CreateFixedPaymentCodeRequest',
  'disbursement.finished': 'CreateDisbursementRequest',
  'ewallet.payment': 'CreateEwalletPaymentRequest',
  'direct_debit.payment': 'CreateDirectDebitPaymentRequest',
} as const;
export type TriggerKind = keyof typeof TRIGGER_KINDS;

export const isTriggerKind = (kind: string): kind is TriggerKind => Object.hasOwn(TRIGGER_KINDS, kind);

/**
 * The failure codes `--fail` takes per kind: those of the contract's test values (the control contract's
 * `x-test-modes`, the service's `x-test-mode` for e-wallets), each with the request value that selects it.
 * Kinds that cannot fail (payments into accounts and codes, account changes) have none.
 */
export function failureCodes(kind: TriggerKind): ReadonlyMap<string, { field: string; value: unknown }> {
  const fromMode = (mode: { field: string; outcomes: { value: unknown; failureCode: string | null }[] }) =>
    new Map(
      mode.outcomes.flatMap((o) => (o.failureCode ? [[o.failureCode, { field: mode.field, value: o.value }]] : [])),
    );
  if (kind === 'disbursement.finished') return fromMode(sandboxTestMode('createDisbursement'));
  if (kind === 'direct_debit.payment') return fromMode(sandboxTestMode('createDirectDebitPayment'));
  if (kind === 'ewallet.payment') {
    const mode = contractOperation('createEwalletPayment').testMode;
    const field = mode?.field;
    if (!mode?.outcomes || field === undefined)
      throw new Error('createEwalletPayment has no x-test-mode field and outcomes');
    return fromMode({
      field,
      outcomes: mode.outcomes.map((o) => ({
        value: o[field],
        failureCode: typeof o.failure_code === 'string' ? o.failure_code : null,
      })),
    });
  }
  return new Map();
}

/** `field=value` pairs read against the creating request's schema: a number or boolean field gets one. */
export function readOverrides(kind: TriggerKind, pairs: readonly string[]): Record<string, unknown> {
  const schemaName = TRIGGER_KINDS[kind];
  const properties = componentSchema(schemaName).properties;
  const known = isObject(properties) ? properties : {};
  const overrides: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--set ${pair}: expected field=value`);
    const field = pair.slice(0, at);
    const text = pair.slice(at + 1);
    const schema = known[field];
    if (!isObject(schema))
      throw new UsageError(
        `--set ${field}: ${schemaName} (the request that creates a ${kind}) has no field ${field}; its fields: ${Object.keys(known).join(', ')}`,
      );
    overrides[field] = valueOf(field, text, schema.type);
  }
  return overrides;
}

function valueOf(field: string, text: string, type: unknown): unknown {
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('number') || types.includes('integer')) {
    const number = Number(text);
    if (text.trim() === '' || !Number.isFinite(number))
      throw new UsageError(`--set ${field}: expected a number, not ${text}`);
    return number;
  }
  if (types.includes('boolean')) {
    if (text !== 'true' && text !== 'false')
      throw new UsageError(`--set ${field}: expected true or false, not ${text}`);
    return text === 'true';
  }
  if (types.includes('string') || type === undefined) return text;
  // Objects and arrays (a customer's properties, say) are given as JSON.
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--set ${field}: expected JSON for this field, not ${text}`);
  }
}

export interface TriggerOptions {
  baseUrl: string;
  secretKey: string;
  kind: TriggerKind;
  overrides?: Record<string, unknown>;
  fail?: string;
  /** What makes ids of this run new (external ids are unique per merchant); default the time and a random part. */
  run?: string;
  fetch?: (request: Request) => Promise<Response>;
}

/** One object the trigger made or drove, as the API answered it. */
export interface MadeObject {
  what: string;
  object: unknown;
}

/** A call the API refused: its status and the answer's error_code and message. */
export class TriggerError extends Error {
  override name = 'TriggerError';
}

interface Answer {
  ok: boolean;
  status: number;
  data?: unknown;
  error?: unknown;
}

function expect<T>(what: string, result: Answer & { data?: T }): T {
  if (result.ok) return result.data as T;
  const error = isObject(result.error as never) ? (result.error as Record<string, unknown>) : {};
  throw new TriggerError(
    `${what}: ${result.status} ${String(error.error_code ?? '')} ${String(error.message ?? JSON.stringify(result.error))}`.trim(),
  );
}

const idOf = (object: unknown): string => {
  const id = isObject(object as never) ? (object as Record<string, unknown>).id : undefined;
  if (typeof id !== 'string') throw new TriggerError(`expected an object with an id, got ${JSON.stringify(object)}`);
  return id;
};

/** Creates what `kind` needs and drives it to its callback; resolves to the objects made, in order. */
export async function trigger(options: TriggerOptions): Promise<MadeObject[]> {
  const { kind } = options;
  const codes = failureCodes(kind);
  if (options.fail !== undefined && !codes.has(options.fail))
    throw new UsageError(
      codes.size === 0
        ? `--fail: a ${kind} callback has no failure to simulate`
        : `--fail ${options.fail}: not a failure code of ${kind}; the contract's test values: ${[...codes.keys()].join(', ')}`,
    );
  const failing = options.fail === undefined ? undefined : codes.get(options.fail);
  const overrides = options.overrides ?? {};
  if (failing && Object.hasOwn(overrides, failing.field))
    throw new UsageError(`--fail ${options.fail} sets ${failing.field}; leave it out of --set`);
  const clientOptions = {
    baseUrl: options.baseUrl,
    secretKey: options.secretKey,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const context: Context = {
    service: createPaymentsClient(clientOptions),
    control: createSandboxControlClient(clientOptions),
    run: options.run ?? `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    made: [],
    body: (defaults) => ({ ...defaults, ...overrides, ...(failing ? { [failing.field]: failing.value } : {}) }),
    fail: options.fail,
  };
  await DRIVERS[kind](context);
  return context.made;
}

interface Context {
  service: PaymentsClient;
  control: SandboxControlClient;
  run: string;
  made: MadeObject[];
  /** The creating request: the defaults, then --set, then the value --fail selects. */
  body(defaults: Record<string, unknown>): Record<string, unknown>;
  fail: string | undefined;
}

const made = <T>(context: Context, what: string, object: T): T => {
  context.made.push({ what, object });
  return object;
};

/** Records what the call answered, or throws what the API refused. */
const step = async <T>(context: Context, what: string, operation: string, call: Promise<Answer & { data?: T }>) =>
  made(context, what, expect(operation, await call));

/** The drive to a final state may meet the sandbox's own auto-resolve first (409): the object is then read. */
const alreadyFinished = (result: Answer) => result.status === 409;

async function createFixedVirtualAccount(context: Context) {
  const body = context.body({ external_id: `trigger-va-${context.run}`, bank_code: 'BNI', name: 'Toko Sinar Jaya' });
  return await step(
    context,
    'fixed_virtual_account',
    'createFixedVirtualAccount',
    context.service.createFixedVirtualAccount({ body: body as Schemas['CreateFixedVirtualAccountRequest'] }),
  );
}

type Driver = (context: Context) => Promise<void>;

const DRIVERS: Record<TriggerKind, Driver> = {
  'fixed_virtual_account.paid': async (context) => {
    const account = await createFixedVirtualAccount(context);
    const amount = account.expected_amount ?? account.suggested_amount ?? 250000;
    await step(
      context,
      'fixed_virtual_account_payment',
      'simulateFixedVirtualAccountPayment',
      context.control.simulateFixedVirtualAccountPayment({ path: { id: account.id }, body: { amount } }),
    );
  },
  'fixed_virtual_account.changed': async (context) => {
    // Creation may already report the account (when payable at once); the update always does.
    const account = await createFixedVirtualAccount(context);
    await step(
      context,
      'fixed_virtual_account (updated)',
      'updateFixedVirtualAccount',
      context.service.updateFixedVirtualAccount({
        path: { id: account.id },
        // An update that keeps the account as it is (every bank takes is_single_use) still reports it.
        body: { is_single_use: account.is_single_use ?? false },
      }),
    );
  },
  'fixed_payment_code.paid': async (context) => {
    const body = context.body({
      external_id: `trigger-fpc-${context.run}`,
      retail_outlet_name: 'ALFAMART',
      name: 'Budi Santoso',
      expected_amount: 150000,
    });
    const code = await step(
      context,
      'fixed_payment_code',
      'createFixedPaymentCode',
      context.service.createFixedPaymentCode({ body: body as Schemas['CreateFixedPaymentCodeRequest'] }),
    );
    await step(
      context,
      'fixed_payment_code_payment',
      'simulateFixedPaymentCodePayment',
      context.control.simulateFixedPaymentCodePayment({ path: { id: code.id }, body: {} }),
    );
  },
  'disbursement.finished': async (context) => {
    const body = context.body({
      external_id: `trigger-payout-${context.run}`,
      bank_code: 'BCA',
      account_holder_name: 'Siti Rahmawati',
      account_number: '1234567890',
      description: 'Komisi',
      amount: 175000,
    });
    // The cash balance pays it: topped up by the amount, so a trigger never fails for want of money.
    const amount = typeof body.amount === 'number' && body.amount > 0 ? body.amount : 175000;
    await step(
      context,
      'balance top-up',
      'topUpBalance',
      context.control.topUpBalance({ body: { amount: amount + 10000 } }),
    );
    const disbursement = await step(
      context,
      'disbursement',
      'createDisbursement',
      context.service.createDisbursement({
        body: body as Schemas['CreateDisbursementRequest'],
        idempotencyKey: `trigger-payout-${context.run}`,
      }),
    );
    const path = { id: disbursement.id };
    const finished = context.fail
      ? await context.control.failDisbursement({
          path,
          body: { failure_code: context.fail as Schemas['DisbursementFailureCode'] },
        })
      : await context.control.completeDisbursement({ path, body: {} });
    if (alreadyFinished(finished))
      await step(context, 'disbursement (finished)', 'getDisbursement', context.service.getDisbursement({ path }));
    else made(context, 'disbursement (finished)', expect('finish the disbursement', finished));
  },
  'ewallet.payment': async (context) => {
    const body = context.body({
      external_id: `trigger-order-${context.run}`,
      amount: 80000,
      phone: '081234567890',
      ewallet_type: 'OVO',
    });
    const payment = await step(
      context,
      'ewallet_payment',
      'createEwalletPayment',
      context.service.createEwalletPayment({ body: body as Schemas['CreateEwalletPaymentRequest'] }),
    );
    const which = { external_id: payment.external_id, ewallet_type: payment.ewallet_type };
    const finished = context.fail
      ? await context.control.declineEwalletPayment({
          body: { ...which, failure_code: context.fail as Schemas['EwalletFailureCode'] },
        })
      : await context.control.approveEwalletPayment({ body: which });
    if (!alreadyFinished(finished)) made(context, 'ewallet_payment (finished)', expect('finish the payment', finished));
  },
  'direct_debit.payment': async (context) => driveDirectDebit(context),
};

/** A customer, a linked debit card (test OTP), its payment method, and a debit of it without OTP. */
async function driveDirectDebit(context: Context): Promise<void> {
  const { service, control, run } = context;
  // The payment's own callback_url receives it: by default where the merchant's other callbacks go.
  const settings = expect('getSettings', await control.getSettings());
  const configured = Object.values(settings.callback_urls ?? {}).find((url): url is string => typeof url === 'string');
  const body = context.body({
    reference_id: `trigger-dd-${run}`,
    currency: 'IDR',
    amount: 150000,
    ...(configured ? { callback_url: configured } : {}),
  });
  if (typeof body.callback_url !== 'string')
    throw new UsageError('direct_debit.payment: no callback URL is configured; give one with --set callback_url=URL');
  const customer = await step(
    context,
    'customer',
    'createCustomer',
    service.createCustomer({
      body: {
        external_id: `trigger-cust-${run}`,
        customer_type: 'INDIVIDUAL',
        given_name: 'Budi',
        surname: 'Santoso',
        mobile_number: '+6281234567890',
        email: 'budi@example.co.id',
      },
    }),
  );
  const token = await step(
    context,
    'linked_account_token',
    'initializeLinkedAccountTokenization',
    service.initializeLinkedAccountTokenization({
      body: {
        customer_id: idOf(customer),
        channel_code: 'DC_BRI',
        properties: {
          account_mobile_number: '+6281234567890',
          card_last_four: '8888',
          card_expiry: '06/29',
          account_email: 'budi@example.co.id',
        },
      } as Schemas['InitializeLinkedAccountTokenRequest'],
    }),
  );
  expect(
    'validateLinkedAccountTokenOtp',
    await service.validateLinkedAccountTokenOtp({ path: { id: token.id }, body: { otp_code: '222000' } }),
  );
  const accounts = expect(
    'listLinkedAccountTokenAccounts',
    await service.listLinkedAccountTokenAccounts({ path: { id: token.id } }),
  );
  const account = accounts[0];
  if (!account) throw new TriggerError('listLinkedAccountTokenAccounts: the linked card has no account');
  const method = await step(
    context,
    'payment_method',
    'createPaymentMethod',
    service.createPaymentMethod({
      body: {
        customer_id: idOf(customer),
        type: 'DEBIT_CARD',
        properties: { id: account.id },
      } as Schemas['CreatePaymentMethodRequest'],
    }),
  );
  const payment = await step(
    context,
    'direct_debit_payment',
    'createDirectDebitPayment',
    service.createDirectDebitPayment({
      body: { payment_method_id: method.id, ...body } as Schemas['CreateDirectDebitPaymentRequest'],
      idempotencyKey: `trigger-dd-${run}`,
    }),
  );
  const path = { id: payment.id };
  const finished = context.fail
    ? await control.failDirectDebitPayment({
        path,
        body: { failure_code: context.fail as Schemas['DirectDebitFailureCode'] },
      })
    : await control.completeDirectDebitPayment({ path });
  if (!alreadyFinished(finished))
    made(context, 'direct_debit_payment (finished)', expect('finish the payment', finished));
}
