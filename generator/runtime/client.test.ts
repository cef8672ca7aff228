import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  bodyEncoding,
  createApiClient,
  encodeForm,
  FORM_MEDIA_TYPE,
  MalformedResponseError,
  settle,
  secretKeyAuthorization,
  type OperationResult,
} from './client.js';

// A two-status operation in the shape openapi-typescript writes, so the runtime is tested on its own.
interface GetThing {
  parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
  requestBody?: never;
  responses: {
    200: { headers: { [name: string]: unknown }; content: { 'application/json': { id: string } } };
    404: {
      headers: { [name: string]: unknown };
      content: { 'application/json': { error_code: 'THING_NOT_FOUND'; message: string } };
    };
  };
}
interface Paths {
  '/things/{id}': { parameters: { query?: never; header?: never; path?: never; cookie?: never }; get: GetThing };
}

const BASE_URL = 'https://payments.test';

/** A client whose every request is answered by `answer`, and the requests it sent. */
function clientAnswering(answer: (request: Request) => Response | Promise<Response>) {
  const requests: Request[] = [];
  const client = createApiClient<Paths>({
    baseUrl: BASE_URL,
    secretKey: 'sk_test_123',
    fetch: async (request) => {
      requests.push(request);
      return answer(request);
    },
  });
  const getThing = (id: string) =>
    settle<GetThing>(client.GET('/things/{id}', { params: { path: { id } }, parseAs: 'text' }), [200, 404]);
  return { getThing, requests };
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const text = (status: number, body: string, type = 'text/html'): Response =>
  new Response(body, { status, headers: { 'Content-Type': type } });

describe('secretKeyAuthorization', () => {
  const cases: [string, string, string][] = [
    ['a test key', 'sk_test_123', `Basic ${Buffer.from('sk_test_123:').toString('base64')}`],
    ['a key outside ASCII, as UTF-8', 'sk_tést', `Basic ${Buffer.from('sk_tést:', 'utf8').toString('base64')}`],
  ];
  it.each(cases)('encodes %s as the user name with an empty password', (_name, key, want) => {
    expect(secretKeyAuthorization(key)).toBe(want);
  });

  it.each([[''], ['sk:test']])('refuses %j, which Basic auth cannot carry', (key) => {
    expect(() => secretKeyAuthorization(key)).toThrow(TypeError);
  });
});

describe('encodeForm', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['text, escaped', { name: 'Budi & Sons', note: 'a=b' }, 'name=Budi+%26+Sons&note=a%3Db'],
    ['numbers and booleans as text', { amount: 10000, is_closed: false }, 'amount=10000&is_closed=false'],
    ['undefined and null left out (null means "not given")', { a: 'x', b: undefined, c: null }, 'a=x'],
  ];
  it.each(cases)('writes %s', (_name, body, want) => {
    expect(encodeForm(body)).toBe(want);
  });

  it.each([
    ['a nested object', { customer: { name: 'x' } }],
    ['an array', { emails: ['a@b.c'] }],
    ['a body that is not an object', 'name=x'],
  ])('refuses %s, which has no form encoding in the contract', (_name, body) => {
    expect(() => encodeForm(body)).toThrow(TypeError);
  });
});

describe('bodyEncoding', () => {
  it('leaves JSON to openapi-fetch and switches serializer and Content-Type for forms', () => {
    expect(bodyEncoding(undefined)).toEqual({});
    expect(bodyEncoding('json')).toEqual({});
    expect(bodyEncoding('form')).toEqual({ bodySerializer: encodeForm, headers: { 'Content-Type': FORM_MEDIA_TYPE } });
  });
});

describe('createApiClient', () => {
  it('sends Authorization: Basic base64(key:) on every request', async () => {
    const { getThing, requests } = clientAnswering(() => json(200, { id: 'a' }));
    await getThing('a');
    await getThing('b');
    expect(requests.map((request) => request.headers.get('authorization'))).toEqual([
      'Basic c2tfdGVzdF8xMjM6',
      'Basic c2tfdGVzdF8xMjM6',
    ]);
  });

  it('lets a network failure reject, as fetch does', async () => {
    const failure = new TypeError('fetch failed');
    const { getThing } = clientAnswering(() => Promise.reject(failure));
    await expect(getThing('a')).rejects.toBe(failure);
  });
});

describe('settle', () => {
  // [name, the service's answer, the result wanted]
  const cases: [string, Response, { ok: boolean; status: number; data?: unknown; error?: unknown }][] = [
    [
      'a documented success gives ok and the parsed body',
      json(200, { id: 'a' }),
      { ok: true, status: 200, data: { id: 'a' } },
    ],
    [
      'a documented error gives its status and body',
      json(404, { error_code: 'THING_NOT_FOUND', message: 'no' }),
      { ok: false, status: 404, error: { error_code: 'THING_NOT_FOUND', message: 'no' } },
    ],
    [
      'an undocumented status with a JSON body',
      json(418, { teapot: true }),
      { ok: false, status: 418, error: { teapot: true } },
    ],
    [
      'an undocumented status with a text body',
      text(502, 'Bad gateway'),
      { ok: false, status: 502, error: 'Bad gateway' },
    ],
    [
      'an undocumented success status is not ok',
      json(201, { id: 'a' }),
      { ok: false, status: 201, error: { id: 'a' } },
    ],
  ];
  it.each(cases)('%s', async (_name, response, want) => {
    const { getThing } = clientAnswering(() => response);
    const result = await getThing('a');
    expect(result).toMatchObject(want);
    expect(result.response.status).toBe(want.status);
  });

  it.each([
    ['a documented success whose body is not JSON', text(200, '<html>ok</html>')],
    ['a documented success without a body', new Response(null, { status: 200 })],
    ['a documented error whose body is not JSON', text(404, '<html>not found</html>')],
    ['a documented error whose JSON is not an object', text(404, '"not found"', 'application/json')],
  ])('throws MalformedResponseError for %s', async (_name, response) => {
    const { getThing } = clientAnswering(() => response);
    const error: unknown = await getThing('a').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as MalformedResponseError).response.status).toBe(response.status);
  });

  it('types each documented status with its own body, and the rest as unexpected', async () => {
    const { getThing } = clientAnswering(() => json(404, { error_code: 'THING_NOT_FOUND', message: 'no' }));
    const result: OperationResult<GetThing> = await getThing('a');
    if (result.ok) expectTypeOf(result.data).toEqualTypeOf<{ id: string }>();
    else if (result.status === 404) expectTypeOf(result.error.error_code).toEqualTypeOf<'THING_NOT_FOUND'>();
    else {
      expectTypeOf(result.error).toEqualTypeOf<unknown>();
      // @ts-expect-error the documented statuses are excluded from an unexpected response's status
      expectTypeOf(result.status).toEqualTypeOf<404>();
    }
    expect(result.ok).toBe(false);
  });
});

// A rate-limited read: its 200 declares the RateLimit fields, its 429 requires Retry-After.
interface ListThings {
  parameters: { query?: never; header?: never; path?: never; cookie?: never };
  requestBody?: never;
  responses: {
    200: {
      headers: { 'RateLimit-Remaining'?: number; [name: string]: unknown };
      content: { 'application/json': { id: string }[] };
    };
    429: {
      headers: { 'Retry-After': number; 'RateLimit-Remaining': number; [name: string]: unknown };
      content: { 'application/json': { error_code: 'RATE_LIMIT_EXCEEDED'; message: string } };
    };
  };
}
interface LimitedPaths {
  '/things': { parameters: { query?: never; header?: never; path?: never; cookie?: never }; get: ListThings };
}
const LIST_HEADERS = {
  200: { 'RateLimit-Remaining': { required: false, numeric: true } },
  429: { 'Retry-After': { required: true, numeric: true }, 'RateLimit-Remaining': { required: true, numeric: true } },
};

function limitedClient(answer: () => Response) {
  const client = createApiClient<LimitedPaths>({
    baseUrl: BASE_URL,
    secretKey: 'sk_test_123',
    fetch: async () => answer(),
  });
  return () => settle<ListThings>(client.GET('/things', { parseAs: 'text' }), [200, 429], LIST_HEADERS);
}
const withHeaders = (response: Response, headers: Record<string, string>): Response => {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
};

describe('declared response headers', () => {
  it('a 429 gives its Retry-After in seconds, as a number its type promises', async () => {
    const list = limitedClient(() =>
      withHeaders(json(429, { error_code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' }), {
        'retry-after': '2',
        'ratelimit-remaining': '0',
      }),
    );
    const result = await list();
    if (result.status !== 429) throw new Error(`expected the 429, got ${result.status}`);
    expectTypeOf(result.headers['Retry-After']).toEqualTypeOf<number>();
    expect(result.headers).toEqual({ 'Retry-After': 2, 'RateLimit-Remaining': 0 });
  });

  it('a success gives the declared headers it carries, and leaves out the optional ones it does not', async () => {
    const carried = await limitedClient(() => withHeaders(json(200, []), { 'ratelimit-remaining': '41' }))();
    if (!carried.ok) throw new Error('expected the 200');
    expectTypeOf(carried.headers['RateLimit-Remaining']).toEqualTypeOf<number | undefined>();
    expect(carried.headers).toEqual({ 'RateLimit-Remaining': 41 });
    const bare = await limitedClient(() => json(200, []))();
    expect(bare.ok && bare.headers).toEqual({});
  });

  it('a 429 without the Retry-After the contract requires, or with one that is not a number, is malformed', async () => {
    const missing = limitedClient(() =>
      withHeaders(json(429, { error_code: 'RATE_LIMIT_EXCEEDED', message: 'x' }), { 'ratelimit-remaining': '0' }),
    );
    await expect(missing()).rejects.toThrow(/requires its Retry-After header/);
    const dated = limitedClient(() =>
      withHeaders(json(429, { error_code: 'RATE_LIMIT_EXCEEDED', message: 'x' }), {
        'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT',
        'ratelimit-remaining': '0',
      }),
    );
    await expect(dated()).rejects.toBeInstanceOf(MalformedResponseError);
  });
});
