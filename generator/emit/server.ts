// generated/server/src/server.ts: the server side of the contract. Per operation: the route the router needs
// (method, path template, parameter names, body media types, documented statuses and codes, the validation
// and malformed-body answers, the compiled validators), the handler's input type and the union of its
// documented responses; then `Handlers` (one function per operationId) and `createRouter`, which binds the
// table to the generic router of @payments-contract/runtime (generator/runtime/router.ts).
import { VariableDeclarationKind, type CodeBlockWriter, type WriterFunction } from 'ts-morph';
import type { ApiModel, BodyMediaType, ErrorAnswer, OperationModel, ParameterLocation } from '../model/types.js';
import { createEmitProject, toGeneratedFile, type GeneratedFile, runtimeImport } from './generated-file.js';

const SOURCE = 'generator/emit/server.ts';
const JSON_MEDIA_TYPE = 'application/json';

/** The router's view of one operation, as plain data (printed into `operationTable`). */
export interface RouteModel {
  method: string;
  path: string;
  parameters: Record<ParameterLocation, string[]>;
  body?: { mediaTypes: BodyMediaType[]; required: boolean };
  responses: Record<number, string[]>;
  unauthorizedError: ErrorAnswer;
  serverError: ErrorAnswer;
  validationError?: ErrorAnswer;
  malformedBodyError?: ErrorAnswer;
}

export const typeNames = (operationId: string): { input: string; result: string } => {
  const pascal = `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}`;
  // "Handler" keeps these apart from the client's `<Op>Input` / `<Op>Result`, which mean the other side of the wire.
  return { input: `${pascal}HandlerInput`, result: `${pascal}HandlerResult` };
};

/**
 * The single code an operation documents at `status`: the router's own answers (missing credentials, a
 * failure of the service) must be ones the contract documents for every operation.
 */
function soleAnswerAt(operation: OperationModel, status: number, why: string): ErrorAnswer {
  const codes = operation.responses.find((response) => response.status === status)?.errorCodes ?? [];
  const [code] = codes;
  if (codes.length !== 1 || code === undefined)
    throw new Error(
      `${operation.operationId}: the router answers ${why} with ${status}, so the contract must document exactly one error_code there (found ${codes.length})`,
    );
  return { status, error_code: code };
}

export function routeOf(operation: OperationModel): RouteModel {
  const names = (location: ParameterLocation): string[] =>
    operation.parameters
      .filter((parameter) => parameter.in === location)
      .map((parameter) => (location === 'header' ? parameter.name.toLowerCase() : parameter.name));
  return {
    method: operation.method.toUpperCase(),
    path: operation.path,
    parameters: { path: names('path'), query: names('query'), header: names('header') },
    ...(operation.body
      ? { body: { mediaTypes: [...operation.body.mediaTypes], required: operation.body.required } }
      : {}),
    responses: Object.fromEntries(operation.responses.map((response) => [response.status, [...response.errorCodes]])),
    unauthorizedError: soleAnswerAt(operation, 401, 'missing or bad credentials'),
    serverError: soleAnswerAt(operation, 500, 'a thrown error or a broken response'),
    ...(operation.validationError ? { validationError: operation.validationError } : {}),
    ...(operation.malformedBodyError ? { malformedBodyError: operation.malformedBodyError } : {}),
  };
}

const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
const list = (items: readonly string[]): string => `[${items.map(quote).join(', ')}]`;
const answer = ({ status, error_code }: ErrorAnswer): string =>
  `{ status: ${status}, error_code: ${quote(error_code)} }`;

function writeRoute(writer: CodeBlockWriter, operationId: string, route: RouteModel): void {
  writer.write(`${operationId}: {`).indent(() => {
    writer.writeLine(`method: ${quote(route.method)},`);
    writer.writeLine(`path: ${quote(route.path)},`);
    writer.writeLine(
      `parameters: { path: ${list(route.parameters.path)}, query: ${list(route.parameters.query)}, header: ${list(route.parameters.header)} },`,
    );
    if (route.body)
      writer.writeLine(`body: { mediaTypes: ${list(route.body.mediaTypes)}, required: ${route.body.required} },`);
    writer.write('responses: {').indent(() => {
      for (const [status, codes] of Object.entries(route.responses)) writer.writeLine(`${status}: ${list(codes)},`);
    });
    writer.writeLine('},');
    writer.writeLine(`unauthorizedError: ${answer(route.unauthorizedError)},`);
    writer.writeLine(`serverError: ${answer(route.serverError)},`);
    if (route.validationError) writer.writeLine(`validationError: ${answer(route.validationError)},`);
    if (route.malformedBodyError) writer.writeLine(`malformedBodyError: ${answer(route.malformedBodyError)},`);
    writer.writeLine(`validators: operationValidators.${operationId},`);
  });
  writer.writeLine('},');
}

/** The members of an operation's input type, each derived from `operations['<id>']` in types.ts. */
export function inputMembers(operation: OperationModel): string[] {
  const op = `operations[${quote(operation.operationId)}]`;
  const has = (location: ParameterLocation): boolean =>
    operation.parameters.some((parameter) => parameter.in === location);
  const members: string[] = [];
  if (has('path')) members.push(`path: ${op}['parameters']['path'];`);
  // The router always hands over an object for a location that has parameters, even when all are optional.
  if (has('query')) members.push(`query: NonNullable<${op}['parameters']['query']>;`);
  if (has('header')) members.push(`header: LowercaseKeys<NonNullable<${op}['parameters']['header']>>;`);
  if (operation.body) {
    // Every media type shares the JSON schema (decision `form-encoding-coercion`), and form values arrive converted.
    members.push(
      operation.body.required
        ? `body: ${op}['requestBody']['content'][${quote(JSON_MEDIA_TYPE)}];`
        : `body?: NonNullable<${op}['requestBody']>['content'][${quote(JSON_MEDIA_TYPE)}];`,
    );
  }
  return members;
}

/** One `HandlerResponse<status, body>` per documented response. */
export function resultMembers(operation: OperationModel): string[] {
  const op = `operations[${quote(operation.operationId)}]`;
  return operation.responses.map((response) =>
    response.schema === undefined
      ? `HandlerResponse<${response.status}, undefined>`
      : `HandlerResponse<${response.status}, ${op}['responses'][${response.status}]['content'][${quote(JSON_MEDIA_TYPE)}]>`,
  );
}

const headline = (operation: OperationModel): string =>
  `${operation.operationId} (\`${operation.method.toUpperCase()} ${operation.path}\`): ${operation.summary}.`;

export function emitServer(model: ApiModel): GeneratedFile[] {
  const project = createEmitProject();
  const file = project.createSourceFile('server.ts');
  // LowercaseKeys types header parameters only: a contract without any (the control API) does not import it.
  const usesHeaders = model.operations.some((operation) =>
    operation.parameters.some((parameter) => parameter.in === 'header'),
  );
  file.addImportDeclaration({ moduleSpecifier: './types.js', isTypeOnly: true, namedImports: ['operations'] });
  file.addImportDeclaration({ moduleSpecifier: './validators/index.js', namedImports: ['operationValidators'] });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('router'),
    namedImports: [
      { name: 'createRouter', alias: 'createTableRouter' },
      ...[
        'HandlerResponse',
        ...(usesHeaders ? ['LowercaseKeys'] : []),
        'RequestContext',
        'RouterOptions',
        'RouteTable',
      ].map((name) => ({ name, isTypeOnly: true })),
    ],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('router'),
    namedExports: ['ResponseContractError'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('router'),
    isTypeOnly: true,
    namedExports: [
      'AroundOperation',
      'BasicCredentials',
      'HandlerResponse',
      'OperationCall',
      'RequestContext',
      'RouterOptions',
      'ValidationIssue',
    ],
  });

  const table: WriterFunction = (writer) => {
    writer.write('{').indent(() => {
      for (const operation of model.operations) writeRoute(writer, operation.operationId, routeOf(operation));
    });
    writer.write('} as const satisfies RouteTable');
  };
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['What the contract says about each operation, as the router needs it, by operationId.'],
    declarations: [{ name: 'operationTable', initializer: table }],
  });

  for (const operation of model.operations) {
    const names = typeNames(operation.operationId);
    const members = inputMembers(operation);
    file.addTypeAlias({
      isExported: true,
      name: names.input,
      docs: [
        `${headline(operation)} The handler's input, validated by the router${members.length === 0 ? ' (the operation takes none)' : ''}.`,
      ],
      type:
        members.length === 0
          ? 'Record<string, never>'
          : (writer) => writer.block(() => members.forEach((member) => writer.writeLine(member))),
    });
    file.addTypeAlias({
      isExported: true,
      name: names.result,
      docs: [
        `The documented responses of ${operation.operationId}: a handler answering another status or error_code does not compile.`,
      ],
      type: (writer) => resultMembers(operation).forEach((member) => writer.newLine().write(`| ${member}`)),
    });
  }

  file.addTypeAlias({
    isExported: true,
    name: 'Handlers',
    typeParameters: [{ name: 'Principal', default: 'unknown' }],
    docs: [
      'One function per operationId: the validated input in, one of the documented responses out. `Principal` is what `authenticate` returns.',
    ],
    type: (writer) =>
      writer.block(() => {
        for (const operation of model.operations) {
          const names = typeNames(operation.operationId);
          writer.writeLine(`/** ${headline(operation)} */`);
          writer.writeLine(
            `${operation.operationId}: (input: ${names.input}, context: RequestContext<Principal>) => Promise<${names.result}> | ${names.result};`,
          );
        }
      }),
  });

  file.addFunction({
    isExported: true,
    name: 'createRouter',
    typeParameters: ['Principal'],
    docs: ['A fetch-standard handler serving every operation of the contract with `handlers`.'],
    parameters: [
      { name: 'handlers', type: 'Handlers<Principal>' },
      { name: 'options', type: 'RouterOptions<Principal>' },
    ],
    returnType: '(request: Request) => Promise<Response>',
    statements: ['return createTableRouter(operationTable, handlers, options);'],
  });

  return [toGeneratedFile('server.ts', SOURCE, file)];
}
