import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { Validator } from './validator.js';
import {
  clip,
  ISSUE_TEXT_LENGTH,
  LISTED_ISSUES,
  MESSAGE_LENGTH,
  ownErrorCode,
  toIssues,
  validationAnswer,
  validationErrorBody,
  type ErrorAnswer,
  type ValidationContract,
  type ValidationIssue,
} from './validation-errors.js';

// A schema shaped like the contract's rules: own codes on a property keyword, on a conditional `then`
// (required, and not+required), and plain rules without a code. Compiled as the generator compiles them
// (all errors, verbose for `parentSchema`).
const schema = {
  type: 'object',
  required: ['external_id', 'bank_code'],
  properties: {
    external_id: { type: 'string', minLength: 1 },
    bank_code: { type: 'string', enum: ['BCA', 'BNI'], 'x-error-codes': { enum: 'BANK_NOT_SUPPORTED_ERROR' } },
    expected_amount: {
      type: 'number',
      exclusiveMaximum: 1000,
      'x-error-codes': { exclusiveMaximum: 'MAXIMUM_EXPECTED_AMOUNT_ERROR' },
    },
    'a/b': { type: 'string' },
    account_type: { const: 'CASH' },
  },
  allOf: [
    {
      if: { properties: { is_closed: { const: true } }, required: ['is_closed'] },
      then: { required: ['expected_amount'], 'x-error-codes': { required: 'EXPECTED_AMOUNT_REQUIRED_ERROR' } },
    },
    {
      if: { properties: { bank_code: { const: 'BNI' } }, required: ['bank_code'] },
      then: {
        not: { required: ['suggested_amount'] },
        'x-error-codes': { not: 'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR' },
      },
    },
    // Like the customer's type rules: a field one type does not allow at all.
    {
      if: { properties: { kind: { const: 'PERSON' } }, required: ['kind'] },
      then: { properties: { business_name: false } },
    },
  ],
};
const validate = new Ajv2020({ strict: false, allErrors: true, verbose: true }).compile(schema) as Validator;
const issuesOf = (body: unknown): ValidationIssue[] => (validate(body) ? [] : toIssues('body', validate.errors));

const contract: ValidationContract = {
  validationError: { status: 422, error_code: 'API_VALIDATION_ERROR' },
  responses: {
    200: [],
    400: ['MAXIMUM_EXPECTED_AMOUNT_ERROR', 'EXPECTED_AMOUNT_REQUIRED_ERROR'],
    422: ['API_VALIDATION_ERROR', 'BANK_NOT_SUPPORTED_ERROR'],
  },
};
const valid = { external_id: 'x', bank_code: 'BCA' };

describe('toIssues', () => {
  const cases: [string, { body: unknown; want: ValidationIssue[] }][] = [
    ['a valid body has none', { body: valid, want: [] }],
    [
      'a missing property points at where it belongs',
      {
        body: { bank_code: 'BCA' },
        want: [
          {
            location: 'body',
            path: '/external_id',
            message: "must have required property 'external_id'",
            keyword: 'required',
          },
        ],
      },
    ],
    [
      'a wrong type',
      {
        body: { ...valid, external_id: 5 },
        want: [{ location: 'body', path: '/external_id', message: 'must be string', keyword: 'type' }],
      },
    ],
    [
      'a keyword with its own code carries the code',
      {
        body: { ...valid, expected_amount: 1000 },
        want: [
          {
            location: 'body',
            path: '/expected_amount',
            message: 'must be < 1000',
            keyword: 'exclusiveMaximum',
            error_code: 'MAXIMUM_EXPECTED_AMOUNT_ERROR',
          },
        ],
      },
    ],
    [
      'a conditional required rule: the `if` wrapper error is left out',
      {
        body: { ...valid, is_closed: true },
        want: [
          {
            location: 'body',
            path: '/expected_amount',
            message: "must have required property 'expected_amount' when is_closed is true",
            keyword: 'required',
            error_code: 'EXPECTED_AMOUNT_REQUIRED_ERROR',
          },
        ],
      },
    ],
    [
      'a conditional not+required rule',
      {
        body: { ...valid, bank_code: 'BNI', suggested_amount: 5 },
        want: [
          {
            location: 'body',
            path: '',
            message: "must not have 'suggested_amount' when bank_code is 'BNI'",
            keyword: 'not',
            error_code: 'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR',
          },
        ],
      },
    ],
    [
      'a field a condition forbids: the rule and its condition in words, not the schema construct (boolean schema is false)',
      {
        body: { ...valid, kind: 'PERSON', business_name: 'x' },
        want: [
          {
            location: 'body',
            path: '/business_name',
            message: "must not be given when kind is 'PERSON'",
            keyword: 'false schema',
          },
        ],
      },
    ],
    [
      'an enum lists its values',
      {
        body: { ...valid, bank_code: 'XYZ' },
        want: [
          {
            location: 'body',
            path: '/bank_code',
            message: "must be one of 'BCA', 'BNI'",
            keyword: 'enum',
            error_code: 'BANK_NOT_SUPPORTED_ERROR',
          },
        ],
      },
    ],
    [
      'a const names its value',
      {
        body: { ...valid, account_type: 'HOLDING' },
        want: [{ location: 'body', path: '/account_type', message: "must be 'CASH'", keyword: 'const' }],
      },
    ],
    [
      'JSON Pointer escaping of property names',
      {
        body: { ...valid, 'a/b': 1 },
        want: [{ location: 'body', path: '/a~1b', message: 'must be string', keyword: 'type' }],
      },
    ],
  ];
  it.each(cases)('%s', (_name, { body, want }) => {
    expect(issuesOf(body)).toEqual(want);
  });

  it('names the location it is given', () => {
    expect(
      toIssues('query', [
        {
          instancePath: '',
          schemaPath: '#/required',
          keyword: 'required',
          params: { missingProperty: 'external_id' },
          message: 'x',
        },
      ]),
    ).toEqual([{ location: 'query', path: '/external_id', message: 'x', keyword: 'required' }]);
  });
});

describe('ownErrorCode', () => {
  it('reads x-error-codes of the schema holding the keyword, and nothing else', () => {
    const base = { instancePath: '', schemaPath: '', params: {} };
    expect(ownErrorCode({ ...base, keyword: 'enum', parentSchema: { 'x-error-codes': { enum: 'A' } } })).toBe('A');
    expect(
      ownErrorCode({ ...base, keyword: 'type', parentSchema: { 'x-error-codes': { enum: 'A' } } }),
    ).toBeUndefined();
    expect(ownErrorCode({ ...base, keyword: 'enum', parentSchema: { 'x-error-codes': ['A'] } })).toBeUndefined();
    expect(ownErrorCode({ ...base, keyword: 'enum' })).toBeUndefined();
  });
});

describe('validationAnswer (decision validation-code-precedence)', () => {
  const cases: [string, { body: unknown; contract?: ValidationContract; want: ErrorAnswer }][] = [
    [
      'a rule without a code: the generic answer',
      { body: { bank_code: 'BCA' }, want: { status: 422, error_code: 'API_VALIDATION_ERROR' } },
    ],
    [
      'one coded rule: its code at the status that documents it',
      { body: { ...valid, expected_amount: 5000 }, want: { status: 400, error_code: 'MAXIMUM_EXPECTED_AMOUNT_ERROR' } },
    ],
    [
      'a coded rule documented at the generic status',
      { body: { ...valid, bank_code: 'BRI' }, want: { status: 422, error_code: 'BANK_NOT_SUPPORTED_ERROR' } },
    ],
    [
      'a coded rule documented nowhere: its code at the generic status',
      {
        body: { ...valid, bank_code: 'BNI', suggested_amount: 5 },
        want: { status: 422, error_code: 'SUGGESTED_AMOUNT_NOT_SUPPORTED_ERROR' },
      },
    ],
    [
      'two different coded rules: the generic answer',
      {
        body: { ...valid, bank_code: 'BRI', expected_amount: 5000 },
        want: { status: 422, error_code: 'API_VALIDATION_ERROR' },
      },
    ],
    [
      'a coded rule and an uncoded one: the generic answer',
      {
        body: { external_id: 5, bank_code: 'BCA', expected_amount: 5000 },
        want: { status: 422, error_code: 'API_VALIDATION_ERROR' },
      },
    ],
    [
      'an operation without x-validation-error falls back to 400',
      {
        body: { bank_code: 'BCA' },
        contract: { responses: {} },
        want: { status: 400, error_code: 'API_VALIDATION_ERROR' },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { body, contract: given, want }) => {
    expect(validationAnswer(issuesOf(body), given ?? contract)).toEqual(want);
  });

  it('the same own code twice is still that code', () => {
    const issue: ValidationIssue = {
      location: 'body',
      path: '/a',
      message: 'm',
      keyword: 'enum',
      error_code: 'BANK_NOT_SUPPORTED_ERROR',
    };
    expect(validationAnswer([issue, { ...issue, path: '/b' }], contract)).toEqual({
      status: 422,
      error_code: 'BANK_NOT_SUPPORTED_ERROR',
    });
  });
});

describe('validationErrorBody', () => {
  it('lists every issue and summarises them in the message', () => {
    const issues = issuesOf({ external_id: 5, bank_code: 'BRI' });
    const body = validationErrorBody({ status: 422, error_code: 'API_VALIDATION_ERROR' }, issues);
    expect(body.error_code).toBe('API_VALIDATION_ERROR');
    expect(body.errors).toEqual(issues);
    expect(body.errors).toHaveLength(2);
    expect(body.message).toBe(
      "The request breaks 2 rules: body /external_id must be string; body /bank_code must be one of 'BCA', 'BNI'.",
    );
  });
});

describe('a body with a great many violations', () => {
  // 100,000 bad items of an array: one error each. Gathering the conditions once keeps this linear (it was
  // a lookup over every error for every error: the request hung).
  const items = new Ajv2020({ strict: false, allErrors: true, verbose: true }).compile({
    type: 'object',
    properties: { items: { type: 'array', items: { type: 'string' } } },
  }) as Validator;
  const body = { items: Array.from({ length: 100_000 }, (_, i) => i) };

  it('gets one issue per violation', () => {
    expect(items(body)).toBe(false);
    const issues = toIssues('body', items.errors);
    expect(issues).toHaveLength(100_000);
    expect(issues[99_999]).toEqual({
      location: 'body',
      path: '/items/99999',
      message: 'must be string',
      keyword: 'type',
    });
  });

  it('lists the first 100 in the answer, and says how many more there were', () => {
    items(body);
    const answer = validationErrorBody(
      { status: 400, error_code: 'API_VALIDATION_ERROR' },
      toIssues('body', items.errors),
    );
    expect(answer.errors).toHaveLength(100);
    expect(answer.message).toMatch(
      /^The request breaks 100000 rules: body \/items\/0 must be string; .*; and 99900 more like them\.$/,
    );
  });
});

describe('texts the request chose (decision error-body-bounds)', () => {
  // A field name is the request's own text: any characters, any length. The answer quotes it.
  const names = new Ajv2020({ strict: false, allErrors: true, verbose: true }).compile({
    type: 'object',
    additionalProperties: { type: 'string' },
  }) as Validator;
  const issuesFor = (body: unknown): ValidationIssue[] => (names(body) ? [] : toIssues('body', names.errors));

  it('shows control characters escaped, so every text is one line', () => {
    const [issue] = issuesFor({ 'line\nbreak\u0007': 1 });
    expect(issue).toEqual({
      location: 'body',
      path: '/line\\u000abreak\\u0007',
      message: 'must be string',
      keyword: 'type',
    });
  });

  it("cuts a path or message over 1024 characters, and an answer's message over 4096, ending with …", () => {
    const long = 'n'.repeat(5000);
    const [issue] = issuesFor({ [long]: 1 });
    expect(issue?.path).toHaveLength(ISSUE_TEXT_LENGTH);
    expect(issue?.path).toBe(`/${'n'.repeat(ISSUE_TEXT_LENGTH - 2)}…`);
    const body = validationErrorBody(
      { status: 400, error_code: 'API_VALIDATION_ERROR' },
      issuesFor({ [long]: 1, [`${long}2`]: 1, [`${long}3`]: 1, [`${long}4`]: 1, [`${long}5`]: 1 }),
    );
    expect(body.message).toHaveLength(MESSAGE_LENGTH);
    expect(body.message.endsWith('…')).toBe(true);
  });

  it('never cuts a surrogate pair in half', () => {
    expect(clip(`${'a'.repeat(8)}😀b`, 10)).toBe(`${'a'.repeat(8)}…`);
    expect(clip('short', 10)).toBe('short');
  });

  it('are the bounds the contract states for Error and ValidationIssue', () => {
    const contract = JSON.parse(
      readFileSync(new URL('../../generated/contract/openapi.json', import.meta.url), 'utf8'),
    ) as {
      components: {
        schemas: Record<string, { properties: Record<string, { maxLength?: number; maxItems?: number }> }>;
      };
    };
    const { Error: error, ValidationIssue: issue } = contract.components.schemas;
    expect([
      error?.properties.message?.maxLength,
      error?.properties.errors?.maxItems,
      issue?.properties.message?.maxLength,
      issue?.properties.path?.maxLength,
    ]).toEqual([MESSAGE_LENGTH, LISTED_ISSUES, ISSUE_TEXT_LENGTH, ISSUE_TEXT_LENGTH]);
  });
});
