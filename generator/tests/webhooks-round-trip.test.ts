// Sender helper -> receiver, in process, for every webhook of the contract and every example it documents:
// what the service builds is what a merchant's receiver accepts, and what breaks the contract is refused.
import { describe, expect, it, vi } from 'vitest';
import {
  buildWebhookDelivery,
  createWebhookReceiver,
  toRequest,
  webhookMetadata,
  type WebhookDelivery,
  type WebhookEvents,
  type WebhookHandlers,
  type WebhookKind,
} from '@payments-contract/client/webhooks';
import { readBundle } from '../generate.js';
import { dereference, isObject, readModel } from '../model/read-model.js';
import type { Json, JsonObject, WebhookModel } from '../model/types.js';

const doc = readBundle();
const model = readModel(doc);
const TOKEN = 'cbtok_test_5f6ee8de3a733c1d';
const URL_ = 'https://merchant.example/callbacks';

function object(value: Json | undefined, what: string): JsonObject {
  const resolved = dereference(doc, value);
  if (!isObject(resolved)) throw new Error(`${what} is not an object`);
  return resolved;
}

/** The named examples of the webhook's JSON body, from the bundled contract. */
function examples(webhook: WebhookModel): [string, JsonObject][] {
  const operation = object({ $ref: webhook.pointer }, webhook.pointer);
  const media = object(
    object(object(operation.requestBody, 'requestBody').content, 'content')['application/json'],
    'media type',
  );
  return Object.entries(object(media.examples, 'examples')).map(([name, example]) => [
    name,
    object(object(example, name).value, `${name}.value`),
  ]);
}

/** The first property the webhook's body schema requires. */
function firstRequired(webhook: WebhookModel): string {
  const [required] = object(webhook.bodySchema, 'body schema').required as string[];
  if (required === undefined) throw new Error(`${webhook.name} requires nothing`);
  return required;
}

const kinds = model.webhooks.map((webhook) => webhook.operationId as WebhookKind);
const cases = model.webhooks.flatMap((webhook) =>
  examples(webhook).map(([name, value]) => ({ webhook, kind: webhook.operationId as WebhookKind, name, value })),
);

/** A handler for every webhook, recording what it receives. */
function recordingHandlers() {
  const received: { kind: WebhookKind; event: unknown }[] = [];
  const handlers = Object.fromEntries(
    kinds.map((kind) => [kind, vi.fn((event: unknown) => void received.push({ kind, event }))]),
  ) as WebhookHandlers;
  return { handlers, received };
}

/** Builds the delivery of a contract example; the examples are JSON, the payload types say what JSON they are. */
const deliver = <K extends WebhookKind>(kind: K, value: JsonObject, callbackToken = TOKEN): WebhookDelivery =>
  buildWebhookDelivery(kind, value as unknown as WebhookEvents[K], { callbackToken, url: URL_ });

describe('the generated webhook metadata', () => {
  it.each(model.webhooks.map((webhook) => [webhook.operationId, webhook] as const))(
    '%s is the contract’s name, token header and x-delivery',
    (operationId, webhook) => {
      expect(webhookMetadata[operationId as WebhookKind]).toEqual({
        name: webhook.name,
        operationId,
        summary: webhook.summary,
        tokenHeader: 'x-callback-token',
        delivery: webhook.delivery,
      });
    },
  );

  it('covers every webhook of the contract, each with at least one example', () => {
    expect(Object.keys(webhookMetadata).sort()).toEqual([...kinds].sort());
    for (const kind of kinds) expect(cases.some((entry) => entry.kind === kind)).toBe(true);
  });
});

describe.each(cases)('$kind, example $name', ({ webhook, kind, value }) => {
  it('with the right token: 200, and the handler for that webhook receives the payload', async () => {
    const { handlers, received } = recordingHandlers();
    const response = await createWebhookReceiver(handlers, { callbackToken: TOKEN })(toRequest(deliver(kind, value)));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(received).toEqual([{ kind, event: value }]);
  });

  it('on an endpoint fixed to this kind: 200', async () => {
    const { handlers, received } = recordingHandlers();
    const response = await createWebhookReceiver(handlers, { callbackToken: TOKEN, kind })(
      toRequest(deliver(kind, value)),
    );
    expect(response.status).toBe(200);
    expect(received).toEqual([{ kind, event: value }]);
  });

  it('with the token header spelled X-Callback-Token: 200', async () => {
    const { handlers, received } = recordingHandlers();
    const { url, body } = deliver(kind, value);
    const request = new Request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Callback-Token': TOKEN },
      body,
    });
    expect((await createWebhookReceiver(handlers, { callbackToken: TOKEN })(request)).status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('with a wrong token: 401 INVALID_CALLBACK_TOKEN, and no handler runs', async () => {
    const { handlers, received } = recordingHandlers();
    const response = await createWebhookReceiver(handlers, { callbackToken: TOKEN })(
      toRequest(deliver(kind, value, 'cbtok_live_someone_else')),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error_code: 'INVALID_CALLBACK_TOKEN' });
    expect(received).toEqual([]);
  });

  it('without its first required property: the sender refuses it, and the receiver answers 400 naming it', async () => {
    const missing = firstRequired(webhook);
    const { [missing]: _dropped, ...invalid } = value;
    expect(() => deliver(kind, invalid)).toThrow(
      `${kind} payload breaks the contract: /${missing} must have required property '${missing}'`,
    );

    const { handlers, received } = recordingHandlers();
    const forged = { ...deliver(kind, value), body: JSON.stringify(invalid) };
    const response = await createWebhookReceiver(handlers, { callbackToken: TOKEN, kind })(toRequest(forged));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error_code: 'API_VALIDATION_ERROR',
      errors: [{ location: 'body', path: `/${missing}`, keyword: 'required' }],
    });
    expect(received).toEqual([]);
  });
});

describe('which webhook a delivery is, on one endpoint for all', () => {
  const withEvent = cases.filter(({ value }) => typeof value.event === 'string');
  const withoutEvent = cases.filter(({ value }) => value.event === undefined);

  it('the contract has webhooks of both sorts', () => {
    expect(withEvent.length).toBeGreaterThan(0);
    expect(withoutEvent.length).toBeGreaterThan(0);
  });

  it.each(withEvent)(
    '$kind ($name) by its `event` field, even where it also fits another schema',
    async ({ kind, value }) => {
      const { handlers, received } = recordingHandlers();
      const other = withoutEvent[0]?.value ?? {};
      const body = JSON.stringify({ ...other, ...value });
      const response = await createWebhookReceiver(handlers, { callbackToken: TOKEN })(
        toRequest({ ...deliver(kind, value), body }),
      );
      expect(response.status).toBe(200);
      expect(received.map((entry) => entry.kind)).toEqual([kind]);
    },
  );

  it.each(withoutEvent)('$kind ($name) by the one schema it fits', async ({ kind, value }) => {
    const { handlers, received } = recordingHandlers();
    expect(
      (await createWebhookReceiver(handlers, { callbackToken: TOKEN })(toRequest(deliver(kind, value)))).status,
    ).toBe(200);
    expect(received.map((entry) => entry.kind)).toEqual([kind]);
  });

  it('a body that fits two schemas is refused as ambiguous', async () => {
    const [first, second] = [
      cases.find((entry) => entry.kind === 'fixedVirtualAccountPaid'),
      cases.find((entry) => entry.kind === 'fixedPaymentCodePaid'),
    ];
    if (!first || !second) throw new Error('the contract lost an example');
    const { handlers, received } = recordingHandlers();
    const body = JSON.stringify({ ...second.value, ...first.value });
    const response = await createWebhookReceiver(handlers, { callbackToken: TOKEN })(
      toRequest({ ...deliver(first.kind, first.value), body }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error_code: 'UNKNOWN_WEBHOOK',
      message: expect.stringContaining('fixedVirtualAccountPaid, fixedPaymentCodePaid'),
    });
    expect(received).toEqual([]);
  });
});
