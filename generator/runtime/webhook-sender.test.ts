import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { WebhookDefinition } from './webhook-definition.js';
import { buildDelivery, toRequest, WebhookPayloadError } from './webhook-sender.js';

const ajv = new Ajv2020({ allErrors: true, verbose: true });
const refundDone = {
  name: 'refund.done',
  operationId: 'refundDone',
  summary: 'A refund was paid out',
  tokenHeader: 'x-callback-token',
  delivery: {
    destination: { dashboard_setting: 'refund_url' },
    acknowledgement: '2xx',
    attempts: 3,
    retry_interval_seconds: 30,
    guarantee: 'at-least-once',
    ordering: 'none',
    after_final_failure: 'alert',
  },
  validate: ajv.compile({
    type: 'object',
    required: ['refund_id', 'amount'],
    properties: { refund_id: { type: 'string' }, amount: { type: 'number', minimum: 1 } },
  }),
} as const satisfies WebhookDefinition;
const options = { callbackToken: 'cbtok_test_5f6ee8de3a733c1d', url: 'https://merchant.example/webhooks/refunds' };
const payload = { refund_id: 'r-1', amount: 2500 };

describe('buildDelivery', () => {
  it('is a JSON POST to the merchant’s URL carrying the callback token', () => {
    expect(buildDelivery(refundDone, payload, options)).toEqual({
      url: 'https://merchant.example/webhooks/refunds',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-callback-token': 'cbtok_test_5f6ee8de3a733c1d' },
      body: '{"refund_id":"r-1","amount":2500}',
    });
  });

  it('refuses a payload that breaks the webhook’s schema, naming every broken rule', () => {
    const thrown = ((): unknown => {
      try {
        return buildDelivery(refundDone, { amount: 0 }, options);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(WebhookPayloadError);
    expect(thrown).toMatchObject({
      message:
        "refundDone payload breaks the contract: /refund_id must have required property 'refund_id'; /amount must be >= 1",
      operationId: 'refundDone',
      issues: [
        { path: '/refund_id', keyword: 'required' },
        { path: '/amount', keyword: 'minimum' },
      ],
    });
  });

  it.each([
    ['an empty callback token', { ...options, callbackToken: '' }, /callback token is empty/],
    ['a relative URL', { ...options, url: '/webhooks' }, /not an absolute URL/],
  ])('refuses %s', (_name, given, message) => {
    expect(() => buildDelivery(refundDone, payload, given)).toThrow(message);
  });
});

describe('toRequest', () => {
  it('is the delivery as a fetch Request', async () => {
    const request = toRequest(buildDelivery(refundDone, payload, options));
    expect(request.url).toBe(options.url);
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(request.headers.get('x-callback-token')).toBe(options.callbackToken);
    expect(await request.json()).toEqual(payload);
  });
});
