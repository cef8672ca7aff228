import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCodesOf, readModel } from './read-model.js';
import type { JsonObject, OperationModel } from './types.js';

const fixture = JSON.parse(
  readFileSync(new URL('../tests/fixtures/mini-contract.json', import.meta.url), 'utf8'),
) as JsonObject;
const model = readModel(fixture);
const operation = (id: string): OperationModel => {
  const found = model.operations.find((o) => o.operationId === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

describe('readModel', () => {
  it('reads title, version and the operations in document order', () => {
    expect([model.title, model.version]).toEqual(['Mini', '0.0.1']);
    expect(model.operations.map((o) => [o.operationId, o.method, o.path])).toEqual([
      ['createThing', 'post', '/things'],
      ['getThing', 'get', '/things/{id}/'],
    ]);
  });

  const cases: [string, { given: (m: typeof model) => unknown; want: unknown }][] = [
    [
      'path-level parameters are merged into the operation',
      {
        given: () => operation('getThing').parameters.map((p) => [p.in, p.name, p.required]),
        want: [
          ['path', 'id', true],
          ['query', 'verbose', false],
        ],
      },
    ],
    [
      'header parameters keep their written name',
      { given: () => operation('createThing').parameters.map((p) => p.name), want: ['Idempotency-key'] },
    ],
    [
      'the body lists its media types, JSON first',
      {
        given: () => operation('createThing').body?.mediaTypes,
        want: ['application/json', 'application/x-www-form-urlencoded'],
      },
    ],
    ['a required body is marked required', { given: () => operation('createThing').body?.required, want: true }],
    ['an operation without a body has none', { given: () => operation('getThing').body, want: undefined }],
    [
      'responses are sorted by status with their error codes',
      {
        given: () => operation('createThing').responses.map((r) => [r.status, r.errorCodes]),
        want: [
          [200, []],
          [400, ['API_VALIDATION_ERROR', 'INVALID_JSON_FORMAT', 'AMOUNT_TOO_HIGH', 'DUPLICATE_ERROR']],
        ],
      },
    ],
    ['response headers are listed', { given: () => operation('getThing').responses[0]?.headers, want: ['X-Trace'] }],
    [
      'each response header carries whether it is required, whether it is a number, and its schema',
      {
        given: () => operation('getThing').responses[0]?.headerFields,
        want: [{ name: 'X-Trace', required: false, numeric: false, schema: { type: 'string' } }],
      },
    ],
    [
      'x-validation-error and x-malformed-body-error are read',
      {
        given: () => [operation('createThing').validationError, operation('createThing').malformedBodyError],
        want: [
          { status: 400, error_code: 'API_VALIDATION_ERROR' },
          { status: 400, error_code: 'INVALID_JSON_FORMAT' },
        ],
      },
    ],
    [
      'an operation without x-malformed-body-error has none',
      { given: () => operation('getThing').malformedBodyError, want: undefined },
    ],
    [
      'x-error-triggers are keyed by code',
      { given: () => Object.keys(operation('createThing').errorTriggers), want: ['DUPLICATE_ERROR'] },
    ],
    [
      'operations point into the bundled document',
      { given: () => operation('getThing').pointer, want: '#/paths/~1things~1{id}~1/get' },
    ],
    [
      'webhooks carry their token header (lower case) and delivery rules',
      {
        given: (m) => m.webhooks.map((w) => [w.name, w.operationId, w.tokenHeader, w.delivery.attempts]),
        want: [['thing.changed', 'thingChanged', 'x-callback-token', 3]],
      },
    ],
    [
      'component schemas are kept for reference resolution',
      { given: (m) => Object.keys(m.componentSchemas), want: ['Error', 'CreateThing', 'Thing'] },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(given(model)).toEqual(want);
  });

  it('finds error codes through allOf and references', () => {
    expect(
      errorCodesOf(fixture, {
        allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error_code: { enum: ['A', 'B'] } } }],
      }),
    ).toEqual(['A', 'B']);
    expect(errorCodesOf(fixture, { $ref: '#/components/schemas/Thing' })).toEqual([]);
  });

  it('refuses what it cannot represent instead of guessing', () => {
    const withCookie = structuredClone(fixture);
    ((((withCookie.paths as JsonObject)['/things'] as JsonObject).post as JsonObject).parameters as JsonObject[]).push({
      name: 'c',
      in: 'cookie',
      schema: { type: 'string' },
    });
    expect(() => readModel(withCookie)).toThrow(/cookie are not supported/);
    const withXml = structuredClone(fixture);
    const body = (((withXml.paths as JsonObject)['/things'] as JsonObject).post as JsonObject)
      .requestBody as JsonObject;
    body.content = { 'application/xml': { schema: { type: 'string' } } };
    expect(() => readModel(withXml)).toThrow(/unsupported request media types/);
  });
});

describe('readModel: rate limits', () => {
  /** The fixture with `x-rate-limits` at its root and createThing naming `group`. */
  const limited = (groups: unknown, group: unknown): JsonObject => {
    const doc = structuredClone(fixture) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    } & JsonObject;
    const post = doc.paths['/things']?.post;
    if (!post) throw new Error('the fixture has POST /things');
    post['x-rate-limit'] = group;
    return { ...doc, 'x-rate-limits': groups } as JsonObject;
  };
  const groups = {
    read: { limit: 100, window_seconds: 1, description: 'reads' },
    write: { limit: 50, window_seconds: 1, description: 'writes' },
  };
  const readOperation = (doc: JsonObject, id: string) => readModel(doc).operations.find((o) => o.operationId === id);

  it('gives an operation the group its x-rate-limit names, with the root’s limit and window; none to one without', () => {
    const doc = limited(groups, 'write');
    expect(readOperation(doc, 'createThing')?.rateLimit).toEqual({ group: 'write', limit: 50, windowSeconds: 1 });
    expect(readOperation(doc, 'getThing')?.rateLimit).toBeUndefined();
  });

  it('refuses a group the root does not define, or one without a whole limit and window of at least 1', () => {
    expect(() => readModel(limited(groups, 'burst'))).toThrow(
      /POST \/things: x-rate-limit "burst" is not a group of x-rate-limits/,
    );
    expect(() => readModel(limited(undefined, 'read'))).toThrow(/"read" is not a group/);
    expect(() => readModel(limited({ read: { limit: 0, window_seconds: 1 } }, 'read'))).toThrow(
      /x-rate-limits.read needs a whole limit/,
    );
    expect(() => readModel(limited({ read: { limit: 1.5, window_seconds: 1 } }, 'read'))).toThrow(
      /x-rate-limits.read needs a whole limit/,
    );
  });

  it('reads what one count belongs to (scope), and refuses a dimension it does not know', () => {
    const scoped = { write: { limit: 50, window_seconds: 1, scope: ['merchant', 'mode'], description: 'writes' } };
    expect(readOperation(limited(scoped, 'write'), 'createThing')?.rateLimit).toEqual({
      group: 'write',
      limit: 50,
      windowSeconds: 1,
      scope: ['merchant', 'mode'],
    });
    expect(() => readModel(limited({ write: { ...scoped.write, scope: ['merchant', 'region'] } }, 'write'))).toThrow(
      /x-rate-limits.write.scope: expected a list of merchant, mode, operation/,
    );
  });
});

describe('readModel: idempotency', () => {
  /** The fixture with createThing's `x-idempotency` set to `value`. */
  const keyed = (value: unknown): JsonObject => {
    const doc = structuredClone(fixture) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    } & JsonObject;
    const post = doc.paths['/things']?.post;
    if (!post) throw new Error('the fixture has POST /things');
    post['x-idempotency'] = value;
    return doc;
  };
  const declared = {
    header: 'Idempotency-key',
    scope: ['merchant', 'mode', 'operation'],
    lifetime_seconds: 86400,
    comparison: 'exact',
    remembered_refusals: ['AMOUNT_TOO_HIGH'],
  };

  it('gives the operation its key header, scope, lifetime, comparison and remembered refusals; none to one without', () => {
    const model = readModel(keyed(declared));
    expect(model.operations.find((o) => o.operationId === 'createThing')?.idempotency).toEqual({
      header: 'Idempotency-key',
      scope: ['merchant', 'mode', 'operation'],
      lifetimeSeconds: 86400,
      comparison: 'exact',
      rememberedRefusals: ['AMOUNT_TOO_HIGH'],
    });
    expect(model.operations.find((o) => o.operationId === 'getThing')?.idempotency).toBeUndefined();
  });

  it('refuses a header the operation does not take, an unknown scope, a lifetime that is not whole seconds or another comparison', () => {
    expect(() => readModel(keyed({ ...declared, header: 'X-Key' }))).toThrow(
      /X-Key is not a header parameter of the operation/,
    );
    expect(() => readModel(keyed({ ...declared, scope: ['tenant'] }))).toThrow(/x-idempotency.scope: expected a list/);
    expect(() => readModel(keyed({ ...declared, lifetime_seconds: 0.5 }))).toThrow(
      /lifetime_seconds: expected a whole number/,
    );
    expect(() => readModel(keyed({ ...declared, comparison: 'case-insensitive' }))).toThrow(
      /comparison: expected exact/,
    );
  });
});

describe('readModel: time-bound fields and the examples’ reference time', () => {
  /** The fixture with `when` refused in the past on createThing, and a machine whose `ends.at` ends a thing. */
  const timed = (extra: JsonObject = {}): JsonObject => {
    const doc = structuredClone(fixture) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, Record<string, Record<string, unknown>>> };
    } & JsonObject;
    const post = doc.paths['/things']?.post;
    const schema = doc.components.schemas.CreateThing;
    if (!post || !schema?.properties) throw new Error('the fixture has POST /things and CreateThing');
    post['x-error-triggers'] = {
      WHEN_PAST: { when: 'past_timestamp', field: 'when', description: 'when is in the past.' },
    };
    schema.properties.ends = { allOf: [{ type: 'object', properties: { at: { type: 'string' } } }] };
    const machine = {
      resource: 'Thing',
      field: 'status',
      states: ['A', 'B'],
      initial: 'A',
      transitions: [
        { from: 'A', trigger: { time: 'ends.at' }, to: 'B' },
        { from: 'A', trigger: { time: 'gone' }, to: 'B' },
      ],
    };
    return { ...doc, 'x-state-machines': { thing: machine }, ...extra } as JsonObject;
  };
  const timeBound = (doc: JsonObject, id: string) =>
    readModel(doc).operations.find((o) => o.operationId === id)?.timeBound;

  it('lists a past_timestamp trigger’s field as refused in the past, and a machine’s time field the body declares as deciding by its side of now', () => {
    expect(timeBound(timed(), 'createThing')).toEqual([
      { field: 'when', pastRefused: true },
      { field: 'ends.at', pastRefused: false },
    ]);
  });

  it('lists none for an operation without a body or without those rules', () => {
    expect(timeBound(timed(), 'getThing')).toEqual([]);
    expect(operation('createThing').timeBound).toEqual([]);
  });

  it('reads x-examples-reference-time, and refuses one that is not an ISO 8601 time in UTC', () => {
    expect(readModel(timed({ 'x-examples-reference-time': '2026-11-21T09:30:00.000Z' })).examplesReferenceTime).toBe(
      '2026-11-21T09:30:00.000Z',
    );
    expect(model.examplesReferenceTime).toBeUndefined();
    for (const wrong of ['2026-11-21', '2026-11-21T09:30:00+07:00', 1_700_000_000_000]) {
      expect(() => readModel(timed({ 'x-examples-reference-time': wrong }))).toThrow(
        /x-examples-reference-time .* is not an ISO 8601 time in UTC/,
      );
    }
  });
});
