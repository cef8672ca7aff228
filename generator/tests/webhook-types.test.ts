// What the compiler enforces on the generated webhook API. `tsc --noEmit` checks this file: every
// `@ts-expect-error` line must fail to compile, so misuse staying unnoticed fails the build. The code
// also runs, so each misuse the compiler would catch is shown to be refused at run time as well.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  buildWebhookDelivery,
  createWebhookReceiver,
  toRequest,
  webhookMetadata,
  WebhookPayloadError,
  type EwalletPaymentCallback,
  type FixedVirtualAccountPaidCallback,
  type WebhookContext,
  type WebhookDelivery,
  type WebhookHandlers,
} from '@payments-contract/client/webhooks';

const TOKEN = 'cbtok_test_5f6ee8de3a733c1d';
const options = { callbackToken: TOKEN, url: 'https://merchant.example/callbacks/ewallet' };
const ewalletPayment: EwalletPaymentCallback = {
  event: 'ewallet.payment',
  id: '5f6ee8de3a733c1d2e1a6f01',
  external_id: 'ovo-order-2026-11-0060',
  business_id: '5f6ee8de3a733c1d2e1a0b01',
  phone: '081234567890',
  ewallet_type: 'OVO',
  amount: 85000,
  status: 'COMPLETED',
  created: '2026-11-21T09:30:00.000Z',
};
const fvaPaid: FixedVirtualAccountPaidCallback = {
  id: '5f6ee8de3a733c1d2e1a3c01',
  payment_id: '5f6ee8de3a733c1d2e1a3c02',
  callback_virtual_account_id: '5f6ee8de3a733c1d2e1a1b2c',
  owner_id: '5f6ee8de3a733c1d2e1a0a01',
  external_id: 'order-2026-11-0042',
  account_number: '9999000042',
  bank_code: 'BCA',
  amount: 250000,
  transaction_timestamp: '2026-11-21T09:30:00.000Z',
  merchant_code: '10766',
  updated: '2026-11-21T09:30:05.000Z',
  created: '2026-11-21T09:30:05.000Z',
};

describe('receiver handlers are typed per webhook', () => {
  it('an ewalletPayment handler receives the e-wallet payload and its context', async () => {
    const seen: string[] = [];
    const handlers: WebhookHandlers = {
      ewalletPayment: (event, context) => {
        expectTypeOf(event).toEqualTypeOf<EwalletPaymentCallback>();
        expectTypeOf(context).toEqualTypeOf<WebhookContext<'ewalletPayment'>>();
        expectTypeOf(event.status).toEqualTypeOf<'FAILED' | 'COMPLETED'>();
        // @ts-expect-error payment_id belongs to the fixed virtual account webhook, not to this one
        void event.payment_id;
        seen.push(event.external_id);
      },
    };
    const response = await createWebhookReceiver(handlers, { callbackToken: TOKEN })(
      toRequest(buildWebhookDelivery('ewalletPayment', ewalletPayment, options)),
    );
    expect(response.status).toBe(200);
    expect(seen).toEqual(['ovo-order-2026-11-0060']);
  });

  it('handler names, and a fixed kind, are the webhooks’ operationIds', () => {
    const handlers: WebhookHandlers = {
      // @ts-expect-error there is no webhook `ewalletPaid`
      ewalletPaid: () => undefined,
    };
    // @ts-expect-error the kind is the operationId, not the webhook's name
    expect(() => createWebhookReceiver(handlers, { callbackToken: TOKEN, kind: 'ewallet.payment' })).toThrow(
      /no handler/,
    );
  });
});

describe('buildWebhookDelivery is typed per webhook', () => {
  it('takes the payload of the webhook it is asked for', () => {
    const delivery = buildWebhookDelivery('fixedVirtualAccountPaid', fvaPaid, options);
    expectTypeOf(delivery).toEqualTypeOf<WebhookDelivery>();
    expectTypeOf(delivery.headers['x-callback-token']).toEqualTypeOf<string>();
    expect(JSON.parse(delivery.body)).toEqual(fvaPaid);
  });

  it.each([
    [
      'a field of the wrong type',
      // @ts-expect-error amount is a number
      () => buildWebhookDelivery('ewalletPayment', { ...ewalletPayment, amount: '85000' }, options),
      WebhookPayloadError,
    ],
    [
      'a value outside its enum',
      // @ts-expect-error status is COMPLETED or FAILED
      () => buildWebhookDelivery('ewalletPayment', { ...ewalletPayment, status: 'PAID' }, options),
      WebhookPayloadError,
    ],
    // @ts-expect-error the payload of another webhook
    ['another webhook’s payload', () => buildWebhookDelivery('ewalletPayment', fvaPaid, options), WebhookPayloadError],
    [
      'a webhook name instead of an operationId',
      // @ts-expect-error the webhook's name is not its operationId
      () => buildWebhookDelivery('ewallet.payment', ewalletPayment, options),
      TypeError,
    ],
  ])('refuses %s, at compile time and at run time', (_name, build, error) => {
    expect(build).toThrow(error);
  });

  it('refuses a payload without a required field at run time with WebhookPayloadError', () => {
    const { external_id: _dropped, ...incomplete } = ewalletPayment;
    // @ts-expect-error external_id is required
    expect(() => buildWebhookDelivery('ewalletPayment', incomplete, options)).toThrow(WebhookPayloadError);
  });
});

describe('webhook metadata is typed data', () => {
  it('keeps the contract’s values as literal types', () => {
    expectTypeOf(webhookMetadata.ewalletPayment.name).toEqualTypeOf<'ewallet.payment'>();
    expectTypeOf(webhookMetadata.directDebitPayment.delivery.destination).toHaveProperty('request_field');
    expectTypeOf(webhookMetadata.ewalletPayment.delivery.attempts).toExtend<number>();
  });
});

// The READMEs' webhook examples (the receiver in README.md, the sender in generator/README.md), as written
// there (the import path aside): they compile and work.
describe('README: a merchant’s first lines and the sandbox’s', () => {
  it('receives an e-wallet callback, acknowledging first and working later', async () => {
    const CALLBACK_TOKEN = TOKEN;
    const jobs: { kind: string; id: string }[] = [];
    // --- README (merchant) ---
    const receiveWebhooks = createWebhookReceiver(
      {
        // Acknowledge first, work later: store the event and return; a throw answers 500 and the service retries.
        ewalletPayment: async (event) => void jobs.push({ kind: 'ewallet', id: event.id }),
        fixedVirtualAccountPaid: async (event) => void jobs.push({ kind: 'fva', id: event.payment_id }),
      },
      { callbackToken: CALLBACK_TOKEN },
    );
    // Bun.serve({ fetch: receiveWebhooks }) · Hono: app.post('/callbacks', (c) => receiveWebhooks(c.req.raw))
    // Node, Express, Fastify: createNodeWebhookReceiver(handlers, options), same checks: http.createServer(it)
    // --- end ---

    // --- README (sandbox) ---
    const delivery = buildWebhookDelivery('ewalletPayment', ewalletPayment, {
      callbackToken: CALLBACK_TOKEN,
      url: 'https://merchant.example/callbacks',
    });
    const { attempts, retry_interval_seconds } = webhookMetadata.ewalletPayment.delivery;
    const response = await receiveWebhooks(toRequest(delivery)); // in production: await fetch(toRequest(delivery))
    // --- end ---

    expect(attempts * retry_interval_seconds).toBeGreaterThan(0);
    expect(response.status).toBe(200);
    expect(jobs).toEqual([{ kind: 'ewallet', id: ewalletPayment.id }]);
  });
});
