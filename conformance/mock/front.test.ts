// The mock's front (the generated router) against a stand-in for Prism: valid requests reach Prism and its
// answer comes back unchanged; refused requests are answered as the contract says and never reach it.
// Operations are picked by what the contract says about them, not by name.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OperationModel } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import { bodyExamples, buildRequest } from '../data/requests.js';
import { basicAuthorization } from '../http.js';
import { createMockFront, type MockExchange } from './front.js';

const contract = loadContract();
const pick = (what: string, test: (o: OperationModel) => boolean): OperationModel => {
  const found = contract.model.operations.find(test);
  if (!found) throw new Error(`the contract has no operation that ${what}`);
  return found;
};
const withJsonAndForm = pick(
  'takes JSON and form bodies',
  (o) =>
    o.body?.mediaTypes.includes('application/x-www-form-urlencoded') === true &&
    o.malformedBodyError !== undefined &&
    o.parameters.length === 0,
);
const slashTemplate = pick('has a path ending in a slash', (o) => o.path.endsWith('/') && o.method === 'get');
/** The operation's path with the contract's example values. */
const pathOf = (o: OperationModel): string => buildRequest(contract, o).path;
const KEY = basicAuthorization('sk_test_mock');

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
const exchanges: MockExchange[] = [];
let upstream: Server;
let front: (request: Request) => Promise<Response>;

beforeAll(async () => {
  upstream = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"prism"}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  front = createMockFront({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    onExchange: (exchange) => exchanges.push(exchange),
  });
});
afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
  exchanges.length = 0;
});

const send = (path: string, init: RequestInit = {}): Promise<Response> =>
  front(
    new Request(`http://mock.local${path}`, {
      ...init,
      headers: { authorization: KEY, ...(init.headers as Record<string, string> | undefined) },
    }),
  );
const example = (o: OperationModel): unknown => bodyExamples(contract, o)[0]?.value;

describe('the mock front', () => {
  it("forwards a valid request to Prism at the route's own template and returns its answer", async () => {
    const response = await send(withJsonAndForm.path, {
      method: withJsonAndForm.method.toUpperCase(),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(example(withJsonAndForm)),
    });
    expect([response.status, await response.json()]).toEqual([200, { from: 'prism' }]);
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]?.body ?? '')).toEqual(example(withJsonAndForm));
    expect(exchanges).toEqual([
      { method: withJsonAndForm.method.toUpperCase(), path: withJsonAndForm.path, status: 200, forwarded: true },
    ]);
  });

  it("refuses an invalid body with the operation's validation error, without asking Prism", async () => {
    const response = await send(withJsonAndForm.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[]',
    });
    expect(response.status).toBe(withJsonAndForm.validationError?.status);
    expect(await response.json()).toMatchObject({
      error_code: withJsonAndForm.validationError?.error_code,
      errors: expect.any(Array),
    });
    expect(received).toHaveLength(0);
    expect(exchanges[0]?.forwarded).toBe(false);
  });

  it("answers a body that is not JSON with the operation's malformed-body error", async () => {
    const response = await send(withJsonAndForm.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"external_id":',
    });
    expect(response.status).toBe(withJsonAndForm.malformedBodyError?.status);
    expect(await response.json()).toMatchObject({ error_code: withJsonAndForm.malformedBodyError?.error_code });
    expect(received).toHaveLength(0);
  });

  it("sends Prism a form body as JSON, with its values converted to the schema's types", async () => {
    const body = example(withJsonAndForm) as Record<string, unknown>;
    const form = new URLSearchParams(Object.entries(body).map(([name, value]) => [name, String(value)]));
    const response = await send(withJsonAndForm.path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(response.status).toBe(200);
    expect(received[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(received[0]?.body ?? '')).toEqual(body);
  });

  it('refuses a request without a valid key with 401 INVALID_API_KEY', async () => {
    for (const authorization of ['', 'Bearer x', basicAuthorization('sk_test_mock').replace('Basic ', 'Basic !')]) {
      const response = await front(
        new Request(`http://mock.local${pathOf(slashTemplate)}`, { headers: authorization ? { authorization } : {} }),
      );
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error_code: 'INVALID_API_KEY' });
    }
    expect(received).toHaveLength(0);
  });

  it("routes a path without its trailing slash to the operation, and asks Prism with the template's slash", async () => {
    const response = await send(pathOf(slashTemplate).replace(/\/$/, ''));
    expect(response.status).toBe(200);
    expect(received[0]?.url).toBe(pathOf(slashTemplate));
  });

  it('answers an unknown route with 404 NOT_FOUND and another method with 405 and Allow', async () => {
    const unknown = await send('/no/such/route');
    expect([unknown.status, ((await unknown.json()) as { error_code: string }).error_code]).toEqual([404, 'NOT_FOUND']);
    const wrongMethod = await send(withJsonAndForm.path, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain(withJsonAndForm.method.toUpperCase());
    expect(received).toHaveLength(0);
  });

  it('answers 500 SERVER_ERROR in the error format when Prism cannot be reached', async () => {
    const orphan = createMockFront({ upstream: 'http://127.0.0.1:9' });
    const response = await orphan(
      new Request(`http://mock.local${pathOf(slashTemplate)}`, { headers: { authorization: KEY } }),
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error_code: 'SERVER_ERROR' });
  });
});
