// The generated client calls a router built from the generated server stubs, in process, for every
// operation of the contract. Every request, valid or not, is derived from the contract: its examples, its
// parameter schemas and its rules with their own codes (`x-error-codes`); nothing is listed per operation.
// Handlers answer with the operation's documented success example and responses are validated, so a 2xx
// proves the request reached the handler intact and the answer conforms. Every error answer is checked
// against the operation's documented response schema too.
//
// Requests a typed client cannot produce (malformed JSON, a foreign media type, broken credentials) are made
// by the client all the same; the in-process "network" (its fetch) corrupts them on the way to the router.
import { afterEach, describe, expect, it } from 'vitest';
import { bodyExamples, loadContract, parameterValue } from '@payments-contract/conformance/testing';
import { createPaymentsClient, type PaymentsClient } from '@payments-contract/client';
import { createRouter, type Handlers } from '@payments-contract/server';
import { operationValidators } from '@payments-contract/server/validators';
import { planOperation } from '../emit/client.js';
import { isObject } from '../model/read-model.js';
import type { ErrorAnswer, Json, JsonObject, OperationModel, ParameterModel } from '../model/types.js';
import { basicAuthorization } from '../runtime/basic-auth.js';
import { toIssues, type ValidationIssue } from '../runtime/validation-errors.js';
import type { Validator } from '../runtime/validator.js';
import { paymentsRouter, type EwalletPayments, type Merchant } from './readme-server-example.js';

const contract = loadContract();
const { model } = contract;
const SECRET_KEY = 'sk_test_round_trip';
const BASE_URL = 'http://payments.test';

// ---------------------------------------------------------------------------------------------------
// What the contract says: success examples, valid requests, rules

/** The operation's documented success (its 2xx) with the first example of its body. */
function successOf(operation: OperationModel): { status: number; body: Json } {
  const success = operation.responses.find((response) => response.status >= 200 && response.status < 300);
  const raw = contract.deref({ $ref: operation.pointer });
  const responses = isObject(raw) ? contract.deref(raw.responses) : undefined;
  const response = success && isObject(responses) ? contract.deref(responses[String(success.status)]) : undefined;
  const content = isObject(response) ? contract.deref(response.content) : undefined;
  const media = isObject(content) ? contract.deref(content['application/json']) : undefined;
  const examples = isObject(media) ? contract.deref(media.examples) : undefined;
  const first = isObject(examples) ? contract.deref(Object.values(examples)[0]) : undefined;
  if (!success || !isObject(first) || first.value === undefined)
    throw new Error(`${operation.operationId}: no example of its success response`);
  return { status: success.status, body: first.value };
}

/** A request as parts: parameter values by name (as written in the contract) and the body. */
interface RequestParts {
  path: Record<string, string>;
  query: Record<string, string>;
  header: Record<string, string>;
  body?: Json;
  encoding?: 'json' | 'form';
}

/** Every parameter with its example value, and the first body example. */
function validParts(operation: OperationModel): RequestParts {
  const values = (location: ParameterModel['in']): Record<string, string> =>
    Object.fromEntries(
      operation.parameters
        .filter((p) => p.in === location)
        .map((p) => [p.name, parameterValue(contract, p, operation)]),
    );
  const body = bodyExamples(contract, operation)[0]?.value;
  return {
    path: values('path'),
    query: values('query'),
    header: values('header'),
    ...(body === undefined ? {} : { body }),
  };
}

/** The parts as the generated client takes them: path, query, body, encoding, and one named option per header. */
function clientInput(operation: OperationModel, parts: RequestParts): Record<string, unknown> {
  const has = (location: ParameterModel['in']): boolean => operation.parameters.some((p) => p.in === location);
  const headerOptions = Object.fromEntries(
    planOperation(operation, model.operations).headerOptions.flatMap(({ option, header }) =>
      parts.header[header] === undefined ? [] : [[option, parts.header[header]]],
    ),
  );
  return {
    ...(has('path') ? { path: parts.path } : {}),
    ...(has('query') ? { query: parts.query } : {}),
    ...headerOptions,
    ...(parts.body === undefined ? {} : { body: parts.body }),
    ...(parts.encoding ? { encoding: parts.encoding } : {}),
  };
}

const clone = <T extends Json>(value: T): T => structuredClone(value);
const without = (values: Record<string, string>, name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(values).filter(([key]) => key !== name));

function getAt(value: Json | undefined, path: readonly string[]): Json | undefined {
  return path.reduce<Json | undefined>((node, key) => (isObject(node) ? node[key] : undefined), value);
}
function setAt(root: JsonObject, path: readonly string[], value: Json | undefined): void {
  const parent = path.slice(0, -1).reduce<JsonObject>((node, key) => {
    const child = node[key];
    if (isObject(child)) return child;
    const created: JsonObject = {};
    node[key] = created;
    return created;
  }, root);
  const last = path.at(-1) as string;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
}

/**
 * A value breaking `keyword` of `schema`, made from the current value where that keeps the other rules of
 * the schema intact (`OVO` -> `OVOX` still matches `^[A-Z]+$` but leaves the enum). Undefined when the
 * keyword cannot be broken on its own.
 */
function breaking(keyword: string, schema: JsonObject, current: Json | undefined): Json | undefined {
  const limit = schema[keyword];
  switch (keyword) {
    case 'enum': {
      const candidate = typeof current === 'string' ? `${current}X` : 'NOT_IN_THE_ENUM';
      return Array.isArray(limit) && !limit.includes(candidate) ? candidate : undefined;
    }
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return typeof limit === 'number' ? limit : undefined;
    case 'maximum':
      return typeof limit === 'number' ? limit + 1 : undefined;
    case 'minimum':
      return typeof limit === 'number' ? limit - 1 : undefined;
    case 'maxLength':
      return typeof limit === 'number' ? 'x'.repeat(limit + 1) : undefined;
    case 'minLength':
      return typeof limit === 'number' && limit > 0 ? 'x'.repeat(limit - 1) : undefined;
    case 'pattern': {
      if (typeof limit !== 'string') return undefined;
      const text = typeof current === 'string' ? current : '';
      // A non-ASCII letter breaks the printable-ASCII rules, and survives a header (a control character would not).
      return [text.slice(1), text.slice(0, -1), `${text}!`, `${text}\u00e9`, ''].find(
        (candidate) => !new RegExp(limit, 'u').test(candidate),
      );
    }
    default:
      return undefined;
  }
}
const BREAKABLE = [
  'enum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'pattern',
];

/** Where a rule with its own code sits in a body schema, and which `if`s must hold for it to apply. */
interface RuleSite {
  path: string[];
  schema: JsonObject;
  conditions: { path: string[]; schema: JsonObject }[];
}

function ruleSites(value: Json | undefined, path: string[] = [], conditions: RuleSite['conditions'] = []): RuleSite[] {
  const node = contract.deref(value);
  if (!isObject(node)) return [];
  const here = isObject(node['x-error-codes']) ? [{ path, schema: node, conditions }] : [];
  const properties = isObject(node.properties)
    ? Object.entries(node.properties).flatMap(([name, child]) => ruleSites(child, [...path, name], conditions))
    : [];
  const members = Array.isArray(node.allOf) ? node.allOf.flatMap((member) => ruleSites(member, path, conditions)) : [];
  const branch =
    isObject(node.if) && node.then !== undefined
      ? ruleSites(node.then, path, [...conditions, { path, schema: node.if }])
      : [];
  return [...here, ...properties, ...members, ...branch];
}

/** Makes an `if` hold where it asks for constants (`is_closed: true`, `bank_code: BCA`). */
function satisfy(body: JsonObject, condition: RuleSite['conditions'][number]): void {
  const properties = isObject(condition.schema.properties) ? condition.schema.properties : {};
  for (const [name, rule] of Object.entries(properties)) {
    if (isObject(rule) && rule.const !== undefined) setAt(body, [...condition.path, name], rule.const);
    else if (isObject(rule) && Array.isArray(rule.enum) && rule.enum[0] !== undefined)
      setAt(body, [...condition.path, name], rule.enum[0]);
  }
}

interface RuleCase {
  name: string;
  operation: OperationModel;
  code: string;
  keyword: string;
  site: RuleSite;
  /** The issue the answer must list. */
  issue: { location: 'body'; path: string; keyword: string; error_code: string };
  /** One body per example, with the rule broken. */
  candidates: JsonObject[];
}

const pointer = (path: readonly string[]): string =>
  path.map((key) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

function ruleCases(operation: OperationModel): RuleCase[] {
  if (!operation.body) return [];
  const examples = bodyExamples(contract, operation)
    .map((example) => example.value)
    .filter(isObject);
  return ruleSites(operation.body.schema).flatMap((site) =>
    Object.entries(site.schema['x-error-codes'] as JsonObject).map(([keyword, code]) => {
      const fields =
        keyword === 'required'
          ? (site.schema.required as string[])
          : keyword === 'not' && isObject(site.schema.not)
            ? (site.schema.not.required as string[])
            : [];
      const candidates = examples.map((example) => {
        const body = clone(example);
        for (const condition of site.conditions) satisfy(body, condition);
        if (keyword === 'required') for (const field of fields) setAt(body, [...site.path, field], undefined);
        else if (keyword === 'not') {
          // Include what the rule forbids, with a value another example of the contract uses for it.
          for (const field of fields)
            setAt(
              body,
              [...site.path, field],
              examples.map((other) => getAt(other, [...site.path, field])).find((found) => found !== undefined),
            );
        } else setAt(body, site.path, breaking(keyword, site.schema, getAt(body, site.path)));
        return body;
      });
      const issuePath = keyword === 'required' ? pointer([...site.path, fields[0] as string]) : pointer(site.path);
      return {
        name: `${operation.operationId}: ${pointer(site.path) || '(body)'} ${keyword} -> ${String(code)}`,
        operation,
        code: String(code),
        keyword,
        site,
        issue: { location: 'body' as const, path: issuePath, keyword, error_code: String(code) },
        candidates,
      };
    }),
  );
}

/** The body the router must answer with the rule's own code: the rule broken, and only that rule. */
function onlyBreaking(validate: Validator, rule: RuleCase): JsonObject | undefined {
  return rule.candidates.find(
    (body) => !validate(body) && toIssues('body', validate.errors).every((issue) => issue.error_code === rule.code),
  );
}

/** The status the contract documents a code at, or the operation's validation status (decision `validation-code-precedence`). */
function documentedAnswer(operation: OperationModel, code: string): ErrorAnswer {
  const status =
    operation.responses.find((response) => response.errorCodes.includes(code))?.status ??
    (operation.validationError as ErrorAnswer).status;
  return { status, error_code: code };
}

// ---------------------------------------------------------------------------------------------------
// The service and its client, in process

const received: { operationId: string; input: unknown }[] = [];
const reported: unknown[] = [];

// Handlers are built in a loop over the contract, so TypeScript cannot check each one against its own
// signature; validateResponses checks every answer against the contract instead.
const handlers = Object.fromEntries(
  model.operations.map((operation) => [
    operation.operationId,
    (input: unknown) => {
      received.push({ operationId: operation.operationId, input });
      return successOf(operation);
    },
  ]),
) as unknown as Handlers<Merchant>;

const router = createRouter(handlers, {
  authenticate: (credentials) =>
    credentials?.username === SECRET_KEY && credentials.password === '' ? { id: 'm-1', secretKey: SECRET_KEY } : null,
  validateResponses: true,
  onError: (error) => reported.push(error),
});

/** A client whose requests pass through `network` on their way to the router. */
const clientOver = (
  network: (request: Request) => Request = (request) => request,
  secretKey = SECRET_KEY,
): PaymentsClient =>
  createPaymentsClient({ baseUrl: BASE_URL, secretKey, fetch: (request) => router(network(request)) });
const client = clientOver();

interface CallHandlerResult {
  ok: boolean;
  status: number;
  data?: unknown;
  error?: unknown;
  response: Response;
}
/** Calls the client method of an operation with inputs built at run time from the contract. */
function call(
  over: PaymentsClient,
  operation: OperationModel,
  input: Record<string, unknown>,
): Promise<CallHandlerResult> {
  const method = over[operation.operationId as keyof PaymentsClient] as unknown as (
    input: Record<string, unknown>,
  ) => Promise<CallHandlerResult>;
  return method(input);
}

const rewrite =
  (change: (headers: Headers) => void, body?: string) =>
  (request: Request): Request => {
    const headers = new Headers(request.headers);
    change(headers);
    return new Request(request, { headers, ...(body === undefined ? {} : { body }) });
  };

afterEach(() => {
  received.length = 0;
  expect(reported, 'handler answers that broke the contract').toEqual([]);
});

/** The answer is the documented error, its body conforms to the documented schema, and it lists `issue`. */
function expectError(
  operation: OperationModel,
  result: CallHandlerResult,
  answer: ErrorAnswer,
  issue?: Partial<ValidationIssue>,
): void {
  expect({
    status: result.status,
    error_code: isObject(result.error as Json) ? (result.error as JsonObject).error_code : result.error,
  }).toEqual(answer);
  expect(result.response.headers.get('content-type')).toBe('application/json');
  const validate = operationValidators[operation.operationId as keyof typeof operationValidators].responses as Record<
    number,
    Validator | undefined
  >;
  expect(validate[answer.status]?.(result.error), `${answer.status} body conforms to the contract`).toBe(true);
  if (issue) expect((result.error as { errors?: unknown }).errors).toContainEqual(expect.objectContaining(issue));
  expect(received).toEqual([]);
}

const bodyOperations = model.operations.filter((operation) => operation.body);

// ---------------------------------------------------------------------------------------------------

describe.each(model.operations.map((operation) => [operation.operationId, operation] as const))(
  '%s',
  (_id, operation) => {
    const parts = validParts(operation);
    const success = successOf(operation);

    it("a valid request from the contract's examples gets the documented success", async () => {
      const result = await call(client, operation, clientInput(operation, parts));
      expect({ ok: result.ok, status: result.status, data: result.data }).toEqual({
        ok: true,
        status: success.status,
        data: success.body,
      });
      const lowerCase = Object.fromEntries(
        Object.entries(parts.header).map(([name, value]) => [name.toLowerCase(), value]),
      );
      expect(received).toEqual([
        {
          operationId: operation.operationId,
          input: expect.objectContaining({
            ...(operation.body ? { body: parts.body } : {}),
            ...(Object.keys(parts.path).length > 0 ? { path: parts.path } : {}),
          }),
        },
      ]);
      if (Object.keys(parts.query).length > 0) expect(received[0]?.input).toMatchObject({ query: parts.query });
      if (Object.keys(lowerCase).length > 0) expect(received[0]?.input).toMatchObject({ header: lowerCase });
      received.length = 0;
    });

    const auth: [string, (request: Request) => Request, string?][] = [
      ['missing credentials', rewrite((headers) => headers.delete('authorization'))],
      ['malformed credentials', rewrite((headers) => headers.set('authorization', 'Basic ***'))],
      ['another scheme', rewrite((headers) => headers.set('authorization', `Bearer ${SECRET_KEY}`))],
      [
        'a password with the key',
        rewrite((headers) =>
          headers.set('authorization', basicAuthorization({ username: SECRET_KEY, password: 'secret' })),
        ),
      ],
      ['an unknown key', (request) => request, 'sk_test_unknown'],
    ];
    it.each(auth)('%s: the documented 401', async (_name, network, key) => {
      const result = await call(clientOver(network, key), operation, clientInput(operation, parts));
      expectError(operation, result, {
        status: 401,
        error_code: operation.responses.find((r) => r.status === 401)?.errorCodes[0] ?? '',
      });
      expect(result.response.headers.get('www-authenticate')).toBe('Basic realm="payments"');
    });

    // Parameters: each constraint of each parameter's schema, broken on its own; required ones left out.
    const parameterCases = operation.parameters.flatMap((parameter) => {
      const schema = contract.deref(parameter.schema);
      const current = (parts[parameter.in] as Record<string, string>)[parameter.name];
      const broken = isObject(schema)
        ? BREAKABLE.flatMap((keyword) =>
            keyword in schema ? [[keyword, breaking(keyword, schema, current)] as const] : [],
          )
        : [];
      const cases = broken.flatMap(([keyword, value]) =>
        // An empty path segment matches no route at all (404), so it cannot test the parameter's rule.
        value === undefined || (parameter.in === 'path' && value === '')
          ? []
          : [{ parameter, keyword, value: String(value) }],
      );
      return parameter.required && parameter.in !== 'path'
        ? [...cases, { parameter, keyword: 'required', value: undefined }]
        : cases;
    });
    it.each(parameterCases.map((c) => [`${c.parameter.in} ${c.parameter.name}: ${c.keyword}`, c] as const))(
      '%s broken: the validation error naming it',
      async (_name, { parameter, keyword, value }) => {
        const values = parts[parameter.in];
        const changed = {
          ...parts,
          [parameter.in]:
            value === undefined ? without(values, parameter.name) : { ...values, [parameter.name]: value },
        };
        // The client makes an idempotency key when none is given, so the key's absence is made on the way.
        const keyDropped = value === undefined && parameter.name === operation.idempotency?.header;
        const sender = keyDropped
          ? clientOver((request) => {
              request.headers.delete(parameter.name);
              return request;
            })
          : client;
        const result = await call(sender, operation, clientInput(operation, changed));
        const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
        expectError(operation, result, operation.validationError as ErrorAnswer, {
          location: parameter.in,
          path: `/${name}`,
          keyword,
        });
      },
    );

    if (!operation.body) return;
    const body = parts.body as JsonObject;
    const generic = operation.validationError as ErrorAnswer;
    const rootSchema = contract.deref(operation.body.schema) as JsonObject;
    const [firstRequired] = Array.isArray(rootSchema.required) ? (rootSchema.required as string[]) : [];

    it('unknown body fields are ignored', async () => {
      const result = await call(
        client,
        operation,
        clientInput(operation, { ...parts, body: { ...body, not_in_the_contract: 'ignored' } }),
      );
      expect(result.status).toBe(success.status);
      received.length = 0;
    });

    if (firstRequired !== undefined) {
      it(`a missing required field (${firstRequired}): the validation error`, async () => {
        const { [firstRequired]: _left, ...rest } = body;
        const result = await call(client, operation, clientInput(operation, { ...parts, body: rest }));
        expectError(operation, result, generic, { location: 'body', path: `/${firstRequired}`, keyword: 'required' });
      });

      it(`a field of the wrong type (${firstRequired}): the validation error`, async () => {
        const value = body[firstRequired];
        const wrong = typeof value === 'string' ? 12345 : typeof value === 'number' ? 'not a number' : 'not an object';
        const result = await call(
          client,
          operation,
          clientInput(operation, { ...parts, body: { ...body, [firstRequired]: wrong } }),
        );
        expectError(operation, result, generic, { location: 'body', path: `/${firstRequired}`, keyword: 'type' });
      });
    }

    it('a body in a media type the operation does not take: the validation error naming Content-Type', async () => {
      const result = await call(
        clientOver(rewrite((headers) => headers.set('content-type', 'text/plain'))),
        operation,
        clientInput(operation, parts),
      );
      expectError(operation, result, generic, { location: 'header', path: '/content-type' });
    });

    if (operation.malformedBodyError) {
      const malformed = operation.malformedBodyError;
      it(`a body that is not JSON: ${malformed.status} ${malformed.error_code}`, async () => {
        const result = await call(
          clientOver(rewrite(() => undefined, '{"external_id": "x",')),
          operation,
          clientInput(operation, parts),
        );
        expectError(operation, result, malformed);
      });
    }

    if (operation.body.mediaTypes.includes('application/x-www-form-urlencoded')) {
      it("the same body form-encoded: converted back to the schema's types for the handler", async () => {
        const result = await call(client, operation, clientInput(operation, { ...parts, encoding: 'form' }));
        expect(result.status).toBe(success.status);
        expect(received[0]?.input).toMatchObject({ body });
        received.length = 0;
      });

      if (operation.malformedBodyError) {
        const malformed = operation.malformedBodyError;
        it(`a broken form encoding: ${malformed.status} ${malformed.error_code}`, async () => {
          const network = rewrite(
            (headers) => headers.set('content-type', 'application/x-www-form-urlencoded'),
            'external_id=100%',
          );
          expectError(operation, await call(clientOver(network), operation, clientInput(operation, parts)), malformed);
        });
      }
    }
  },
);

describe('rules with their own code (x-error-codes), one case per mapping in the contract', () => {
  const cases = bodyOperations.flatMap(ruleCases);

  it('covers every x-error-codes mapping of every request body', () => {
    const mapped = new Set<JsonObject>();
    const scan = (value: Json | undefined): void => {
      if (Array.isArray(value)) value.forEach(scan);
      else if (isObject(value)) {
        if (isObject(value['x-error-codes'])) mapped.add(value);
        Object.values(value).forEach(scan);
      }
    };
    scan(contract.doc.components as Json);
    const covered = new Set(cases.map((rule) => rule.site.schema));
    expect(
      [...mapped].filter((schema) => !covered.has(schema)),
      'x-error-codes no case reaches',
    ).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(mapped.size);
  });

  it.each(cases.map((rule) => [rule.name, rule] as const))('%s', async (_name, rule) => {
    const validate = operationValidators[rule.operation.operationId as keyof typeof operationValidators] as {
      body?: Validator;
    };
    const body = validate.body ? onlyBreaking(validate.body, rule) : undefined;
    if (!body) throw new Error(`no example of ${rule.operation.operationId} can break only this rule`);
    const result = await call(
      client,
      rule.operation,
      clientInput(rule.operation, { ...validParts(rule.operation), body }),
    );
    expectError(rule.operation, result, documentedAnswer(rule.operation, rule.code), rule.issue);
  });

  // The cases the issue names, written out as a reader would try them.
  const named: [string, { operationId: string; change: (body: JsonObject) => void; want: ErrorAnswer }][] = [
    [
      'an FVA expecting 1000000000',
      {
        operationId: 'createFixedVirtualAccount',
        change: (body) => Object.assign(body, { is_closed: true, expected_amount: 1000000000 }),
        want: { status: 400, error_code: 'MAXIMUM_EXPECTED_AMOUNT_ERROR' },
      },
    ],
    [
      'a DANA e-wallet payment',
      {
        operationId: 'createEwalletPayment',
        change: (body) => Object.assign(body, { ewallet_type: 'DANA' }),
        want: { status: 422, error_code: 'EWALLET_TYPE_NOT_SUPPORTED' },
      },
    ],
    [
      'a lower-case e-wallet type breaks two rules: the generic code',
      {
        operationId: 'createEwalletPayment',
        change: (body) => Object.assign(body, { ewallet_type: 'dana' }),
        want: { status: 422, error_code: 'API_VALIDATION_ERROR' },
      },
    ],
    [
      'a BCA disbursement to a 9-digit account',
      {
        operationId: 'createDisbursement',
        change: (body) => Object.assign(body, { bank_code: 'BCA', account_number: '123456789' }),
        want: { status: 400, error_code: 'RECIPIENT_ACCOUNT_NUMBER_ERROR' },
      },
    ],
  ];
  it.each(named)('%s', async (_name, { operationId, change, want }) => {
    const operation = contract.operation(operationId);
    const parts = validParts(operation);
    const body = clone(parts.body as JsonObject);
    change(body);
    expectError(operation, await call(client, operation, clientInput(operation, { ...parts, body })), want);
  });
});

describe('outside the operations', () => {
  it('an unknown path is 404 NOT_FOUND as JSON, a known one with another method 405 with Allow', async () => {
    const unknown = await router(
      new Request(`${BASE_URL}/refunds`, {
        headers: { authorization: basicAuthorization({ username: SECRET_KEY, password: '' }) },
      }),
    );
    expect([
      unknown.status,
      ((await unknown.json()) as JsonObject).error_code,
      unknown.headers.get('content-type'),
    ]).toEqual([404, 'NOT_FOUND', 'application/json']);
    const wrongMethod = await router(new Request(`${BASE_URL}/balance`, { method: 'DELETE' }));
    expect([
      wrongMethod.status,
      ((await wrongMethod.json()) as JsonObject).error_code,
      wrongMethod.headers.get('allow'),
    ]).toEqual([405, 'METHOD_NOT_ALLOWED', 'GET']);
  });

  it('paths written with and without a trailing slash reach the same operation', async () => {
    const authorization = basicAuthorization({ username: SECRET_KEY, password: '' });
    const paths = [
      '/direct_debits/ddpy-1',
      '/direct_debits/ddpy-1/',
      '/balance/',
      '/callback_virtual_account_payments/payment_id%3Dp-1',
    ];
    const statuses = await Promise.all(
      paths.map(
        async (path) => (await router(new Request(`${BASE_URL}${path}`, { headers: { authorization } }))).status,
      ),
    );
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(received.map((entry) => entry.operationId)).toEqual([
      'getDirectDebitPayment',
      'getDirectDebitPayment',
      'getBalance',
      'getFixedVirtualAccountPayment',
    ]);
    received.length = 0;
  });
});

describe("the README's server example", () => {
  it('serves its typed handler and the others through the generated router', async () => {
    const used = new Set<string>();
    const payments: EwalletPayments = {
      request: async (merchant, body) => {
        if (used.has(body.external_id)) return null;
        used.add(body.external_id);
        return { ...body, business_id: merchant.id, status: 'PENDING', created: '2026-11-21T09:30:00.000Z' };
      },
    };
    const { createEwalletPayment: _replaced, ...others } = handlers;
    const readmeRouter = paymentsRouter([{ id: 'm-7', secretKey: 'sk_test_readme' }], payments, others, true);
    const readmeClient = (secretKey: string): PaymentsClient =>
      createPaymentsClient({ baseUrl: BASE_URL, secretKey, fetch: readmeRouter });
    const body = { external_id: 'order-1', amount: 125000, phone: '081234567890', ewallet_type: 'OVO' } as const;

    const first = await readmeClient('sk_test_readme').createEwalletPayment({ body });
    expect(first.ok && first.data).toEqual({
      ...body,
      business_id: 'm-7',
      status: 'PENDING',
      created: '2026-11-21T09:30:00.000Z',
    });
    const again = await readmeClient('sk_test_readme').createEwalletPayment({ body });
    expect(again.status === 400 && again.error.error_code).toBe('DUPLICATE_PAYMENT_REQUEST_ERROR');
    expect((await readmeClient('sk_test_other').createEwalletPayment({ body })).status).toBe(401);
    expect((await readmeClient('sk_test_readme').getBalance()).status).toBe(200);
    received.length = 0;
  });
});
