import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import type { DeliveryRules, WebhookDefinition } from './webhook-definition.js';
import {
  createReceiver,
  resolveKind,
  type WebhookDefinitions,
  type WebhookHandlers,
  type WebhookReceiverOptions,
} from './webhook-receiver.js';

// Two webhooks standing in for the contract's: one may name itself in `event`, one does not.
interface Events {
  orderPaid: { event?: 'order.paid'; order_id: string; amount: number };
  refundDone: { refund_id: string; amount: number };
}
const ajv = new Ajv2020({ allErrors: true, verbose: true });
const delivery: DeliveryRules = {
  destination: { dashboard_setting: 'url' },
  acknowledgement: '2xx',
  attempts: 3,
  retry_interval_seconds: 30,
  guarantee: 'at-least-once',
  ordering: 'none',
  after_final_failure: 'alert',
};
const definition = (name: string, operationId: string, schema: object): WebhookDefinition => ({
  name,
  operationId,
  summary: name,
  tokenHeader: 'x-callback-token',
  delivery,
  validate: ajv.compile(schema),
});
const definitions: WebhookDefinitions<Events> = {
  orderPaid: definition('order.paid', 'orderPaid', {
    type: 'object',
    required: ['order_id', 'amount'],
    properties: { event: { const: 'order.paid' }, order_id: { type: 'string' }, amount: { type: 'number' } },
  }),
  refundDone: definition('refund.done', 'refundDone', {
    type: 'object',
    required: ['refund_id', 'amount'],
    properties: { refund_id: { type: 'string' }, amount: { type: 'number' } },
  }),
};

const TOKEN = 'cbtok_test_5f6ee8de3a733c1d';
const orderPaid: Events['orderPaid'] = { event: 'order.paid', order_id: 'o-1', amount: 10 };
const refundDone: Events['refundDone'] = { refund_id: 'r-1', amount: 10 };

function post(body: unknown, headers: Record<string, string> = { 'x-callback-token': TOKEN }): Request {
  return new Request('https://merchant.example/webhooks', {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A receiver with recording handlers for `kinds` (both by default). */
function setUp(
  kinds: (keyof Events)[] = ['orderPaid', 'refundDone'],
  options: Partial<WebhookReceiverOptions<keyof Events>> = {},
) {
  const orderPaidHandler = vi.fn<NonNullable<WebhookHandlers<Events>['orderPaid']>>();
  const refundDoneHandler = vi.fn<NonNullable<WebhookHandlers<Events>['refundDone']>>();
  const handlers: WebhookHandlers<Events> = {
    ...(kinds.includes('orderPaid') ? { orderPaid: orderPaidHandler } : {}),
    ...(kinds.includes('refundDone') ? { refundDone: refundDoneHandler } : {}),
  };
  const receive = createReceiver(definitions, handlers, { callbackToken: TOKEN, ...options });
  return {
    receive,
    orderPaidHandler,
    refundDoneHandler,
    called: () => orderPaidHandler.mock.calls.length + refundDoneHandler.mock.calls.length,
  };
}

describe('createReceiver: refusals', () => {
  it.each([
    [
      'a GET',
      new Request('https://merchant.example/webhooks', { headers: { 'x-callback-token': TOKEN } }),
      405,
      'METHOD_NOT_ALLOWED',
    ],
    ['no token header', post(orderPaid, {}), 401, 'INVALID_CALLBACK_TOKEN'],
    [
      'a wrong token of the same length',
      post(orderPaid, { 'x-callback-token': TOKEN.replace(/d$/, 'e') }),
      401,
      'INVALID_CALLBACK_TOKEN',
    ],
    [
      'a wrong token of another length',
      post(orderPaid, { 'x-callback-token': 'sk_attacker_guess' }),
      401,
      'INVALID_CALLBACK_TOKEN',
    ],
    ['an empty token', post(orderPaid, { 'x-callback-token': '' }), 401, 'INVALID_CALLBACK_TOKEN'],
    ['a body that is not JSON', post('{"event": '), 400, 'INVALID_JSON_FORMAT'],
    ['a body of no known webhook', post({ hello: 'world' }), 400, 'UNKNOWN_WEBHOOK'],
    ['a body that fits both webhooks', post({ order_id: 'o-1', refund_id: 'r-1', amount: 10 }), 400, 'UNKNOWN_WEBHOOK'],
    [
      'a body whose `event` names it but breaks its schema',
      post({ ...orderPaid, amount: 'ten' }),
      400,
      'API_VALIDATION_ERROR',
    ],
  ])('%s -> %i %s, and no handler runs', async (_name, request, status, errorCode) => {
    const { receive, called } = setUp();
    const response = await receive(request);
    const text = await response.text();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(text)).toMatchObject({ error_code: errorCode, message: expect.any(String) });
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('sk_attacker_guess');
    expect(called()).toBe(0);
  });

  it('refuses a body over the limit with 413 before parsing it, and no handler runs', async () => {
    const { receive, called } = setUp(['orderPaid', 'refundDone'], { maxBodyBytes: 64 });
    const response = await receive(post({ ...orderPaid, order_id: 'o'.repeat(100) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error_code: 'REQUEST_ENTITY_TOO_LARGE' });
    expect(called()).toBe(0);
  });

  it('names POST as the allowed method on a 405', async () => {
    const response = await setUp().receive(
      new Request('https://merchant.example/webhooks', { method: 'PUT', body: '{}' }),
    );
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('lists every broken rule of an invalid body, by location and JSON Pointer', async () => {
    const response = await setUp().receive(post({ event: 'order.paid', amount: 'ten' }));
    expect(await response.json()).toMatchObject({
      error_code: 'API_VALIDATION_ERROR',
      errors: [
        { location: 'body', path: '/order_id', keyword: 'required' },
        { location: 'body', path: '/amount', keyword: 'type' },
      ],
    });
  });

  it('says which webhook an `event` names that has no handler here', async () => {
    const response = await setUp(['refundDone']).receive(post(orderPaid));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error_code: 'UNKNOWN_WEBHOOK',
      message: expect.stringContaining('order.paid'),
    });
  });
});

describe('createReceiver: dispatch', () => {
  it('hands the payload and its context to the handler and acknowledges with 200', async () => {
    const { receive, orderPaidHandler, refundDoneHandler } = setUp();
    const response = await receive(post(orderPaid, { 'x-callback-token': TOKEN, 'x-request-id': 'req-1' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(orderPaidHandler).toHaveBeenCalledTimes(1);
    expect(refundDoneHandler).not.toHaveBeenCalled();
    const [event, context] = orderPaidHandler.mock.calls[0] ?? [];
    expect(event).toEqual(orderPaid);
    expect(context).toMatchObject({ kind: 'orderPaid', name: 'order.paid' });
    expect(context?.headers.get('x-request-id')).toBe('req-1');
    expect(context?.headers.has('x-callback-token')).toBe(false);
  });

  it.each(['X-Callback-Token', 'X-CALLBACK-TOKEN', 'x-callback-token'])(
    'reads the token from a header spelled %s',
    async (header) => {
      const response = await setUp().receive(post(orderPaid, { [header]: TOKEN }));
      expect(response.status).toBe(200);
    },
  );

  it('acknowledges only after the handler has finished', async () => {
    let finish = (): void => undefined;
    const { receive, orderPaidHandler } = setUp();
    orderPaidHandler.mockImplementation(() => new Promise<void>((resolve) => (finish = resolve)));
    let answered = false;
    const response = receive(post(orderPaid)).then((value) => ((answered = true), value));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toBe(false);
    finish();
    expect((await response).status).toBe(200);
  });

  it('answers 500 SERVER_ERROR when the handler throws, without its message, and reports the error', async () => {
    const onHandlerError = vi.fn();
    const { receive, orderPaidHandler } = setUp(['orderPaid', 'refundDone'], { onHandlerError });
    const failure = new Error('database password is hunter2');
    orderPaidHandler.mockRejectedValue(failure);
    const response = await receive(post(orderPaid));
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toMatchObject({ error_code: 'SERVER_ERROR' });
    expect(text).not.toContain('hunter2');
    expect(onHandlerError).toHaveBeenCalledWith(failure, expect.objectContaining({ kind: 'orderPaid' }));
  });

  it('still answers 500 when the error reporter itself throws', async () => {
    const onHandlerError = vi.fn(() => {
      throw new Error('log sink down');
    });
    const { receive, orderPaidHandler } = setUp(['orderPaid', 'refundDone'], { onHandlerError });
    orderPaidHandler.mockRejectedValue(new Error('boom'));
    expect((await receive(post(orderPaid))).status).toBe(500);
    expect(onHandlerError).toHaveBeenCalledTimes(1);
  });
});

describe('createReceiver: which webhook a delivery is', () => {
  it.each<[string, (keyof Events)[], Partial<WebhookReceiverOptions<keyof Events>>, unknown, keyof Events]>([
    ['by its `event` field', ['orderPaid', 'refundDone'], {}, orderPaid, 'orderPaid'],
    ['by the only schema that fits', ['orderPaid', 'refundDone'], {}, refundDone, 'refundDone'],
    [
      'by the endpoint’s fixed kind, whatever the body says',
      ['orderPaid', 'refundDone'],
      { kind: 'refundDone' },
      { ...orderPaid, refund_id: 'r-2' },
      'refundDone',
    ],
  ])('%s', async (_name, kinds, options, body, kind) => {
    const { receive, orderPaidHandler, refundDoneHandler } = setUp(kinds, options);
    expect((await receive(post(body))).status).toBe(200);
    expect(orderPaidHandler).toHaveBeenCalledTimes(kind === 'orderPaid' ? 1 : 0);
    expect(refundDoneHandler).toHaveBeenCalledTimes(kind === 'refundDone' ? 1 : 0);
  });

  it('validates against the fixed kind, so a body of another webhook is a validation error', async () => {
    const response = await setUp(['orderPaid', 'refundDone'], { kind: 'refundDone' }).receive(post(orderPaid));
    expect(await response.json()).toMatchObject({
      error_code: 'API_VALIDATION_ERROR',
      errors: [{ path: '/refund_id' }],
    });
  });
});

describe('resolveKind', () => {
  const both: (keyof Events)[] = ['orderPaid', 'refundDone'];
  it.each<[string, (keyof Events)[], unknown, ReturnType<typeof resolveKind<keyof Events>>]>([
    ['`event` naming a handled webhook', both, orderPaid, { kind: 'orderPaid' }],
    [
      '`event` naming a webhook without a handler',
      ['refundDone'],
      orderPaid,
      { problem: 'no handler for webhook order.paid' },
    ],
    [
      '`event` naming no webhook: the schemas decide',
      both,
      { ...refundDone, event: 'something.else' },
      { kind: 'refundDone' },
    ],
    [
      'a single handled webhook, even for a body that does not fit it',
      ['orderPaid'],
      refundDone,
      { kind: 'orderPaid' },
    ],
    ['one fitting schema', both, refundDone, { kind: 'refundDone' }],
    [
      'no fitting schema',
      both,
      { amount: 1 },
      { problem: 'the body is none of the webhooks handled here (orderPaid, refundDone)' },
    ],
    [
      'several fitting schemas',
      both,
      { order_id: 'o-1', refund_id: 'r-1', amount: 10 },
      { problem: 'the body fits more than one webhook (orderPaid, refundDone); give this endpoint a fixed kind' },
    ],
    [
      'a body that is not an object',
      both,
      [orderPaid],
      { problem: 'the body is none of the webhooks handled here (orderPaid, refundDone)' },
    ],
  ])('%s', (_name, candidates, payload, want) => {
    expect(resolveKind<keyof Events>(definitions, candidates, payload)).toEqual(want);
  });
});

describe('createReceiver: misconfiguration fails at start-up', () => {
  it.each<[string, WebhookHandlers<Events>, WebhookReceiverOptions<keyof Events>, RegExp]>([
    ['an empty callback token', { orderPaid: () => undefined }, { callbackToken: '' }, /callbackToken is empty/],
    ['no handler at all', {}, { callbackToken: TOKEN }, /no handler for any webhook/],
    [
      'a fixed kind without its handler',
      { orderPaid: () => undefined },
      { callbackToken: TOKEN, kind: 'refundDone' },
      /no handler for refundDone/,
    ],
  ])('%s', (_name, handlers, options, message) => {
    expect(() => createReceiver(definitions, handlers, options)).toThrow(message);
  });

  it('webhooks that carry their token in different headers, on one endpoint', () => {
    const mixed: WebhookDefinitions<Events> = {
      ...definitions,
      refundDone: { ...definitions.refundDone, tokenHeader: 'x-other-token' },
    };
    const handlers: WebhookHandlers<Events> = { orderPaid: () => undefined, refundDone: () => undefined };
    expect(() => createReceiver(mixed, handlers, { callbackToken: TOKEN })).toThrow(/different headers/);
    expect(() => createReceiver(mixed, handlers, { callbackToken: TOKEN, kind: 'refundDone' })).not.toThrow();
  });
});
