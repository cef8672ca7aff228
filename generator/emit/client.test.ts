import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPaymentsClient, type PaymentsClient } from '@payments-contract/client';
import { readBundle } from '../generate.js';
import { readModel } from '../model/read-model.js';
import type { ApiModel, JsonObject, OperationModel } from '../model/types.js';
import { secretKeyAuthorization } from '../runtime/client.js';
import { attempts, payOut } from '../tests/readme-client-example.js';
import { emitClient, headerOptionName, planOperation, retryPolicy } from './client.js';

const fixture = JSON.parse(
  readFileSync(new URL('../tests/fixtures/mini-contract.json', import.meta.url), 'utf8'),
) as JsonObject;
const miniModel = readModel(fixture);
const model = readModel(readBundle());

function operation(from: ApiModel, operationId: string): OperationModel {
  const found = from.operations.find((candidate) => candidate.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}

describe('headerOptionName', () => {
  const cases: [string, string][] = [
    ['X-IDEMPOTENCY-KEY', 'idempotencyKey'],
    ['Idempotency-key', 'idempotencyKey'],
    ['x-api-version', 'apiVersion'],
    ['X-Request_Id', 'requestId'],
  ];
  it.each(cases)('%s -> %s', (header, option) => {
    expect(headerOptionName(header)).toBe(option);
  });
});

describe('planOperation', () => {
  // [operationId, input fields as name(? when optional), header options, form encoding, documented statuses]
  const cases: [string, string[], Record<string, string>, boolean, number[]][] = [
    ['getBalance', ['query?'], {}, false, [200, 400, 401, 403, 429, 500, 503]],
    ['listVirtualAccountBanks', [], {}, false, [200, 400, 401, 403, 429, 500, 503]],
    ['createFixedVirtualAccount', ['body', 'encoding?'], {}, true, [200, 400, 401, 403, 429, 500, 503]],
    ['getFixedVirtualAccountPayment', ['path'], {}, false, [200, 400, 401, 403, 404, 429, 500, 503]],
    ['listDisbursementsByExternalId', ['query'], {}, false, [200, 400, 401, 403, 404, 429, 500, 503]],
    [
      'createDisbursement',
      ['idempotencyKey?', 'body'],
      { idempotencyKey: 'X-IDEMPOTENCY-KEY' },
      false,
      [200, 400, 401, 403, 429, 500, 503],
    ],
    [
      'createEwalletPayment',
      ['apiVersion?', 'body', 'encoding?'],
      { apiVersion: 'x-api-version' },
      true,
      [200, 400, 401, 403, 422, 429, 500, 503],
    ],
    [
      'createDirectDebitPayment',
      ['idempotencyKey?', 'body'],
      { idempotencyKey: 'Idempotency-key' },
      false,
      [200, 400, 401, 403, 409, 429, 500, 503],
    ],
    ['validateDirectDebitPaymentOtp', ['path', 'body'], {}, false, [200, 400, 401, 403, 404, 409, 429, 500, 503]],
  ];
  it.each(cases)('%s', (operationId, fields, headers, form, statuses) => {
    const plan = planOperation(operation(model, operationId), model.operations);
    expect(plan.fields.map((field) => `${field.name}${field.required ? '' : '?'}`)).toEqual(fields);
    expect(Object.fromEntries(plan.headerOptions.map(({ option, header }) => [option, header]))).toEqual(headers);
    expect(plan.formEncoding).toBe(form);
    expect(plan.statuses).toEqual(statuses);
  });

  it('offers form encoding exactly where the contract accepts a form body (FVA, FPC and e-wallet creation)', () => {
    expect(
      model.operations
        .map((operation) => planOperation(operation, model.operations))
        .filter((plan) => plan.formEncoding)
        .map((plan) => plan.operationId),
    ).toEqual(['createFixedVirtualAccount', 'createFixedPaymentCode', 'createEwalletPayment']);
  });

  it('types every input from operations[id] in types.ts', () => {
    const plan = planOperation(operation(model, 'createDisbursement'), model.operations);
    expect(Object.fromEntries(plan.fields.map((field) => [field.name, field.type]))).toEqual({
      idempotencyKey: "NonNullable<operations['createDisbursement']['parameters']['header']>['X-IDEMPOTENCY-KEY']",
      body: "operations['createDisbursement']['requestBody']['content']['application/json']",
    });
  });

  const base = operation(miniModel, 'createThing');
  const refused: [string, OperationModel, RegExp][] = [
    [
      'a header whose option name is taken by another input',
      {
        ...base,
        parameters: [
          ...base.parameters,
          { name: 'X-Body', in: 'header', required: false, schema: {}, description: '' },
        ],
      },
      /header X-Body would become the input option `body`/,
    ],
    [
      'two headers with one option name',
      {
        ...base,
        parameters: [
          ...base.parameters,
          { name: 'X-Idempotency-Key', in: 'header', required: false, schema: {}, description: '' },
        ],
      },
      /header X-Idempotency-Key would become the input option `idempotencyKey`/,
    ],
    [
      'a response without a JSON body',
      {
        ...base,
        responses: [
          ...base.responses,
          { status: 204, description: 'Nothing.', errorCodes: [], retryable: [], headers: [], headerFields: [] },
        ],
      },
      /response 204 has no JSON body/,
    ],
  ];
  it.each(refused)('refuses %s', (_name, given, message) => {
    expect(() => planOperation(given)).toThrow(message);
  });
});

describe('retryPolicy', () => {
  const policy = (operationId: string) => retryPolicy(operation(model, operationId), model.operations);
  const nothingDone = [
    { status: 429, errorCode: 'RATE_LIMIT_EXCEEDED' },
    { status: 503, errorCode: 'SERVICE_UNAVAILABLE' },
  ];

  it('lets a read be repeated, and any request the contract says was not carried out (x-retryable)', () => {
    expect(policy('getBalance')).toEqual({ operationId: 'getBalance', safe: true, retryable: nothingDone });
    expect(policy('createFixedVirtualAccount')).toEqual({
      operationId: 'createFixedVirtualAccount',
      safe: false,
      retryable: nothingDone,
    });
  });

  it('makes a key recoverable where x-idempotency names the lookup that finds the original (disbursement)', () => {
    expect(policy('createDisbursement').idempotency).toEqual({
      replay: { status: 400, errorCode: 'DUPLICATE_TRANSACTION_ERROR' },
      successStatus: 200,
      recoverable: true,
    });
  });

  it('makes the direct debit key recoverable by its reference_id lookup, its 503 retryable only for SERVICE_UNAVAILABLE', () => {
    const directDebit = policy('createDirectDebitPayment');
    expect(directDebit.idempotency).toEqual({
      replay: { status: 409, errorCode: 'DUPLICATE_ERROR' },
      successStatus: 200,
      recoverable: true,
    });
    expect(directDebit.retryable).toEqual(nothingDone);
  });

  it('keeps a key unrecoverable where x-idempotency names no lookup', () => {
    const disbursement = operation(model, 'createDisbursement');
    const { recovery: _named, ...withoutLookup } = disbursement.idempotency ?? ({} as never);
    expect(
      retryPolicy({ ...disbursement, idempotency: withoutLookup }, model.operations).idempotency?.recoverable,
    ).toBe(false);
  });

  it('refuses a recovery that names no operation of the contract', () => {
    const disbursement = operation(model, 'createDisbursement');
    expect(() => retryPolicy(disbursement, [])).toThrow(/recovery names listDisbursementsByExternalId/);
  });
});

describe('emitClient', () => {
  const [file] = emitClient(miniModel);

  it('writes client.ts with the header', () => {
    expect(emitClient(miniModel).map((emitted) => emitted.path)).toEqual(['client.ts']);
    expect(file?.contents.startsWith('// Generated by generator/emit/client.ts from spec/ — do not edit.\n')).toBe(
      true,
    );
  });

  it('is deterministic', () => {
    expect(emitClient(readModel(fixture))).toEqual(emitClient(miniModel));
  });

  it('matches the file snapshot', async () => {
    await expect(file?.contents).toMatchFileSnapshot('__snapshots__/mini-client.ts.snap');
  });

  it('declares one method per operationId of the contract', () => {
    const contents = emitClient(model)[0]?.contents ?? '';
    const declared = [
      ...(contents.match(/export interface PaymentsClient \{([\s\S]*?)\n\}/)?.[1] ?? '').matchAll(/^ {2}(\w+)\(/gm),
    ].map((match) => match[1]);
    expect(declared).toEqual(model.operations.map((candidate) => candidate.operationId));
    expect(declared).toHaveLength(27);
  });
});

// The committed artifact (generated/client/src/client.ts, the emitter's output for the contract) against an in-process
// fetch that records every request and answers 200 {}.
describe('generated/client/src/client.ts', () => {
  const SECRET_KEY = 'sk_test_abc';

  function recordingClient(baseUrl = 'https://payments.test'): { client: PaymentsClient; requests: Request[] } {
    const requests: Request[] = [];
    const client = createPaymentsClient({
      baseUrl,
      secretKey: SECRET_KEY,
      fetch: async (request) => {
        requests.push(request);
        return Response.json({});
      },
    });
    return { client, requests };
  }

  async function onlyRequest(call: (client: PaymentsClient) => Promise<unknown>, baseUrl?: string): Promise<Request> {
    const { client, requests } = recordingClient(baseUrl);
    await call(client);
    expect(requests).toHaveLength(1);
    return requests[0] as Request;
  }

  it('has one function per operationId', () => {
    const { client } = recordingClient();
    expect(Object.keys(client)).toEqual(model.operations.map((candidate) => candidate.operationId));
  });

  // Each method, called with every path parameter set to 'a b/c', each required query parameter and header
  // set, and an empty body, sends its operation's method to its path with the parameter encoded in place.
  it.each(model.operations.map((candidate) => [candidate.operationId, candidate] as const))(
    '%s sends its method and path',
    async (operationId, candidate) => {
      const value = 'a b/c';
      const plan = planOperation(candidate, model.operations);
      const byLocation = (location: 'path' | 'query') =>
        Object.fromEntries(
          candidate.parameters
            .filter((p) => p.in === location && (location === 'path' || p.required))
            .map((p) => [p.name, value]),
        );
      const input = Object.fromEntries(
        plan.fields.map((field) => [
          field.name,
          field.name === 'path' || field.name === 'query'
            ? byLocation(field.name)
            : field.name === 'body'
              ? {}
              : field.name === 'encoding'
                ? 'json'
                : value,
        ]),
      );
      // Calling methods by name loses their individual input types; the types are proven in client-types.test.ts.
      const method = (client: PaymentsClient) =>
        (client[operationId as keyof PaymentsClient] as (input: unknown) => Promise<unknown>)(input);
      const request = await onlyRequest(method);
      const path = candidate.path.replace(/\{(\w+)\}/g, () => encodeURIComponent(value));
      const query = new URLSearchParams(byLocation('query')).toString().replaceAll('+', '%20');
      expect(request.method).toBe(candidate.method.toUpperCase());
      expect(request.url).toBe(`https://payments.test${path}${query ? `?${query}` : ''}`);
      for (const { header } of plan.headerOptions) expect(request.headers.get(header)).toBe(value);
      expect(request.headers.get('authorization')).toBe(`Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`);
    },
  );

  it('sends exactly Basic base64(secretKey + ":") as Authorization', async () => {
    const request = await onlyRequest((client) => client.getBalance());
    expect(request.headers.get('authorization')).toBe('Basic c2tfdGVzdF9hYmM6');
    expect(secretKeyAuthorization(SECRET_KEY)).toBe('Basic c2tfdGVzdF9hYmM6');
  });

  const urls: [string, (client: PaymentsClient) => Promise<unknown>, string][] = [
    [
      'payment_id={payment_id}',
      (client) => client.getFixedVirtualAccountPayment({ path: { payment_id: 'pay-1' } }),
      '/callback_virtual_account_payments/payment_id=pay-1',
    ],
    [
      'a path parameter that needs escaping',
      (client) => client.getFixedVirtualAccount({ path: { id: 'va/1?x' } }),
      '/callback_virtual_accounts/va%2F1%3Fx',
    ],
    [
      'a trailing-slash path',
      (client) => client.getDirectDebitPayment({ path: { id: 'dd-1' } }),
      '/direct_debits/dd-1/',
    ],
    [
      'a trailing slash after a parameter segment',
      (client) => client.validateDirectDebitPaymentOtp({ path: { id: 'dd-1' }, body: { otp_code: '333000' } }),
      '/direct_debits/dd-1/validate_otp/',
    ],
    [
      'query parameters, escaped',
      (client) => client.getEwalletPaymentStatus({ query: { external_id: 'order #1&2', ewallet_type: 'OVO' } }),
      '/ewallets?external_id=order%20%231%262&ewallet_type=OVO',
    ],
    ['an optional query parameter left out', (client) => client.listCustomers(), '/customers'],
  ];
  it.each(urls)('writes %s into the URL', async (_name, call, path) => {
    expect((await onlyRequest(call)).url).toBe(`https://payments.test${path}`);
  });

  it('ignores a trailing slash on baseUrl', async () => {
    expect((await onlyRequest((client) => client.getBalance(), 'https://payments.test/v1/')).url).toBe(
      'https://payments.test/v1/balance',
    );
  });

  const disbursement = {
    external_id: 'd-1',
    bank_code: 'BCA',
    account_holder_name: 'Budi',
    account_number: '1234567890',
    description: 'Refund',
    amount: 90000,
  };
  const directDebit = {
    reference_id: 'r-1',
    payment_method_id: 'pm-1',
    currency: 'IDR',
    amount: 10000,
    callback_url: 'https://merchant.test/cb',
  };
  const ewallet = { external_id: 'e-1', amount: 10000, phone: '081234567890', ewallet_type: 'OVO' as const };
  const headers: [string, (client: PaymentsClient) => Promise<unknown>, string, unknown][] = [
    [
      'idempotencyKey as X-IDEMPOTENCY-KEY on createDisbursement',
      (client) => client.createDisbursement({ idempotencyKey: 'k-1', body: disbursement }),
      'X-IDEMPOTENCY-KEY',
      'k-1',
    ],
    [
      'a key of its own making as X-IDEMPOTENCY-KEY when the key is left out',
      (client) => client.createDisbursement({ body: disbursement }),
      'X-IDEMPOTENCY-KEY',
      expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    ],
    [
      'a key of its own making as Idempotency-key when the key is left out',
      (client) => client.createDirectDebitPayment({ body: directDebit }),
      'Idempotency-key',
      expect.stringMatching(/^[0-9a-f-]{36}$/),
    ],
    [
      'idempotencyKey as Idempotency-key on createDirectDebitPayment',
      (client) => client.createDirectDebitPayment({ idempotencyKey: 'k-2', body: directDebit }),
      'Idempotency-key',
      'k-2',
    ],
    [
      'apiVersion as x-api-version on createEwalletPayment',
      (client) => client.createEwalletPayment({ apiVersion: '2020-02-01', body: ewallet }),
      'x-api-version',
      '2020-02-01',
    ],
  ];
  it.each(headers)('sends %s', async (_name, call, header, value) => {
    expect((await onlyRequest(call)).headers.get(header)).toEqual(value);
  });

  const fva = {
    external_id: 'va-1',
    bank_code: 'BNI' as const,
    name: 'Budi Santoso',
    is_closed: false,
    is_single_use: false,
  };
  it('sends JSON by default', async () => {
    const request = await onlyRequest((client) => client.createFixedVirtualAccount({ body: fva }));
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(await request.json()).toEqual(fva);
  });

  const forms: [string, (client: PaymentsClient) => Promise<unknown>, string][] = [
    [
      'createFixedVirtualAccount',
      (client) => client.createFixedVirtualAccount({ body: fva, encoding: 'form' }),
      'external_id=va-1&bank_code=BNI&name=Budi+Santoso&is_closed=false&is_single_use=false',
    ],
    [
      'createFixedPaymentCode',
      (client) =>
        client.createFixedPaymentCode({
          body: {
            external_id: 'pc-1',
            retail_outlet_name: 'ALFAMART',
            name: 'Budi',
            expected_amount: 10000,
            is_single_use: true,
          },
          encoding: 'form',
        }),
      'external_id=pc-1&retail_outlet_name=ALFAMART&name=Budi&expected_amount=10000&is_single_use=true',
    ],
    [
      'createEwalletPayment',
      (client) => client.createEwalletPayment({ body: ewallet, encoding: 'form' }),
      'external_id=e-1&amount=10000&phone=081234567890&ewallet_type=OVO',
    ],
  ];
  it.each(forms)('%s with encoding: form sends application/x-www-form-urlencoded', async (_name, call, body) => {
    const request = await onlyRequest(call);
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(await request.text()).toBe(body);
  });

  it('runs the README example: a typed disbursement and its typed refusal', async () => {
    const answers = [
      Response.json({ id: 'disb-1' }),
      Response.json(
        { error_code: 'DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR', message: 'Top up first.' },
        { status: 400 },
      ),
    ];
    const requests: Request[] = [];
    const config = {
      baseUrl: 'https://payments.test',
      secretKey: SECRET_KEY,
      fetch: async (request: Request) => {
        requests.push(request);
        return answers.shift() ?? Response.json({}, { status: 500 });
      },
    };
    await expect(payOut(config, 'order-1')).resolves.toBe('sent disb-1');
    await expect(payOut(config, 'order-2')).resolves.toBe('top up the balance first');
    expect(requests.map((request) => request.headers.get('x-idemPOTENCY-key'))).toEqual(['order-1', 'order-2']);
    // The call's hook saw each attempt: one each, answered, nothing to retry.
    expect(attempts.map(({ operationId, status, next }) => [operationId, status, next])).toEqual([
      ['createDisbursement', 200, 'done'],
      ['createDisbursement', 400, 'done'],
    ]);
  });
});
