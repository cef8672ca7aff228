// The webhook receiver mounted on Node in one line (node:http, Express's way with a parsed body, Fastify):
// every delivery, good or bad, gets the same answer, status and body, as the fetch-standard receiver gives it.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildWebhookDelivery,
  createNodeWebhookReceiver,
  createWebhookReceiver,
  fastifyRequest,
  toRequest,
  type WebhookEvents,
  type WebhookHandlers,
} from '@payments-contract/client/webhooks';
import { readBundle } from '../generate.js';
import { dereference, isObject } from '../model/read-model.js';
import type { JsonObject } from '../model/types.js';

const TOKEN = 'cbt_test_node_receiver';
const doc = readBundle();

/** The contract's first example of the disbursement callback. */
function disbursementExample(): WebhookEvents['disbursementFinished'] {
  const webhooks = doc.webhooks as JsonObject;
  const post = (dereference(doc, webhooks['disbursement.finished']) as JsonObject).post as JsonObject;
  const media = ((post.requestBody as JsonObject).content as JsonObject)['application/json'] as JsonObject;
  const [example] = Object.values(media.examples as JsonObject);
  const value = isObject(example) ? example.value : undefined;
  if (!isObject(value)) throw new Error('the contract lost its disbursement.finished example');
  return value as unknown as WebhookEvents['disbursementFinished'];
}

const received: unknown[] = [];
const handlers: WebhookHandlers = {
  disbursementFinished: async (event) => void received.push(event.id),
};
const delivery = buildWebhookDelivery('disbursementFinished', disbursementExample(), {
  callbackToken: TOKEN,
  url: 'http://merchant.test/callbacks',
});

/** The deliveries both forms must answer alike: good, wrong token, no token, not JSON, not the schema, GET. */
const deliveries: [string, { method: string; headers: Record<string, string>; body?: string }][] = [
  ['a valid delivery', delivery],
  ['a wrong token', { ...delivery, headers: { ...delivery.headers, 'x-callback-token': 'cbt_wrong' } }],
  ['no token', { ...delivery, headers: { 'content-type': 'application/json' } }],
  ['a body that is not JSON', { ...delivery, body: '{"id": ' }],
  ['a body that breaks the schema', { ...delivery, body: JSON.stringify({ id: 42 }) }],
  ['a GET', { method: 'GET', headers: delivery.headers }],
];

const fetchForm = createWebhookReceiver(handlers, { callbackToken: TOKEN });
const nodeForm = createNodeWebhookReceiver(handlers, { callbackToken: TOKEN });

async function serve(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const mounts: Record<string, string> = {};
const servers: Server[] = [];
const fastify = Fastify();

beforeAll(async () => {
  const plain = createServer(nodeForm);
  // Express's way: a JSON body parsed before the route (`express.json()` sets `req.body`).
  const parsedFirst = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        body = text;
      }
      void nodeForm(Object.assign(request, { body }), response);
    });
  });
  servers.push(plain, parsedFirst);
  mounts['node:http'] = await serve(plain);
  mounts['a parsed body (Express)'] = await serve(parsedFirst);
  // Fastify answers a JSON body it cannot parse itself; the others reach the receiver.
  fastify.route({
    method: ['GET', 'POST'],
    url: '/callbacks',
    handler: (request, reply) => nodeForm(fastifyRequest(request), reply.hijack().raw),
  });
  mounts.Fastify = await fastify.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  for (const server of servers) server.close();
  await fastify.close();
});

describe.each(['node:http', 'a parsed body (Express)', 'Fastify'])('the Node receiver on %s', (mount) => {
  // Behind a framework that parses JSON first, a body that is not JSON is the framework's to answer.
  const reaching = deliveries.filter(([name]) => mount === 'node:http' || name !== 'a body that is not JSON');
  it.each(reaching)('answers %s as the fetch form does', async (_name, sent) => {
    const url = `${mounts[mount]}/callbacks`;
    const expected = await fetchForm(new Request(url, sent));
    const actual = await fetch(url, sent);
    expect({ status: actual.status, body: await actual.json() }).toEqual({
      status: expected.status,
      body: await expected.json(),
    });
  });

  it('hands a valid delivery to the handler once', async () => {
    const before = received.length;
    await fetch(`${mounts[mount]}/callbacks`, toRequest(delivery));
    expect(received.slice(before)).toEqual([disbursementExample().id]);
  });
});
