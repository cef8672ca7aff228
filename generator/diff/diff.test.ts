// One pair of small contracts per rule: a base contract, one change to it, and the findings it must
// give (rule, party, severity). Then the changes a generic OpenAPI diff cannot see, by name: the two
// contracts are the same once the vendor extensions are set aside, and the check still reports them.
import { describe, expect, it } from 'vitest';
import type { Json, JsonObject } from '@payments-contract/model/types';
import { diffContracts } from './diff.js';
import { twentyChanges } from './measure.js';
import { formatJson, formatMarkdown, formatText, groupByChange } from './format.js';
import { readReleases } from '../releases/releases.js';

type Doc = JsonObject & {
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject> } & JsonObject;
};

const base = (): Doc =>
  structuredClone({
    openapi: '3.1.0',
    info: { title: 'Tiny', version: '1.0.0' },
    security: [{ key: [] }],
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          parameters: [
            { in: 'header', name: 'Idempotency-Key', required: false, schema: { type: 'string', maxLength: 100 } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThing' } } },
          },
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
            '400': {
              description: 'bad',
              content: {
                'application/json': {
                  schema: {
                    allOf: [
                      { $ref: '#/components/schemas/Error' },
                      { properties: { error_code: { enum: ['API_VALIDATION_ERROR', 'AMOUNT_TOO_HIGH'] } } },
                    ],
                  },
                },
              },
            },
          },
          'x-validation-error': { status: 400, error_code: 'API_VALIDATION_ERROR' },
          'x-malformed-body-error': { status: 400, error_code: 'API_VALIDATION_ERROR' },
          'x-error-triggers': {
            DUPLICATE_ERROR: {
              when: 'duplicate',
              fields: ['external_id'],
              description: 'The external_id was used before.',
            },
          },
          'x-test-mode': {
            description: 'The amount selects the outcome.',
            field: 'amount',
            default_outcome: { status: 'DONE' },
            outcomes: [{ amount: 666, status: 'FAILED', failure_code: 'DECLINED' }],
          },
        },
      },
      '/things/{id}': {
        get: {
          operationId: 'getThing',
          parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
          },
        },
      },
    },
    webhooks: {
      'thing.done': {
        post: {
          operationId: 'thingDone',
          security: [{ token: [] }],
          parameters: [{ in: 'header', name: 'x-callback-token', required: true, schema: { type: 'string' } }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingCallback' } } },
          },
          responses: { '200': { description: 'ok' } },
          'x-delivery': {
            destination: { dashboard_setting: 'thing_url' },
            acknowledgement: '2xx',
            attempts: 3,
            retry_interval_seconds: 30,
            guarantee: 'at-least-once',
            ordering: 'none',
            after_final_failure: 'alert',
          },
        },
      },
    },
    components: {
      securitySchemes: {
        key: { type: 'http', scheme: 'basic' },
        token: { type: 'apiKey', in: 'header', name: 'x-callback-token' },
      },
      schemas: {
        CreateThing: {
          type: 'object',
          required: ['external_id', 'amount'],
          properties: {
            external_id: { type: 'string', minLength: 1, maxLength: 1000 },
            amount: { type: 'integer', minimum: 1, maximum: 1000, 'x-error-codes': { maximum: 'AMOUNT_TOO_HIGH' } },
            channel: { type: 'string', enum: ['A', 'B'] },
          },
        },
        Thing: {
          type: 'object',
          required: ['id', 'status', 'amount'],
          properties: {
            id: { type: 'string' },
            status: { type: 'string', enum: ['PENDING', 'DONE', 'FAILED'] },
            amount: { type: 'integer' },
            note: { type: 'string' },
          },
        },
        ThingCallback: {
          type: 'object',
          required: ['id', 'status'],
          properties: {
            id: { type: 'string' },
            status: { type: 'string', enum: ['DONE', 'FAILED'] },
            failure_code: { type: 'string' },
          },
        },
        Error: {
          type: 'object',
          required: ['error_code', 'message'],
          properties: { error_code: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
    'x-state-machines': {
      thing: {
        resource: 'Thing',
        field: 'status',
        states: ['PENDING', 'DONE', 'FAILED'],
        initial: 'PENDING',
        final: ['DONE', 'FAILED'],
        transitions: [
          { from: null, trigger: { operation: 'createThing' }, to: 'PENDING' },
          { from: 'PENDING', trigger: { event: 'settled' }, to: 'DONE', effects: [{ callback: 'thingDone' }] },
          { from: 'PENDING', trigger: { event: 'declined' }, to: 'FAILED', effects: [{ callback: 'thingDone' }] },
        ],
      },
    },
    'x-decisions': [
      {
        id: 'ids-are-strings',
        topic: 'Identifiers',
        quote: 'ids are opaque strings',
        decision: 'Every id is an opaque string of at most 64 characters.',
        where: ['#/components/schemas/Thing'],
      },
    ],
  }) as unknown as Doc;

const post = (doc: Doc): JsonObject => doc.paths['/things']!.post!;
const schema = (doc: Doc, name: string): JsonObject => doc.components.schemas[name]!;
const props = (doc: Doc, name: string): Record<string, JsonObject> =>
  schema(doc, name).properties as Record<string, JsonObject>;
const hook = (doc: Doc): JsonObject => ((doc.webhooks as JsonObject)['thing.done'] as JsonObject).post as JsonObject;
const machine = (doc: Doc): JsonObject & { transitions: JsonObject[]; states: string[] } =>
  (doc['x-state-machines'] as JsonObject).thing as JsonObject & { transitions: JsonObject[]; states: string[] };

/** The findings of `change` applied to the base, as `rule party severity` lines. */
function verdicts(change: (doc: Doc) => void): string[] {
  const changed = base();
  change(changed);
  return diffContracts(base(), changed)
    .findings.map((finding) => `${finding.rule} ${finding.party} ${finding.severity}`)
    .sort();
}

/** Thing is the 200 body of both createThing and getThing: a change to it is reported for each operation. */
const inBothOperations = (...lines: string[]): string[] => [...lines, ...lines];

const CASES: [string, (doc: Doc) => void, string[]][] = [
  // operations
  [
    'an operation removed',
    (doc) => delete doc.paths['/things/{id}'],
    ['operation-removed client breaking', 'operation-removed server non-breaking'],
  ],
  [
    'an operation added',
    (doc) =>
      (doc.paths['/things/{id}']!.delete = { operationId: 'deleteThing', responses: { '200': { description: 'ok' } } }),
    ['operation-added client non-breaking', 'operation-added server breaking'],
  ],
  [
    'an operation moved to another path',
    (doc) => {
      doc.paths['/items/{id}'] = doc.paths['/things/{id}']!;
      delete doc.paths['/things/{id}'];
    },
    ['operation-moved client breaking', 'operation-moved server breaking'],
  ],
  [
    'an operationId renamed',
    (doc) => (doc.paths['/things/{id}']!.get!.operationId = 'readThing'),
    ['operation-id-changed client potentially-breaking', 'operation-id-changed server breaking'],
  ],
  // parameters
  [
    'a required parameter added',
    (doc) =>
      (post(doc).parameters as Json[]).push({ in: 'query', name: 'mode', required: true, schema: { type: 'string' } }),
    ['required-parameter-added client breaking', 'required-parameter-added server potentially-breaking'],
  ],
  [
    'an optional parameter added',
    (doc) => (post(doc).parameters as Json[]).push({ in: 'query', name: 'mode', schema: { type: 'string' } }),
    ['optional-parameter-added client non-breaking', 'optional-parameter-added server breaking'],
  ],
  [
    'a parameter removed',
    (doc) => (post(doc).parameters = []),
    ['parameter-removed client breaking', 'parameter-removed server non-breaking'],
  ],
  [
    'a parameter made required',
    (doc) => ((post(doc).parameters as JsonObject[])[0]!.required = true),
    ['parameter-became-required client breaking', 'parameter-became-required server potentially-breaking'],
  ],
  [
    'a parameter bound tightened (header names compared case-insensitively)',
    (doc) =>
      ((post(doc).parameters as JsonObject[])[0] = {
        in: 'header',
        name: 'idempotency-key',
        schema: { type: 'string', maxLength: 50 },
      }),
    ['request-max-length-decreased client breaking', 'request-max-length-decreased server potentially-breaking'],
  ],
  // request bodies
  [
    'a required request field added',
    (doc) => {
      props(doc, 'CreateThing').currency = { type: 'string' };
      (schema(doc, 'CreateThing').required as string[]).push('currency');
    },
    ['request-required-property-added client breaking', 'request-required-property-added server potentially-breaking'],
  ],
  [
    'an optional request field added',
    (doc) => (props(doc, 'CreateThing').currency = { type: 'string' }),
    ['request-optional-property-added client non-breaking', 'request-optional-property-added server breaking'],
  ],
  [
    'a request field removed',
    (doc) => delete props(doc, 'CreateThing').channel,
    ['request-property-removed client breaking', 'request-property-removed server non-breaking'],
  ],
  [
    'a request maximum lowered',
    (doc) => (props(doc, 'CreateThing').amount!.maximum = 500),
    ['request-maximum-decreased client breaking', 'request-maximum-decreased server potentially-breaking'],
  ],
  [
    'a request maximum raised',
    (doc) => (props(doc, 'CreateThing').amount!.maximum = 5000),
    ['request-maximum-increased client non-breaking', 'request-maximum-increased server breaking'],
  ],
  [
    'a request enum narrowed',
    (doc) => (props(doc, 'CreateThing').channel!.enum = ['A']),
    ['request-enum-value-removed client breaking', 'request-enum-value-removed server potentially-breaking'],
  ],
  [
    'a request enum widened',
    (doc) => (props(doc, 'CreateThing').channel!.enum = ['A', 'B', 'C']),
    ['request-enum-value-added client non-breaking', 'request-enum-value-added server breaking'],
  ],
  [
    'a request pattern changed',
    (doc) => {
      props(doc, 'CreateThing').external_id!.pattern = '^[a-z]+$';
    },
    ['request-pattern-set client breaking', 'request-pattern-set server potentially-breaking'],
  ],
  [
    'a request body media type added',
    (doc) => {
      const body = post(doc).requestBody as JsonObject;
      (body.content as JsonObject)['application/x-www-form-urlencoded'] = {
        schema: { $ref: '#/components/schemas/CreateThing' },
      };
    },
    ['request-media-type-added client non-breaking', 'request-media-type-added server breaking'],
  ],
  // responses
  [
    'a response field removed',
    (doc) => {
      delete props(doc, 'Thing').amount;
      schema(doc, 'Thing').required = ['id', 'status'];
    },
    inBothOperations('response-property-removed client breaking', 'response-property-removed server non-breaking'),
  ],
  [
    'a response field made optional',
    (doc) => (schema(doc, 'Thing').required = ['id', 'status']),
    inBothOperations(
      'response-property-became-optional client breaking',
      'response-property-became-optional server non-breaking',
    ),
  ],
  [
    'a response field made required',
    (doc) => (schema(doc, 'Thing').required = ['id', 'status', 'amount', 'note']),
    inBothOperations(
      'response-property-became-required client non-breaking',
      'response-property-became-required server breaking',
    ),
  ],
  [
    'a response type widened',
    (doc) => (props(doc, 'Thing').amount!.type = ['integer', 'null']),
    inBothOperations('response-type-widened client breaking', 'response-type-widened server non-breaking'),
  ],
  [
    'a response enum widened',
    (doc) => (props(doc, 'Thing').status!.enum = ['PENDING', 'DONE', 'FAILED', 'REVERSED']),
    inBothOperations('response-enum-value-added client breaking', 'response-enum-value-added server non-breaking'),
  ],
  [
    'an optional response field added (tolerant readers)',
    (doc) => (props(doc, 'Thing').created = { type: 'string' }),
    inBothOperations(
      'response-optional-property-added client non-breaking',
      'response-optional-property-added server non-breaking',
    ),
  ],
  [
    'a status added to an operation',
    (doc) => ((post(doc).responses as JsonObject)['409'] = { description: 'conflict' }),
    ['response-status-added client breaking', 'response-status-added server potentially-breaking'],
  ],
  [
    'an error code added to a status',
    (doc) => {
      const body = (((post(doc).responses as JsonObject)['400'] as JsonObject).content as JsonObject)[
        'application/json'
      ] as JsonObject;
      (
        (((body.schema as JsonObject).allOf as JsonObject[])[1]!.properties as JsonObject).error_code as JsonObject
      ).enum = ['API_VALIDATION_ERROR', 'AMOUNT_TOO_HIGH', 'THING_LOCKED'];
    },
    ['response-error-code-added client breaking', 'response-error-code-added server potentially-breaking'],
  ],
  // security
  [
    'authentication changed for an operation',
    (doc) => (post(doc).security = [{ token: [] }]),
    [
      'security-requirement-added client non-breaking',
      'security-requirement-added server breaking',
      'security-requirement-removed client breaking',
      'security-requirement-removed server non-breaking',
    ],
  ],
  [
    'the API key scheme changed',
    (doc) => ((doc.components.securitySchemes as JsonObject).key = { type: 'http', scheme: 'bearer' }),
    ['security-scheme-changed client breaking', 'security-scheme-changed server breaking'],
  ],
  [
    'the callback token header renamed',
    (doc) =>
      ((doc.components.securitySchemes as JsonObject).token = { type: 'apiKey', in: 'header', name: 'x-signature' }),
    ['security-scheme-changed callback-receiver breaking', 'security-scheme-changed server breaking'],
  ],
  // webhooks: the direction flips
  [
    'a required field added to a callback body (fine for receivers)',
    (doc) => {
      props(doc, 'ThingCallback').amount = { type: 'integer' };
      (schema(doc, 'ThingCallback').required as string[]).push('amount');
    },
    [
      'callback-required-property-added callback-receiver non-breaking',
      'callback-required-property-added server breaking',
    ],
  ],
  [
    'a field removed from a callback body',
    (doc) => {
      delete props(doc, 'ThingCallback').status;
      schema(doc, 'ThingCallback').required = ['id'];
    },
    ['callback-property-removed callback-receiver breaking', 'callback-property-removed server non-breaking'],
  ],
  [
    'a callback enum widened',
    (doc) => (props(doc, 'ThingCallback').status!.enum = ['DONE', 'FAILED', 'EXPIRED']),
    ['callback-enum-value-added callback-receiver breaking', 'callback-enum-value-added server non-breaking'],
  ],
  [
    'a callback kind added',
    (doc) =>
      ((doc.webhooks as JsonObject)['thing.expired'] = structuredClone(
        (doc.webhooks as JsonObject)['thing.done'] as JsonObject,
      )),
    ['callback-added callback-receiver potentially-breaking', 'callback-added server breaking'],
  ],
  [
    'a callback kind removed',
    (doc) => (doc.webhooks = {}),
    ['callback-removed callback-receiver breaking', 'callback-removed server non-breaking'],
  ],
  // x-delivery
  [
    'fewer callback attempts',
    (doc) => ((hook(doc)['x-delivery'] as JsonObject).attempts = 1),
    ['delivery-attempts-changed callback-receiver breaking', 'delivery-attempts-changed server potentially-breaking'],
  ],
  [
    'shorter spacing between attempts',
    (doc) => ((hook(doc)['x-delivery'] as JsonObject).retry_interval_seconds = 5),
    [
      'delivery-retry-interval-seconds-changed callback-receiver breaking',
      'delivery-retry-interval-seconds-changed server breaking',
    ],
  ],
  [
    'a new acknowledgement rule',
    (doc) => ((hook(doc)['x-delivery'] as JsonObject).acknowledgement = '200'),
    ['delivery-acknowledgement-changed callback-receiver breaking', 'delivery-acknowledgement-changed server breaking'],
  ],
  // x-error-codes, x-error-triggers, x-validation-error, x-malformed-body-error
  [
    'a rule that now yields another code (x-error-codes)',
    (doc) => (props(doc, 'CreateThing').amount!['x-error-codes'] = { maximum: 'MAXIMUM_TRANSFER_LIMIT_ERROR' }),
    ['error-code-rule-changed client breaking', 'error-code-rule-changed server breaking'],
  ],
  [
    'a rule that gets a code of its own (x-error-codes)',
    (doc) =>
      (props(doc, 'CreateThing').amount!['x-error-codes'] = { maximum: 'AMOUNT_TOO_HIGH', minimum: 'AMOUNT_TOO_LOW' }),
    ['error-code-rule-added client potentially-breaking', 'error-code-rule-added server breaking'],
  ],
  [
    'a trigger added (x-error-triggers)',
    (doc) =>
      ((post(doc)['x-error-triggers'] as JsonObject).THING_LOCKED_ERROR = {
        when: 'state',
        machine: 'thing',
        states: ['DONE'],
        description: 'The thing is finished.',
      }),
    ['error-trigger-added client potentially-breaking', 'error-trigger-added server breaking'],
  ],
  [
    'a trigger changed (x-error-triggers)',
    (doc) =>
      ((post(doc)['x-error-triggers'] as JsonObject).DUPLICATE_ERROR = {
        when: 'duplicate',
        fields: ['external_id', 'amount'],
        description: 'The external_id was used before.',
      }),
    ['error-trigger-changed client potentially-breaking', 'error-trigger-changed server breaking'],
  ],
  [
    'a trigger reworded only (x-error-triggers): nothing to report',
    (doc) => (((post(doc)['x-error-triggers'] as JsonObject).DUPLICATE_ERROR as JsonObject).description = 'Reworded.'),
    [],
  ],
  [
    'another validation status (x-validation-error)',
    (doc) => (post(doc)['x-validation-error'] = { status: 422, error_code: 'API_VALIDATION_ERROR' }),
    ['validation-error-changed client breaking', 'validation-error-changed server breaking'],
  ],
  [
    'another malformed-body code (x-malformed-body-error)',
    (doc) => (post(doc)['x-malformed-body-error'] = { status: 400, error_code: 'INVALID_JSON_FORMAT' }),
    ['malformed-body-error-changed client breaking', 'malformed-body-error-changed server breaking'],
  ],
  // x-state-machines
  [
    'a state added',
    (doc) => machine(doc).states.push('REVERSED'),
    ['state-added callback-receiver breaking', 'state-added client breaking', 'state-added server non-breaking'],
  ],
  [
    'a state no longer final',
    (doc) => (machine(doc).final = ['FAILED']),
    [
      'state-no-longer-final callback-receiver breaking',
      'state-no-longer-final client breaking',
      'state-no-longer-final server potentially-breaking',
    ],
  ],
  [
    'a transition added',
    (doc) =>
      machine(doc).transitions.push({
        from: 'DONE',
        trigger: { event: 'reversed' },
        to: 'FAILED',
        effects: [{ callback: 'thingDone' }],
      }),
    [
      'state-transition-added callback-receiver potentially-breaking',
      'state-transition-added client potentially-breaking',
      'state-transition-added server breaking',
    ],
  ],
  [
    'a transition removed',
    (doc) => machine(doc).transitions.pop(),
    [
      'state-transition-removed callback-receiver breaking',
      'state-transition-removed client potentially-breaking',
      'state-transition-removed server potentially-breaking',
    ],
  ],
  [
    'a transition that no longer sends its callback',
    (doc) => (machine(doc).transitions[1]!.effects = []),
    [
      'state-transition-effects-changed callback-receiver breaking',
      'state-transition-effects-changed client breaking',
      'state-transition-effects-changed server breaking',
    ],
  ],
  // x-test-mode
  [
    'a test value whose outcome changed',
    (doc) => (((post(doc)['x-test-mode'] as JsonObject).outcomes as JsonObject[])[0]!.failure_code = 'BLOCKED'),
    ['test-value-outcome-changed client breaking', 'test-value-outcome-changed server breaking'],
  ],
  [
    'a test value added (it completed by default before)',
    (doc) =>
      ((post(doc)['x-test-mode'] as JsonObject).outcomes as JsonObject[]).push({
        amount: 667,
        status: 'FAILED',
        failure_code: 'BLOCKED',
      }),
    ['test-value-added client breaking', 'test-value-added server breaking'],
  ],
  [
    'another default outcome',
    (doc) => ((post(doc)['x-test-mode'] as JsonObject).default_outcome = { status: 'PENDING' }),
    ['test-mode-default-outcome-changed client breaking', 'test-mode-default-outcome-changed server breaking'],
  ],
  // x-decisions and other document extensions
  [
    'a decision changed',
    (doc) =>
      ((doc['x-decisions'] as JsonObject[])[0]!.decision = 'Every id is an opaque string of at most 128 characters.'),
    ['decision-changed client potentially-breaking', 'decision-changed server potentially-breaking'],
  ],
  [
    'a decision added',
    (doc) =>
      (doc['x-decisions'] as JsonObject[]).push({
        id: 'amounts',
        topic: 'Amounts',
        quote: 'amounts in IDR',
        decision: 'Amounts are whole rupiah, never decimals.',
        where: ['#/components'],
      }),
    ['decision-added client non-breaking', 'decision-added server potentially-breaking'],
  ],
  [
    'a document extension for tools added',
    (doc) => (doc['x-clock-advance'] = { operation: 'advanceClock', field: 'milliseconds', now: 'now' }),
    ['extension-added client non-breaking', 'extension-added server potentially-breaking'],
  ],
  // nothing
  ['descriptions only', (doc) => ((doc.info as JsonObject).description = 'Reworded.'), []],
];

describe('diffContracts: one pair of contracts per rule', () => {
  it.each(CASES)('%s', (_name, change, expected) => {
    expect(verdicts(change)).toEqual([...expected].sort());
  });
});

/** The document as a tool that ignores vendor extensions sees it. */
function withoutExtensions(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutExtensions);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith('x-'))
      .map(([key, item]) => [key, withoutExtensions(item)]),
  );
}

describe('changes a generic OpenAPI diff misses (same document once vendor extensions are set aside)', () => {
  const invisible: [string, (doc: Doc) => void, string][] = [
    [
      'error codes: a rule now yields another code',
      (doc) => (props(doc, 'CreateThing').amount!['x-error-codes'] = { maximum: 'MAXIMUM_TRANSFER_LIMIT_ERROR' }),
      'error-code-rule-changed',
    ],
    [
      'error codes: a validation error answered with another status',
      (doc) => (post(doc)['x-validation-error'] = { status: 422, error_code: 'API_VALIDATION_ERROR' }),
      'validation-error-changed',
    ],
    [
      'state machines: a resource can newly move from DONE to FAILED',
      (doc) => machine(doc).transitions.push({ from: 'DONE', trigger: { event: 'reversed' }, to: 'FAILED' }),
      'state-transition-added',
    ],
    [
      'state machines: a transition stops sending its callback',
      (doc) => (machine(doc).transitions[2]!.effects = []),
      'state-transition-effects-changed',
    ],
    [
      'delivery rules: a callback attempted fewer times',
      (doc) => ((hook(doc)['x-delivery'] as JsonObject).attempts = 2),
      'delivery-attempts-changed',
    ],
    [
      'delivery rules: shorter spacing between attempts',
      (doc) => ((hook(doc)['x-delivery'] as JsonObject).retry_interval_seconds = 10),
      'delivery-retry-interval-seconds-changed',
    ],
    [
      'test mode: a test amount that changes meaning',
      (doc) => (((post(doc)['x-test-mode'] as JsonObject).outcomes as JsonObject[])[0]!.status = 'DONE'),
      'test-value-outcome-changed',
    ],
  ];
  it.each(invisible)('%s', (_name, change, rule) => {
    const changed = base();
    change(changed);
    expect(withoutExtensions(changed)).toEqual(withoutExtensions(base()));
    const found = diffContracts(base(), changed).findings;
    expect(found.map((finding) => finding.rule)).toContain(rule);
    expect(found.some((finding) => finding.severity === 'breaking')).toBe(true);
  });
});

describe('reports', () => {
  const changed = base();
  props(changed, 'CreateThing').amount!.maximum = 5000;
  const result = diffContracts(base(), changed);

  it('locates each finding by a JSON Pointer into each contract', () => {
    expect(result.findings[0]).toMatchObject({
      old: '#/components/schemas/CreateThing/properties/amount/maximum',
      new: '#/components/schemas/CreateThing/properties/amount/maximum',
    });
  });

  it('shows each change once with its verdict per party, as text and as Markdown', () => {
    expect(
      formatText(result),
    ).toBe(`Tiny 1.0.0 → 1.0.0: 1 change (1 breaking, 0 potentially breaking, 0 non-breaking); breaks servers.

BREAKING
- createThing (POST /things) request body: \`amount\` maximum rose from 1000 to 5000.  [request-maximum-increased]
    client            non-breaking: every request that was valid stays valid
    server            breaking: a server that still enforces the old rule refuses requests the contract now allows
    location          old #/components/schemas/CreateThing/properties/amount/maximum  new #/components/schemas/CreateThing/properties/amount/maximum
`);
    expect(formatMarkdown(result)).toContain(
      '| breaking | createThing (POST /things) request body: `amount` maximum rose from 1000 to 5000. | **non-breaking**: every request that was valid stays valid | **breaking**: a server that still enforces the old rule refuses requests the contract now allows |  |',
    );
  });

  it('gives JSON with a summary counted per change', () => {
    expect(JSON.parse(formatJson(result))).toMatchObject({
      old: { version: '1.0.0' },
      summary: { breaking: 1, 'potentially-breaking': 0, 'non-breaking': 0 },
      findings: [{ party: 'server' }, { party: 'client' }],
    });
  });
});

describe('the twenty changes of npm run bench:diff', () => {
  it('are each reported', () => {
    const contract = readReleases().at(-1)!.doc;
    const groups = groupByChange(diffContracts(contract, twentyChanges(contract)).findings);
    const rules = new Set(groups.map((group) => group.rule));
    expect(rules.size).toBeGreaterThanOrEqual(19);
    expect(groups.length).toBeGreaterThanOrEqual(20);
  });
});
