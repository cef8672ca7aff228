import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import { basicAuthorization } from './basic-auth.js';
import { createRouter, ResponseContractError, type AnyHandler, type RouteTable, type RouterOptions } from './router.js';
import type { Validator } from './validator.js';

// A two-resource contract in the shape the generator emits, with validators compiled as the generator
// compiles them (strict for JSON bodies and responses, coercing for parameters and forms).
const strict = new Ajv2020({ strict: false, allErrors: true, verbose: true });
const coercing = new Ajv2020({ strict: false, allErrors: true, verbose: true, coerceTypes: true });
const compile = (ajv: Ajv2020, schema: object): Validator => ajv.compile(schema) as Validator;

const thingBody = {
  type: 'object',
  required: ['name', 'amount'],
  properties: {
    name: { type: 'string', minLength: 1 },
    amount: { type: 'number', exclusiveMaximum: 100, 'x-error-codes': { exclusiveMaximum: 'AMOUNT_TOO_HIGH' } },
    urgent: { type: 'boolean' },
  },
};
const thing = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'string' }, name: { type: 'string' } },
};
const error = {
  type: 'object',
  required: ['error_code', 'message'],
  properties: { error_code: { type: 'string' }, message: { type: 'string' } },
};
const common = {
  unauthorizedError: { status: 401, error_code: 'INVALID_API_KEY' },
  serverError: { status: 500, error_code: 'SERVER_ERROR' },
} as const;

const table = {
  createThing: {
    method: 'POST',
    path: '/things',
    parameters: { path: [], query: [], header: ['idempotency-key'] },
    body: { mediaTypes: ['application/json', 'application/x-www-form-urlencoded'], required: true },
    responses: {
      200: [],
      400: ['API_VALIDATION_ERROR', 'INVALID_JSON_FORMAT'],
      401: ['INVALID_API_KEY'],
      422: ['AMOUNT_TOO_HIGH'],
      500: ['SERVER_ERROR'],
    },
    ...common,
    validationError: { status: 400, error_code: 'API_VALIDATION_ERROR' },
    malformedBodyError: { status: 400, error_code: 'INVALID_JSON_FORMAT' },
    validators: {
      header: compile(coercing, {
        type: 'object',
        properties: { 'idempotency-key': { type: 'string', maxLength: 5 } },
        required: [],
      }),
      body: compile(strict, thingBody),
      form: compile(coercing, thingBody),
      responses: {
        200: compile(strict, thing),
        400: compile(strict, error),
        401: compile(strict, error),
        422: compile(strict, error),
        500: compile(strict, error),
      },
    },
  },
  getThing: {
    method: 'GET',
    path: '/things/{id}/',
    parameters: { path: ['id'], query: ['verbose', 'limit'], header: [] },
    responses: {
      200: [],
      400: ['API_VALIDATION_ERROR', 'INVALID_JSON_FORMAT'],
      401: ['INVALID_API_KEY'],
      500: ['SERVER_ERROR'],
    },
    ...common,
    validationError: { status: 400, error_code: 'API_VALIDATION_ERROR' },
    // Like getDisbursement: no body in the contract, but a malformed one is answered.
    malformedBodyError: { status: 400, error_code: 'INVALID_JSON_FORMAT' },
    validators: {
      path: compile(coercing, {
        type: 'object',
        properties: { id: { type: 'string', pattern: '^th-' } },
        required: ['id'],
      }),
      query: compile(coercing, {
        type: 'object',
        properties: { verbose: { type: 'boolean' }, limit: { type: 'integer' } },
        required: [],
      }),
      responses: {
        200: compile(strict, thing),
        400: compile(strict, error),
        401: compile(strict, error),
        500: compile(strict, error),
      },
    },
  },
} as const satisfies RouteTable;

type Principal = { merchant: string };
const KEY = 'sk_test_good';
const authorization = basicAuthorization({ username: KEY, password: '' });
const authenticate: RouterOptions<Principal>['authenticate'] = (credentials) =>
  credentials?.username === KEY && credentials.password === '' ? { merchant: 'm-1' } : null;

interface Call {
  input: unknown;
  principal: Principal;
  operationId: string;
}

function setup(
  options: Partial<RouterOptions<Principal>> = {},
  answers: { createThing?: AnyHandler<Principal>; getThing?: AnyHandler<Principal> } = {},
) {
  const calls: Call[] = [];
  const record =
    (answer: unknown): AnyHandler<Principal> =>
    (input, context) => {
      calls.push({ input, principal: context.principal, operationId: context.operationId });
      return answer;
    };
  const onError = vi.fn<(error: unknown, request: Request) => void>();
  const router = createRouter(
    table,
    {
      createThing: answers.createThing ?? record({ status: 200, body: { id: 'th-1', name: 'a' } }),
      getThing:
        answers.getThing ??
        record(
          Promise.resolve({
            status: 200,
            body: { id: 'th-1', name: 'a' },
            headers: { 'x-trace': 't1', 'Content-Type': 'text/plain' },
          }),
        ),
    },
    { authenticate, onError, ...options },
  );
  return { router, calls, onError };
}

const request = (
  method: string,
  path: string,
  init: { body?: BodyInit; headers?: Record<string, string>; auth?: string | null } = {},
): Request => {
  const headers: Record<string, string> = { ...init.headers };
  const auth = init.auth === undefined ? authorization : init.auth;
  if (auth !== null) headers.authorization = auth;
  return new Request(`http://api.test${path}`, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: init.body }),
  });
};
/**
 * fetch's Request refuses a body on GET, but a server adapter can hand one over: simulate that by showing
 * a POST request as a GET (getters and methods run on the real request).
 */
const getWithBody = (body: string): Request => {
  const real = request('POST', '/things/th-1', { body });
  return new Proxy(real, {
    get(target, property) {
      if (property === 'method') return 'GET';
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};
const jsonPost = (body: unknown, headers: Record<string, string> = {}): Request =>
  request('POST', '/things', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });

async function answer(
  response: Response,
): Promise<{ status: number; body: Record<string, unknown>; contentType: string | null }> {
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    contentType: response.headers.get('content-type'),
  };
}

describe('routing', () => {
  it('an unknown path is 404 NOT_FOUND, as JSON', async () => {
    const { router } = setup();
    expect(await answer(await router(request('GET', '/nothing')))).toMatchObject({
      status: 404,
      body: { error_code: 'NOT_FOUND' },
      contentType: 'application/json',
    });
  });

  it('a known path with another method is 405 METHOD_NOT_ALLOWED with Allow', async () => {
    const { router } = setup();
    const response = await router(request('DELETE', '/things'));
    expect(response.headers.get('allow')).toBe('POST');
    expect(await answer(response)).toMatchObject({
      status: 405,
      body: { error_code: 'METHOD_NOT_ALLOWED' },
      contentType: 'application/json',
    });
  });

  it('routing happens before authentication: an unknown path without credentials is still 404', async () => {
    const { router } = setup();
    expect((await router(request('GET', '/nothing', { auth: null }))).status).toBe(404);
  });

  it('trailing slashes and percent-encoded parameters reach the handler decoded', async () => {
    const { router, calls } = setup();
    expect((await router(request('GET', '/things/th-a%20b'))).status).toBe(200);
    expect((await router(request('GET', '/things/th-c/'))).status).toBe(200);
    expect(calls.map((call) => call.input)).toEqual([
      { path: { id: 'th-a b' }, query: {} },
      { path: { id: 'th-c' }, query: {} },
    ]);
  });
});

describe('authentication', () => {
  const cases: [string, string | null][] = [
    ['no Authorization header', null],
    ['a malformed header', 'Basic ***'],
    ['another scheme', 'Bearer sk_test_good'],
    ['an unknown key', basicAuthorization({ username: 'sk_test_bad', password: '' })],
  ];
  it.each(cases)('%s: 401 INVALID_API_KEY with WWW-Authenticate, the handler never runs', async (_name, auth) => {
    const { router, calls } = setup();
    const response = await router(request('POST', '/things', { body: '{"name":"a","amount":1}', auth }));
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="payments"');
    expect(await answer(response)).toMatchObject({
      status: 401,
      body: { error_code: 'INVALID_API_KEY' },
      contentType: 'application/json',
    });
    expect(calls).toEqual([]);
  });

  it('hands the parsed credentials and the request to the hook, and the principal to the handler', async () => {
    const seen: unknown[] = [];
    const { router, calls } = setup({
      authenticate: async (credentials, req) => (seen.push([credentials, req.method]), { merchant: 'm-9' }),
    });
    await router(
      request('GET', '/things/th-1', { auth: basicAuthorization({ username: 'sk_live_x', password: 'p' }) }),
    );
    expect(seen).toEqual([[{ username: 'sk_live_x', password: 'p' }, 'GET']]);
    expect(calls[0]?.principal).toEqual({ merchant: 'm-9' });
  });

  it('passes null credentials for a missing header, so the hook decides', async () => {
    const { router } = setup({
      authenticate: (credentials) => (credentials === null ? { merchant: 'anonymous' } : null),
    });
    expect((await router(request('GET', '/things/th-1', { auth: null }))).status).toBe(200);
  });
});

describe('request bodies', () => {
  const cases: [string, { request: () => Request; status: number; body?: Record<string, unknown>; input?: unknown }][] =
    [
      [
        'JSON',
        {
          request: () => jsonPost({ name: 'a', amount: 5 }),
          status: 200,
          input: { header: {}, body: { name: 'a', amount: 5 } },
        },
      ],
      [
        'JSON with a charset parameter',
        {
          request: () =>
            request('POST', '/things', {
              body: '{"name":"a","amount":5}',
              headers: { 'content-type': 'application/json; charset=utf-8' },
            }),
          status: 200,
        },
      ],
      [
        'a body without Content-Type is read as JSON',
        {
          request: () => request('POST', '/things', { body: new TextEncoder().encode('{"name":"a","amount":5}') }),
          status: 200,
          input: { header: {}, body: { name: 'a', amount: 5 } },
        },
      ],
      [
        "a form, its values converted to the schema's types",
        {
          request: () =>
            request('POST', '/things', {
              body: 'name=a+b&amount=5&urgent=true',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            }),
          status: 200,
          input: { header: {}, body: { name: 'a b', amount: 5, urgent: true } },
        },
      ],
      ['unknown fields are ignored', { request: () => jsonPost({ name: 'a', amount: 5, colour: 'red' }), status: 200 }],
      [
        'malformed JSON: the malformed-body answer',
        {
          request: () =>
            request('POST', '/things', { body: '{"name":', headers: { 'content-type': 'application/json' } }),
          status: 400,
          body: { error_code: 'INVALID_JSON_FORMAT' },
        },
      ],
      [
        'a broken form: the malformed-body answer',
        {
          request: () =>
            request('POST', '/things', {
              body: 'name=%',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
            }),
          status: 400,
          body: { error_code: 'INVALID_JSON_FORMAT' },
        },
      ],
      [
        'bytes that are not UTF-8: the malformed-body answer',
        {
          request: () => request('POST', '/things', { body: new Uint8Array([0x7b, 0xff]) }),
          status: 400,
          body: { error_code: 'INVALID_JSON_FORMAT' },
        },
      ],
      [
        'an unsupported media type: the validation answer naming the header',
        {
          request: () => request('POST', '/things', { body: 'name=a', headers: { 'content-type': 'text/plain' } }),
          status: 400,
          body: {
            error_code: 'API_VALIDATION_ERROR',
            errors: [
              {
                location: 'header',
                path: '/content-type',
                message: 'must be one of: application/json, application/x-www-form-urlencoded',
                keyword: 'enum',
              },
            ],
          },
        },
      ],
      [
        'a missing required body: the validation answer',
        {
          request: () => request('POST', '/things'),
          status: 400,
          body: {
            error_code: 'API_VALIDATION_ERROR',
            errors: [{ location: 'body', path: '', message: 'must have a request body', keyword: 'required' }],
          },
        },
      ],
      [
        'a GET with a body that is not JSON, where the contract answers it',
        { request: () => getWithBody('not json'), status: 400, body: { error_code: 'INVALID_JSON_FORMAT' } },
      ],
      [
        'a GET with a JSON body: ignored',
        { request: () => getWithBody('{"x":1}'), status: 200, input: { path: { id: 'th-1' }, query: {} } },
      ],
    ];
  it.each(cases)('%s', async (_name, { request: make, status, body, input }) => {
    const { router, calls } = setup();
    const response = await router(make());
    const got = await answer(response);
    expect(got.status).toBe(status);
    expect(got.contentType).toBe('application/json');
    if (body) expect(got.body).toMatchObject(body);
    if (input) expect(calls[0]?.input).toEqual(input);
    if (status !== 200) expect(calls).toEqual([]);
  });

  it('a body over maxBodyBytes is 413 REQUEST_ENTITY_TOO_LARGE', async () => {
    const { router, calls } = setup({ maxBodyBytes: 32 });
    expect(await answer(await router(jsonPost({ name: 'x'.repeat(40), amount: 5 })))).toMatchObject({
      status: 413,
      body: { error_code: 'REQUEST_ENTITY_TOO_LARGE' },
      contentType: 'application/json',
    });
    expect((await router(jsonPost({ name: 'a', amount: 5 }))).status).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('the default limit is 1 MiB', async () => {
    const { router } = setup();
    expect((await router(jsonPost({ name: 'x'.repeat(1024 * 1024), amount: 5 }))).status).toBe(413);
  });

  it('a number JSON cannot carry (1e309) is a validation error naming the field, never stored as null', async () => {
    const { router, calls } = setup();
    const response = await router(
      request('POST', '/things', {
        body: '{"name":"a","amount":5,"metadata":{"big":1e309}}',
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(await answer(response)).toMatchObject({
      status: 400,
      body: {
        error_code: 'API_VALIDATION_ERROR',
        errors: [{ location: 'body', path: '/metadata/big', keyword: 'type' }],
      },
    });
    expect(calls).toEqual([]);
  });

  it('text no store keeps (a lone surrogate, U+0000), in a value or a name, JSON or form, is a validation error naming where it is', async () => {
    const { router, calls } = setup();
    const post = (body: string, type = 'application/json') =>
      router(request('POST', '/things', { body, headers: { 'content-type': type } }));
    expect(await answer(await post('{"name":"a\\ud800","amount":5}'))).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR', errors: [{ location: 'body', path: '/name', keyword: 'pattern' }] },
    });
    expect(await answer(await post('{"name":"a","amount":5,"metadata":{"k":"\\u0000"}}'))).toMatchObject({
      status: 400,
      body: { errors: [{ path: '/metadata/k', keyword: 'pattern' }] },
    });
    expect(await answer(await post('{"name":"a","amount":5,"metadata":{"\\u0000":1}}'))).toMatchObject({
      status: 400,
      body: { errors: [{ path: '/metadata', keyword: 'propertyNames' }] },
    });
    expect(await answer(await post('name=a%00&amount=5', 'application/x-www-form-urlencoded'))).toMatchObject({
      status: 400,
      body: { errors: [{ path: '/name', keyword: 'pattern' }] },
    });
    expect(calls).toEqual([]);
    // A surrogate pair is one character, and the escape written out is plain text.
    expect((await post('{"name":"\\ud83d\\ude00 \\\\u0000","amount":5}')).status).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('a body nested deeper than maxJsonDepth is a validation error, at any depth', async () => {
    const { router, calls } = setup({ maxJsonDepth: 8 });
    const deep = (levels: number): string =>
      `{"name":"a","amount":5,"extra":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    expect(
      (await router(request('POST', '/things', { body: deep(7), headers: { 'content-type': 'application/json' } })))
        .status,
    ).toBe(200);
    for (const levels of [8, 5_000, 100_000]) {
      const got = await answer(
        await router(
          request('POST', '/things', { body: deep(levels), headers: { 'content-type': 'application/json' } }),
        ),
      );
      expect(got).toMatchObject({
        status: 400,
        body: {
          error_code: 'API_VALIDATION_ERROR',
          errors: [
            {
              location: 'body',
              keyword: 'maxDepth',
              message: 'must not nest objects and arrays more than 8 levels deep',
            },
          ],
        },
      });
    }
    expect(calls).toHaveLength(1);
  });
});

describe('validation', () => {
  const cases: [string, { request: () => Request; status: number; body: Record<string, unknown> }][] = [
    [
      'a missing field and a wrong type: every violation listed, the generic code',
      {
        request: () => jsonPost({ amount: 'five' }),
        status: 400,
        body: {
          error_code: 'API_VALIDATION_ERROR',
          errors: [
            { location: 'body', path: '/name', message: "must have required property 'name'", keyword: 'required' },
            { location: 'body', path: '/amount', message: 'must be number', keyword: 'type' },
          ],
        },
      },
    ],
    [
      'a rule with its own code: that code, at the status documenting it',
      {
        request: () => jsonPost({ name: 'a', amount: 100 }),
        status: 422,
        body: {
          error_code: 'AMOUNT_TOO_HIGH',
          errors: [
            {
              location: 'body',
              path: '/amount',
              message: 'must be < 100',
              keyword: 'exclusiveMaximum',
              error_code: 'AMOUNT_TOO_HIGH',
            },
          ],
        },
      },
    ],
    [
      'a coded rule together with another rule: the generic code',
      { request: () => jsonPost({ name: '', amount: 100 }), status: 400, body: { error_code: 'API_VALIDATION_ERROR' } },
    ],
    [
      'headers are matched case-insensitively and validated by lower-case name',
      {
        request: () => jsonPost({ name: 'a', amount: 1 }, { 'IDEMPOTENCY-KEY': 'too-long' }),
        status: 400,
        body: {
          errors: [
            {
              location: 'header',
              path: '/idempotency-key',
              message: 'must NOT have more than 5 characters',
              keyword: 'maxLength',
            },
          ],
        },
      },
    ],
    [
      'a path parameter',
      {
        request: () => request('GET', '/things/x-1'),
        status: 400,
        body: { errors: [{ location: 'path', path: '/id', message: 'must match pattern "^th-"', keyword: 'pattern' }] },
      },
    ],
    [
      'a query parameter that does not convert',
      {
        request: () => request('GET', '/things/th-1?limit=many'),
        status: 400,
        body: { errors: [{ location: 'query', path: '/limit', message: 'must be integer', keyword: 'type' }] },
      },
    ],
  ];
  it.each(cases)('%s', async (_name, { request: make, status, body }) => {
    const { router, calls } = setup();
    const got = await answer(await router(make()));
    expect(got).toMatchObject({ status, body, contentType: 'application/json' });
    expect(calls).toEqual([]);
  });

  it('query values are converted to their types and unknown parameters are dropped', async () => {
    const { router, calls } = setup();
    await router(request('GET', '/things/th-1?verbose=true&limit=3&colour=red'));
    expect(calls[0]?.input).toEqual({ path: { id: 'th-1' }, query: { verbose: true, limit: 3 } });
  });

  it('header parameters reach the handler under their lower-case names', async () => {
    const { router, calls } = setup();
    await router(jsonPost({ name: 'a', amount: 1 }, { 'Idempotency-Key': 'k1' }));
    expect(calls[0]?.input).toEqual({ header: { 'idempotency-key': 'k1' }, body: { name: 'a', amount: 1 } });
  });
});

describe('handler responses', () => {
  it("are sent as JSON with the handler's headers, Content-Type forced to JSON", async () => {
    const { router } = setup();
    const response = await router(request('GET', '/things/th-1'));
    expect(response.headers.get('x-trace')).toBe('t1');
    expect(await answer(response)).toEqual({
      status: 200,
      body: { id: 'th-1', name: 'a' },
      contentType: 'application/json',
    });
  });

  it('a thrown error is 500 SERVER_ERROR without internals, reported to onError', async () => {
    const failure = new Error('db password is hunter2');
    const { router, onError } = setup({}, { getThing: () => Promise.reject(failure) });
    const req = request('GET', '/things/th-1');
    const got = await answer(await router(req));
    expect(got).toMatchObject({ status: 500, body: { error_code: 'SERVER_ERROR' }, contentType: 'application/json' });
    expect(JSON.stringify(got.body)).not.toContain('hunter2');
    expect(onError).toHaveBeenCalledWith(failure, req);
  });

  it('an answer given at once, as a promise or as another thenable is sent alike', async () => {
    const thing = { status: 200, body: { id: 'th-1', name: 'a' } };
    const thenable = { then: (resolve: (value: unknown) => void) => resolve(thing) };
    for (const given of [thing, Promise.resolve(thing), thenable]) {
      const { router } = setup({}, { getThing: () => given });
      expect(await answer(await router(request('GET', '/things/th-1')))).toEqual({
        status: 200,
        body: thing.body,
        contentType: 'application/json',
      });
    }
  });

  it('the context gives the principal, the operationId and, to a handler reading it, the request', async () => {
    let seen: { principal: unknown; operationId: string; url: string; method: string } | undefined;
    const { router } = setup(
      {},
      {
        getThing: (_input, context) => {
          seen = {
            principal: context.principal,
            operationId: context.operationId,
            url: context.request.url,
            method: context.request.method,
          };
          return { status: 200, body: { id: 'th-1', name: 'a' } };
        },
      },
    );
    expect((await router(request('GET', '/things/th-1?verbose=true'))).status).toBe(200);
    expect(seen).toEqual({
      principal: { merchant: 'm-1' },
      operationId: 'getThing',
      url: 'http://api.test/things/th-1?verbose=true',
      method: 'GET',
    });
  });

  it('a failing authenticate hook is a 500 as well', async () => {
    const { router, onError } = setup({ authenticate: () => Promise.reject(new Error('key store down')) });
    expect((await router(request('GET', '/things/th-1'))).status).toBe(500);
    expect(onError).toHaveBeenCalledOnce();
  });

  it('a throwing onError does not break the answer', async () => {
    const { router } = setup(
      {
        onError: () => {
          throw new Error('logger down');
        },
      },
      {
        getThing: () => {
          throw new Error('boom');
        },
      },
    );
    expect((await router(request('GET', '/things/th-1'))).status).toBe(500);
  });

  it('an undocumented status is 500, reported as a ResponseContractError', async () => {
    const { router, onError } = setup({}, { getThing: () => ({ status: 201, body: { id: 'th-1', name: 'a' } }) });
    expect((await router(request('GET', '/things/th-1'))).status).toBe(500);
    expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(ResponseContractError);
  });

  it('something that is not a response at all is 500', async () => {
    const { router, onError } = setup({}, { getThing: () => 'ok' });
    expect((await router(request('GET', '/things/th-1'))).status).toBe(500);
    expect(onError).toHaveBeenCalledOnce();
  });

  it('with validateResponses, a body breaking its schema is 500 and reported with the violations', async () => {
    const { router, onError } = setup(
      { validateResponses: true },
      { getThing: () => ({ status: 200, body: { id: 7 } }) },
    );
    const got = await answer(await router(request('GET', '/things/th-1')));
    expect(got).toMatchObject({ status: 500, body: { error_code: 'SERVER_ERROR' } });
    const reported = onError.mock.calls[0]?.[0];
    expect(reported).toBeInstanceOf(ResponseContractError);
    expect((reported as ResponseContractError).issues.map((issue) => [issue.path, issue.keyword])).toEqual([
      ['/name', 'required'],
      ['/id', 'type'],
    ]);
  });

  it('without validateResponses, the same body is sent as it is', async () => {
    const { router } = setup({}, { getThing: () => ({ status: 200, body: { id: 7 } }) });
    expect(await answer(await router(request('GET', '/things/th-1')))).toMatchObject({ status: 200, body: { id: 7 } });
  });
});

describe('around: what runs around a request once its caller is known', () => {
  it('sees the caller and the operation before the body is read, and may answer instead of the operation', async () => {
    const seen: string[] = [];
    const { router, calls } = setup({
      around: async ({ principal, operationId }) => {
        seen.push(`${principal.merchant} ${operationId}`);
        return {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '1' },
          body: JSON.stringify({ error_code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' }),
        };
      },
    });
    // A body that is not even JSON: the answer comes before anything reads it.
    const response = await router(
      request('POST', '/things', { body: '{', headers: { 'content-type': 'application/json' } }),
    );
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(seen).toEqual(['m-1 createThing']);
    expect(calls).toEqual([]);
  });

  it('may let the operation run and add to its answer, validation answers included', async () => {
    const { router, calls } = setup({
      around: async (_call, next) => {
        const answered = await next();
        return { ...answered, headers: { ...answered.headers, 'ratelimit-remaining': '9' } };
      },
    });
    const created = await router(jsonPost({ name: 'a', amount: 1 }));
    expect(created.status).toBe(200);
    expect(created.headers.get('ratelimit-remaining')).toBe('9');
    const refused = await router(jsonPost({ name: 'a' }));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('ratelimit-remaining')).toBe('9');
    expect(calls).toHaveLength(1);
  });

  it('does not run for a request without a known caller (401) or without an operation (404)', async () => {
    const around = vi.fn<NonNullable<RouterOptions<Principal>['around']>>((_call, next) => next());
    const { router } = setup({ around });
    expect((await router(request('GET', '/things/th-1', { auth: null }))).status).toBe(401);
    expect((await router(request('GET', '/nothing'))).status).toBe(404);
    expect(around).not.toHaveBeenCalled();
  });

  it('a throw in it is the generic 500, reported', async () => {
    const { router, onError } = setup({ around: () => Promise.reject(new Error('limiter broke')) });
    const response = await router(request('GET', '/things/th-1'));
    expect(await answer(response)).toMatchObject({ status: 500, body: { error_code: 'SERVER_ERROR' } });
    expect(onError).toHaveBeenCalledOnce();
  });
});
