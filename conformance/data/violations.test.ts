// The derivation of invalid values, table-driven on small schemas: each row gives a schema (reached
// through a reference, as request bodies are), valid bases, and the rule whose violation it wants; the
// derived value must break that rule alone and yield the code the schema's x-error-codes give it.
import { describe, expect, it } from 'vitest';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { createContract } from '../contract.js';
import { collectHints, samplePattern } from './synthesize.js';
import { deriveViolations, expectedAnswer, ruleCode } from './violations.js';

const SCHEMAS: JsonObject = {
  Amount: {
    type: 'number',
    exclusiveMinimum: 0,
    exclusiveMaximum: 1000,
    'x-error-codes': { exclusiveMaximum: 'AMOUNT_TOO_HIGH' },
  },
  Closable: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 5 },
      closed: { type: 'boolean' },
      amount: { $ref: '#/components/schemas/Amount' },
    },
    allOf: [
      {
        if: { properties: { closed: { const: true } }, required: ['closed'] },
        then: {
          required: ['amount'],
          allOf: [{ properties: { amount: true } }],
          'x-error-codes': { required: 'AMOUNT_REQUIRED' },
        },
      },
    ],
  },
  Transfer: {
    type: 'object',
    required: ['bank', 'account'],
    properties: {
      bank: { type: 'string', minLength: 1 },
      account: { type: 'string', pattern: '^[0-9-]+$' },
      suggested: { type: 'number', minimum: 1 },
    },
    allOf: [
      {
        if: { properties: { bank: { const: 'BCA' } }, required: ['bank'] },
        then: {
          allOf: [
            { properties: { account: { pattern: '^[0-9]{10}$', 'x-error-codes': { pattern: 'ACCOUNT_NUMBER' } } } },
          ],
        },
      },
      {
        if: { properties: { bank: { not: { enum: ['MANDIRI', 'BRI'] } } }, required: ['bank'] },
        then: {
          not: { required: ['suggested'], allOf: [{ properties: { suggested: true } }] },
          'x-error-codes': { not: 'SUGGESTED_NOT_SUPPORTED' },
        },
      },
    ],
  },
  Person: {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: ['PERSON', 'COMPANY'], pattern: '^[A-Z]+$' },
      company: { type: 'string' },
      ids: {
        type: 'object',
        properties: {
          passport: { type: 'string' },
          country: { type: 'string', pattern: '^[A-Z]{2}$' },
          tax: { type: 'string' },
        },
        dependentRequired: { passport: ['country'] },
      },
      emails: { type: 'array', maxItems: 2, items: { type: 'string', format: 'email' } },
      born: { type: 'string', format: 'date' },
      note: { type: 'string', pattern: '^[^\\x00-\\x1F\\x7F]*$' },
      reference: { type: 'string', pattern: '^[\\x20-\\x7E]+$' },
    },
    allOf: [
      {
        if: { properties: { kind: { const: 'PERSON' } }, required: ['kind'] },
        then: { allOf: [{ properties: { company: false } }] },
      },
      {
        if: { properties: { kind: { const: 'PERSON' } }, required: ['kind'] },
        then: { allOf: [{ properties: { ids: { propertyNames: { not: { enum: ['tax'] } } } } }] },
      },
    ],
  },
};

const contract = createContract({
  openapi: '3.1.0',
  info: { title: 'fixture', version: '1' },
  paths: {},
  components: { schemas: SCHEMAS },
});
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

interface Want {
  keyword: string;
  instancePath: string;
  /** Part of the schema path that tells this rule from others with the same keyword and place. */
  schemaPath?: string;
  /** The code x-error-codes gives, or undefined for the generic validation error. */
  code?: string;
  value?: Json;
}

const table: Array<[string, { schema: string; bases: Json[]; want: Want }]> = [
  [
    'missing required field',
    { schema: 'Closable', bases: [{ name: 'abc' }], want: { keyword: 'required', instancePath: '', value: {} } },
  ],
  [
    'wrong type',
    {
      schema: 'Closable',
      bases: [{ name: 'abc' }],
      want: { keyword: 'type', instancePath: '/name', value: { name: 12345 } },
    },
  ],
  [
    'too long (maxLength + 1)',
    {
      schema: 'Closable',
      bases: [{ name: 'abc' }],
      want: { keyword: 'maxLength', instancePath: '/name', value: { name: 'abccc' + 'c' } },
    },
  ],
  [
    'too short (minLength - 1)',
    {
      schema: 'Closable',
      bases: [{ name: 'abc' }],
      want: { keyword: 'minLength', instancePath: '/name', value: { name: 'a' } },
    },
  ],
  [
    'exclusive maximum at the limit, with its own code',
    {
      schema: 'Closable',
      bases: [{ name: 'abc', amount: 5 }],
      want: {
        keyword: 'exclusiveMaximum',
        instancePath: '/amount',
        code: 'AMOUNT_TOO_HIGH',
        value: { name: 'abc', amount: 1000 },
      },
    },
  ],
  [
    'exclusive minimum at the limit, on a field the base lacks',
    {
      schema: 'Closable',
      bases: [{ name: 'abc' }],
      want: { keyword: 'exclusiveMinimum', instancePath: '/amount', value: { name: 'abc', amount: 0 } },
    },
  ],
  [
    'conditional required (if holds once the flag is set)',
    {
      schema: 'Closable',
      bases: [{ name: 'abc' }],
      want: {
        keyword: 'required',
        instancePath: '',
        schemaPath: '/then/required',
        code: 'AMOUNT_REQUIRED',
        value: { name: 'abc', closed: true },
      },
    },
  ],
  [
    'conditional pattern (BCA-like): 9 digits',
    {
      schema: 'Transfer',
      bases: [{ bank: 'OTHER', account: '1234567890' }],
      want: {
        keyword: 'pattern',
        instancePath: '/account',
        schemaPath: '/then/',
        code: 'ACCOUNT_NUMBER',
        value: { bank: 'BCA', account: '123456789' },
      },
    },
  ],
  [
    'conditional not (suggested amount for another bank)',
    {
      schema: 'Transfer',
      bases: [
        { bank: 'MANDIRI', account: '1', suggested: 5 },
        { bank: 'OTHER', account: '1' },
      ],
      want: { keyword: 'not', instancePath: '', code: 'SUGGESTED_NOT_SUPPORTED' },
    },
  ],
  [
    'pattern mismatch',
    {
      schema: 'Transfer',
      bases: [{ bank: 'MANDIRI', account: '12-34' }],
      want: { keyword: 'pattern', instancePath: '/account', schemaPath: '#/properties' },
    },
  ],
  [
    'not in enum, the pattern still met',
    { schema: 'Person', bases: [{ kind: 'COMPANY' }], want: { keyword: 'enum', instancePath: '/kind' } },
  ],
  [
    'dependentRequired',
    {
      schema: 'Person',
      bases: [{ ids: { passport: 'X1', country: 'PH' } }],
      want: { keyword: 'dependentRequired', instancePath: '/ids', value: { ids: { passport: 'X1' } } },
    },
  ],
  [
    'maxItems + 1',
    {
      schema: 'Person',
      bases: [{ emails: ['a@example.com'] }],
      want: {
        keyword: 'maxItems',
        instancePath: '/emails',
        value: { emails: ['a@example.com', 'a@example.com', 'a@example.com'] },
      },
    },
  ],
  ['format', { schema: 'Person', bases: [{ born: '1990-04-17' }], want: { keyword: 'format', instancePath: '/born' } }],
  [
    'a control character in text that must have none',
    {
      schema: 'Person',
      bases: [{ note: 'Pembelian' }],
      want: { keyword: 'pattern', instancePath: '/note', value: { note: 'Pembelian\u0007' } },
    },
  ],
  [
    'a field the condition forbids',
    { schema: 'Person', bases: [{ kind: 'PERSON' }], want: { keyword: 'false schema', instancePath: '/company' } },
  ],
  [
    'a property name the condition forbids',
    {
      schema: 'Person',
      bases: [{ kind: 'PERSON', ids: {} }],
      want: { keyword: 'propertyNames', instancePath: '/ids', value: { kind: 'PERSON', ids: { tax: 'conformance' } } },
    },
  ],
];

describe('deriveViolations', () => {
  it.each(table)('%s', (_name, { schema, bases, want }) => {
    const { violations } = deriveViolations(contract, ref(schema), bases, { hints: collectHints(bases) });
    const found = violations.find(
      (v) =>
        v.rule.keyword === want.keyword &&
        v.rule.instancePath === want.instancePath &&
        (want.schemaPath === undefined || `${v.rule.resource ?? ''}${v.rule.schemaPath}`.includes(want.schemaPath)),
    );
    expect(
      found,
      `no violation of ${want.keyword} at ${want.instancePath}: ${violations.map((v) => v.rule.description).join('; ')}`,
    ).toBeDefined();
    if (!found) return;
    if (want.value !== undefined) expect(found.value).toEqual(want.value);
    // It breaks the rule, and nothing at another place.
    expect(found.errors.length).toBeGreaterThan(0);
    expect(found.errors.every((e) => e.instancePath === want.instancePath)).toBe(true);
    const codes = found.errors.filter((e) => e.keyword !== 'if').map(ruleCode);
    if (want.code !== undefined) expect(codes).toEqual(codes.map(() => want.code));
  });

  it('breaks a printable-ASCII rule with a letter outside it where, as in a header, neither an empty value nor a control character can be sent', () => {
    const { violations } = deriveViolations(contract, { type: 'string', pattern: '^[\\x20-\\x7E]+$' }, ['key-1'], {
      accept: (value) => value !== '' && !/[\u0000-\u001f\u007f]/.test(String(value)),
    });
    expect(
      violations.filter((violation) => violation.rule.keyword === 'pattern').map((violation) => violation.value),
    ).toEqual(['key-1\u00e9']);
  });

  it('changes one thing: every derived value differs from a valid base and fails validation', () => {
    const bases: Json[] = [{ name: 'abc', closed: false, amount: 10 }];
    const { violations } = deriveViolations(contract, ref('Closable'), bases);
    expect(violations.length).toBeGreaterThan(5);
    for (const violation of violations) {
      expect(contract.validate(ref('Closable'), violation.value).length).toBeGreaterThan(0);
      expect(violation.value).not.toEqual(bases[0]);
    }
  });

  it('reports a rule whose breaking values the request cannot carry, instead of sending something else', () => {
    // The only string shorter than 1 is '', which accept() refuses as a path segment does.
    const { violations, unconstructed } = deriveViolations(contract, { type: 'string', minLength: 1 }, ['abc'], {
      accept: (value) => value !== '',
    });
    expect(violations.find((v) => v.rule.keyword === 'minLength')).toBeUndefined();
    expect(unconstructed.map((u) => [u.rule.keyword, u.reason])).toEqual([
      ['minLength', expect.stringContaining('cannot carry')],
    ]);
  });
});

const operation = (overrides: Partial<OperationModel>): OperationModel => ({
  operationId: 'op',
  method: 'post',
  path: '/op',
  tag: '',
  summary: '',
  parameters: [],
  responses: [
    {
      status: 400,
      description: '',
      errorCodes: ['GENERIC', 'AMOUNT_TOO_HIGH'],
      retryable: [],
      headers: [],
      headerFields: [],
    },
    { status: 422, description: '', errorCodes: ['AMOUNT_REQUIRED'], retryable: [], headers: [], headerFields: [] },
  ],
  validationError: { status: 400, error_code: 'GENERIC' },
  errorTriggers: {},
  timeBound: [],
  pointer: '#/paths/~1op/post',
  ...overrides,
});

describe('expectedAnswer', () => {
  const errorsOf = (value: Json): ReturnType<typeof contract.validate> => contract.validate(ref('Closable'), value);
  const rows: Array<[string, { value: Json; op: OperationModel; want: unknown }]> = [
    [
      "the rule's own code, at the status that documents it",
      {
        value: { name: 'abc', closed: true },
        op: operation({}),
        want: { status: 422, errorCode: 'AMOUNT_REQUIRED', source: 'x-error-codes' },
      },
    ],
    [
      'the generic error when the violations map to different codes',
      {
        value: { name: 'abc', closed: true, amount: 'x' },
        op: operation({}),
        want: { status: 400, errorCode: 'GENERIC', source: 'x-validation-error' },
      },
    ],
    [
      'the generic error for a keyword without a code',
      {
        value: { name: 'a' },
        op: operation({}),
        want: { status: 400, errorCode: 'GENERIC', source: 'x-validation-error' },
      },
    ],
    [
      "the generic error when no response documents the rule's code",
      {
        value: { name: 'abc', amount: 2000 },
        op: operation({
          responses: [
            { status: 400, description: '', errorCodes: ['GENERIC'], retryable: [], headers: [], headerFields: [] },
          ],
        }),
        want: { status: 400, errorCode: 'GENERIC', source: 'x-validation-error' },
      },
    ],
    [
      'nothing when the operation documents no validation error',
      { value: { name: 'a' }, op: operation({ validationError: undefined }), want: undefined },
    ],
  ];
  it.each(rows)('%s', (_name, { value, op, want }) => {
    expect(expectedAnswer(op, errorsOf(value))).toEqual(want);
  });
});

describe('samplePattern', () => {
  const patterns: Array<[string, string | undefined]> = [
    ['^[0-9]{10}$', '0000000000'],
    ['^08[0-9]{8,11}$', '0800000000'],
    ['^ *[A-Za-z][A-Za-z ]*$', 'A'],
    ['^[^@\\s]+@[^@\\s]+\\.[A-Za-z]{2,}$', 'a@a.AA'],
    ['^(0[1-9]|1[0-2])/[0-9]{2}$', '01/00'],
    ['^\\+[1-9][0-9]{6,14}$', '+1000000'],
    ['^ddpy-', 'ddpy-'],
    ['^(?=lookahead)', undefined],
  ];
  it.each(patterns)('%s -> %s', (pattern, want) => {
    expect(samplePattern(pattern)).toBe(want);
  });
});
