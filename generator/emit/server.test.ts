import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readModel } from '../model/read-model.js';
import type { ApiModel, JsonObject, OperationModel } from '../model/types.js';
import { emitServer, inputMembers, resultMembers, routeOf, typeNames, type RouteModel } from './server.js';

const fixture = JSON.parse(
  readFileSync(new URL('../tests/fixtures/mini-contract.json', import.meta.url), 'utf8'),
) as JsonObject;
const errorResponse = (code: string): JsonObject => ({
  description: code,
  content: {
    'application/json': {
      schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error_code: { enum: [code] } } }] },
    },
  },
});
/** The mini contract with what every operation of the real one documents: 401 and 500. */
function withAuthAndServerErrors(doc: JsonObject): JsonObject {
  const copy = structuredClone(doc) as { paths: Record<string, Record<string, { responses?: JsonObject }>> };
  for (const item of Object.values(copy.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.responses)
        Object.assign(operation.responses, {
          401: errorResponse('INVALID_API_KEY'),
          500: errorResponse('SERVER_ERROR'),
        });
    }
  }
  return copy as unknown as JsonObject;
}
const model = readModel(withAuthAndServerErrors(fixture));
const operation = (id: string, from: ApiModel = model): OperationModel => {
  const found = from.operations.find((o) => o.operationId === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};
const [file] = emitServer(model);

describe('routeOf', () => {
  const cases: [string, { given: () => unknown; want: unknown }][] = [
    [
      'the method in upper case and the path template as written',
      {
        given: () => [routeOf(operation('getThing')).method, routeOf(operation('getThing')).path],
        want: ['GET', '/things/{id}/'],
      },
    ],
    [
      'parameter names per location, headers in lower case',
      {
        given: () => routeOf(operation('createThing')).parameters,
        want: { path: [], query: [], header: ['idempotency-key'] },
      },
    ],
    [
      'path-level parameters included',
      {
        given: () => routeOf(operation('getThing')).parameters,
        want: { path: ['id'], query: ['verbose'], header: [] },
      },
    ],
    [
      'body media types and whether the body is required',
      {
        given: () => routeOf(operation('createThing')).body,
        want: { mediaTypes: ['application/json', 'application/x-www-form-urlencoded'], required: true },
      },
    ],
    ['no body when the operation takes none', { given: () => routeOf(operation('getThing')).body, want: undefined }],
    [
      'every documented status with its codes',
      {
        given: () => routeOf(operation('getThing')).responses,
        want: { 200: [], 401: ['INVALID_API_KEY'], 404: ['THING_NOT_FOUND'], 500: ['SERVER_ERROR'] },
      },
    ],
    [
      'the 401 and 500 answers come from the contract',
      {
        given: () => [routeOf(operation('getThing')).unauthorizedError, routeOf(operation('getThing')).serverError],
        want: [
          { status: 401, error_code: 'INVALID_API_KEY' },
          { status: 500, error_code: 'SERVER_ERROR' },
        ],
      },
    ],
    [
      'x-validation-error and x-malformed-body-error',
      {
        given: () => [
          routeOf(operation('createThing')).validationError,
          routeOf(operation('createThing')).malformedBodyError,
        ],
        want: [
          { status: 400, error_code: 'API_VALIDATION_ERROR' },
          { status: 400, error_code: 'INVALID_JSON_FORMAT' },
        ],
      },
    ],
    [
      'no malformed-body answer when the contract gives none',
      { given: () => 'malformedBodyError' in routeOf(operation('getThing')), want: false },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(given()).toEqual(want);
  });

  it('refuses an operation that does not document the 401 the router answers for missing credentials', () => {
    const bare = operation('getThing', readModel(fixture));
    expect(() => routeOf(bare)).toThrow(
      'getThing: the router answers missing or bad credentials with 401, so the contract must document exactly one error_code there (found 0)',
    );
  });
});

describe('handler types', () => {
  const cases: [string, { given: () => unknown; want: unknown }][] = [
    [
      'names derive from the operationId',
      {
        given: () => typeNames('createThing'),
        want: { input: 'CreateThingHandlerInput', result: 'CreateThingHandlerResult' },
      },
    ],
    [
      'input: headers by lower-case name, the body from the JSON media type',
      {
        given: () => inputMembers(operation('createThing')),
        want: [
          "header: LowercaseKeys<NonNullable<operations['createThing']['parameters']['header']>>;",
          "body: operations['createThing']['requestBody']['content']['application/json'];",
        ],
      },
    ],
    [
      'input: path and query parameters',
      {
        given: () => inputMembers(operation('getThing')),
        want: [
          "path: operations['getThing']['parameters']['path'];",
          "query: NonNullable<operations['getThing']['parameters']['query']>;",
        ],
      },
    ],
    [
      'input: an optional body is optional',
      {
        given: () =>
          inputMembers({
            ...operation('createThing'),
            parameters: [],
            body: { required: false, mediaTypes: ['application/json'], schema: {} },
          }),
        want: ["body?: NonNullable<operations['createThing']['requestBody']>['content']['application/json'];"],
      },
    ],
    [
      'input: nothing for an operation without parameters or body',
      { given: () => inputMembers({ ...operation('getThing'), parameters: [] }), want: [] },
    ],
    [
      'result: one member per documented status',
      {
        given: () => resultMembers(operation('getThing')),
        want: [
          "HandlerResponse<200, operations['getThing']['responses'][200]['content']['application/json']>",
          "HandlerResponse<401, operations['getThing']['responses'][401]['content']['application/json']>",
          "HandlerResponse<404, operations['getThing']['responses'][404]['content']['application/json']>",
          "HandlerResponse<500, operations['getThing']['responses'][500]['content']['application/json']>",
        ],
      },
    ],
    [
      'result: a response without content has no body',
      {
        given: () =>
          resultMembers({
            ...operation('getThing'),
            responses: [{ status: 204, description: '', errorCodes: [], retryable: [], headers: [], headerFields: [] }],
          }),
        want: ['HandlerResponse<204, undefined>'],
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(given()).toEqual(want);
  });
});

describe('emitServer', () => {
  it('writes server.ts with the header', () => {
    expect(emitServer(model).map((f) => f.path)).toEqual(['server.ts']);
    expect(file?.contents.startsWith('// Generated by generator/emit/server.ts from spec/ — do not edit.\n')).toBe(
      true,
    );
  });

  it('is deterministic', () => {
    expect(emitServer(readModel(withAuthAndServerErrors(fixture)))).toEqual([file]);
  });

  const declared: [string, RegExp][] = [
    [
      "the table, checked against the router's RouteTable",
      /export const operationTable = \{[\s\S]*\} as const satisfies RouteTable;/,
    ],
    ['the validators of each operation', /validators: operationValidators\.createThing,/],
    [
      'an input and a result type per operation',
      /export type GetThingHandlerInput = \{[\s\S]*export type GetThingHandlerResult =/,
    ],
    [
      'Handlers, one function per operationId',
      /export type Handlers<Principal = unknown> = \{[\s\S]*createThing: \(input: CreateThingHandlerInput, context: RequestContext<Principal>\) => Promise<CreateThingHandlerResult> \| CreateThingHandlerResult;/,
    ],
    [
      'createRouter binding the table',
      /export function createRouter<Principal>\(handlers: Handlers<Principal>, options: RouterOptions<Principal>\): \(request: Request\) => Promise<Response> \{\s+return createTableRouter\(operationTable, handlers, options\);/,
    ],
    ['type-only imports (verbatimModuleSyntax)', /import type \{ operations \} from '\.\/types\.js';/],
  ];
  it.each(declared)('declares %s', (_name, pattern) => {
    expect(file?.contents).toMatch(pattern);
  });

  it('prints each route as the data routeOf gives', () => {
    const route: RouteModel = routeOf(operation('getThing'));
    expect(file?.contents).toContain(`path: '${route.path}',`);
    expect(file?.contents).toContain("parameters: { path: ['id'], query: ['verbose'], header: [] },");
    expect(file?.contents).toContain("404: ['THING_NOT_FOUND'],");
  });

  it('matches the file snapshot', async () => {
    await expect(file?.contents).toMatchFileSnapshot('__snapshots__/mini-server.ts.snap');
  });
});
