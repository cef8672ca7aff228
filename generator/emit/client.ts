// generated/client/src/client.ts: `createPaymentsClient({ baseUrl, secretKey, fetch?, ...call defaults })`, one method
// per operationId on top of openapi-fetch (the control API's client is `createSandboxControlClient`). Every type is derived from `operations['<id>']` in types.ts beside it, so the client
// restates nothing the contract says; this emitter only decides the shape of each method's input:
//   path, query   the operation's path and query parameters, as openapi-typescript types them
//   body          the JSON body (the same schema describes the form body, decision `form-encoding-coercion`)
//   encoding      'json' | 'form', only where the body may be application/x-www-form-urlencoded
//   <header>      each header parameter as a named option (its name without `x-`, in camelCase:
//                 X-IDEMPOTENCY-KEY -> idempotencyKey), so callers never spell a header's name or case
// and lists each operation's documented statuses, which the runtime (generator/runtime/client.ts) uses to
// tell a documented response from an unexpected one, and its retry policy (generator/runtime/resilience.ts),
// read from the contract: a read, the answers that mean nothing was done (`x-retryable`), its idempotency key,
// replay answer and the lookup that recovers a lost answer (`x-idempotency`).
import { type CodeBlockWriter, type InterfaceDeclarationStructure, type OptionalKind } from 'ts-morph';
import type { ApiModel, OperationModel, ParameterModel } from '../model/types.js';
import type { OperationPolicy } from '../runtime/resilience.js';
import { createEmitProject, toGeneratedFile, type GeneratedFile, runtimeImport } from './generated-file.js';

const SOURCE = 'generator/emit/client.ts';
const DEFAULT_CLIENT_NAME = 'PaymentsClient';
const FORM = 'application/x-www-form-urlencoded';
/** Input properties the client itself defines; a header option may not take one of these names. */
const RESERVED_INPUT_NAMES = ['path', 'query', 'body', 'encoding'];

/** One property of a method's input object. */
export interface InputField {
  name: string;
  required: boolean;
  /** TypeScript type expression, in terms of types.ts and the runtime. */
  type: string;
  docs: string;
}

/** A header parameter sent from a named option. */
export interface HeaderOption {
  option: string;
  header: string;
}

/** Everything the emitter writes for one operation. */
export interface ClientMethodPlan {
  operationId: string;
  /** The operationId in PascalCase: prefix of the method's named types. */
  typeName: string;
  /** openapi-fetch's method name (`GET`, `POST` …). */
  fetchMethod: string;
  path: string;
  summary: string;
  fields: InputField[];
  headerOptions: HeaderOption[];
  formEncoding: boolean;
  /** Statuses the contract documents, each with a JSON body. */
  statuses: number[];
  /** By status, the headers each declares (only statuses that declare some). */
  headerFields: { status: number; fields: { name: string; required: boolean; numeric: boolean }[] }[];
  /** When it may be repeated, from the contract. */
  policy: OperationPolicy;
  /** The header option carrying the idempotency key, which the runtime fills when the caller does not. */
  idempotencyHeader?: HeaderOption;
  /** The lookup that recovers a lost answer: its method, path and query, each from a request body field. */
  recovery?: { fetchMethod: string; path: string; query: { parameter: string; field: string }[] };
}

const READS = new Set(['get', 'head', 'options']);

/**
 * The operation's retry policy as the contract states it: a read may be repeated; an answer `x-retryable`
 * names did nothing; a key's replay answer, with the lookup `x-idempotency.recovery` names, makes a lost
 * answer recoverable.
 */
export function retryPolicy(operation: OperationModel, operations: readonly OperationModel[]): OperationPolicy {
  const where = `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path})`;
  const retryable = operation.responses.flatMap((response) =>
    response.retryable.map((errorCode) => ({ status: response.status, errorCode })),
  );
  const policy: OperationPolicy = { operationId: operation.operationId, safe: READS.has(operation.method), retryable };
  const { idempotency } = operation;
  if (!idempotency) return policy;
  const replayCode = Object.entries(operation.errorTriggers).find(
    ([, trigger]) => trigger.when === 'idempotency_replay' && trigger.header === idempotency.header,
  )?.[0];
  const replayStatus = operation.responses.find((response) => replayCode && response.errorCodes.includes(replayCode));
  const success = operation.responses.find((response) => response.status >= 200 && response.status < 300);
  if (!replayCode || !replayStatus || !success)
    throw new Error(`${where}: x-idempotency needs a documented replay code and a documented success`);
  if (idempotency.recovery && !operations.some((other) => other.operationId === idempotency.recovery?.operation))
    throw new Error(`${where}: x-idempotency.recovery names ${idempotency.recovery.operation}, not an operation`);
  return {
    ...policy,
    idempotency: {
      replay: { status: replayStatus.status, errorCode: replayCode },
      successStatus: success.status,
      recoverable: idempotency.recovery !== undefined,
    },
  };
}

/** `X-IDEMPOTENCY-KEY` -> `idempotencyKey`, `x-api-version` -> `apiVersion`. */
export function headerOptionName(header: string): string {
  const words = header
    .toLowerCase()
    .replace(/^x-/, '')
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
  return words.map((word, index) => (index === 0 ? word : `${word.charAt(0).toUpperCase()}${word.slice(1)}`)).join('');
}

const pascalCase = (name: string): string => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
const quote = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
/** Keeps a description from closing the JSDoc comment it is written into. */
const docText = (text: string): string => text.trim().replaceAll('*/', '*\\/');

function parametersIn(operation: OperationModel, location: ParameterModel['in']): ParameterModel[] {
  return operation.parameters.filter((parameter) => parameter.in === location);
}

/** Reads what the client needs of one operation; throws on what the client cannot represent. */
export function planOperation(operation: OperationModel, operations: readonly OperationModel[] = []): ClientMethodPlan {
  const id = operation.operationId;
  const where = `${id} (${operation.method.toUpperCase()} ${operation.path})`;
  const parameters = `operations[${quote(id)}]['parameters']`;
  const fields: InputField[] = [];

  const path = parametersIn(operation, 'path');
  if (path.length > 0)
    fields.push({
      name: 'path',
      required: true,
      type: `${parameters}['path']`,
      docs: `Path parameters: ${path.map((p) => `\`${p.name}\``).join(', ')}.`,
    });
  const query = parametersIn(operation, 'query');
  if (query.length > 0) {
    const required = query.some((parameter) => parameter.required);
    fields.push({
      name: 'query',
      required,
      type: `${parameters}['query']`,
      docs: `Query parameters: ${query.map((p) => `\`${p.name}\``).join(', ')}.`,
    });
  }
  const headers = parametersIn(operation, 'header');
  // openapi-typescript makes the header object optional when none of its parameters is required.
  const headerObject = headers.some((parameter) => parameter.required)
    ? `${parameters}['header']`
    : `NonNullable<${parameters}['header']>`;
  const headerOptions: HeaderOption[] = [];
  for (const header of headers) {
    const option = headerOptionName(header.name);
    if (RESERVED_INPUT_NAMES.includes(option) || headerOptions.some((taken) => taken.option === option)) {
      throw new Error(`${where}: header ${header.name} would become the input option \`${option}\`, which is taken`);
    }
    headerOptions.push({ option, header: header.name });
    const description = header.description === '' ? '' : `\n\n${header.description}`;
    const idempotencyKey = operation.idempotency?.header.toLowerCase() === header.name.toLowerCase();
    fields.push({
      name: option,
      // The client makes the key when the caller gives none.
      required: header.required && !idempotencyKey,
      type: `${headerObject}[${quote(header.name)}]`,
      docs: idempotencyKey
        ? `Sent as the \`${header.name}\` header; when left out, the client makes a key for the call (the same on every retry).${description}`
        : `Sent as the \`${header.name}\` header.${description}`,
    });
  }

  if (operation.body) {
    const content = operation.body.required
      ? `operations[${quote(id)}]['requestBody']`
      : `NonNullable<operations[${quote(id)}]['requestBody']>`;
    fields.push({
      name: 'body',
      required: operation.body.required,
      type: `${content}['content']['application/json']`,
      docs: 'The request body.',
    });
  }
  const formEncoding = operation.body?.mediaTypes.includes(FORM) === true;
  if (formEncoding)
    fields.push({
      name: 'encoding',
      required: false,
      type: 'BodyEncoding',
      docs: `Send the body as JSON (the default) or as \`${FORM}\`.`,
    });

  const bodiless = operation.responses.filter((response) => response.schema === undefined);
  if (bodiless.length > 0) {
    // The contract's convention is that every response body is JSON; the result types rely on it.
    throw new Error(
      `${where}: response ${bodiless.map((response) => response.status).join(', ')} has no JSON body, which the client does not support`,
    );
  }

  const idempotencyHeader = headerOptions.find(
    ({ header }) => header.toLowerCase() === operation.idempotency?.header.toLowerCase(),
  );
  const recoveryModel = operation.idempotency?.recovery;
  const lookup = operations.find((other) => other.operationId === recoveryModel?.operation);
  return {
    operationId: id,
    typeName: pascalCase(id),
    fetchMethod: operation.method.toUpperCase(),
    path: operation.path,
    summary: operation.summary,
    fields,
    headerOptions,
    formEncoding,
    statuses: operation.responses.map((response) => response.status),
    headerFields: operation.responses
      .filter((response) => response.headerFields.length > 0)
      .map((response) => ({
        status: response.status,
        fields: response.headerFields.map(({ name, required, numeric }) => ({ name, required, numeric })),
      })),
    policy: retryPolicy(operation, operations),
    ...(idempotencyHeader ? { idempotencyHeader } : {}),
    ...(recoveryModel && lookup
      ? {
          recovery: {
            fetchMethod: lookup.method.toUpperCase(),
            path: lookup.path,
            query: Object.entries(recoveryModel.query).map(([parameter, field]) => ({ parameter, field })),
          },
        }
      : {}),
  };
}

/**
 * `input` when one of its fields is required, else `input?` (the caller may leave it out), none without fields;
 * then `call?`, the call's own retry and timeout options.
 */
function inputParameter(plan: ClientMethodPlan): { name: string; type: string; hasQuestionToken: boolean }[] {
  const call = { name: 'call', type: 'CallOptions', hasQuestionToken: true };
  if (plan.fields.length === 0) return [call];
  return [
    { name: 'input', type: `${plan.typeName}Input`, hasQuestionToken: !plan.fields.some((field) => field.required) },
    call,
  ];
}

/** The openapi-fetch request options for one call, built from the method's `input`. */
function writeRequestOptions(writer: CodeBlockWriter, plan: ClientMethodPlan): void {
  const input = plan.fields.some((field) => field.required) ? 'input.' : 'input?.';
  const has = (name: string): boolean => plan.fields.some((field) => field.name === name);
  const params: string[] = [];
  if (has('path')) params.push(`path: ${input}path`);
  if (has('query')) params.push(`query: ${input}query`);
  // The idempotency key is the call's, made by the runtime when the caller gave none.
  const headerValue = (option: HeaderOption): string =>
    option === plan.idempotencyHeader ? 'attempt.idempotencyKey' : `${input}${option.option}`;
  if (plan.headerOptions.length > 0)
    params.push(
      `header: { ${plan.headerOptions.map((option) => `${quote(option.header)}: ${headerValue(option)}`).join(', ')} }`,
    );
  writer.write('{').indent(() => {
    if (params.length > 0) writer.writeLine(`params: { ${params.join(', ')} },`);
    if (has('body')) writer.writeLine(`body: ${input}body,`);
    // The runtime parses the body itself, to tell a JSON body from an HTML error page.
    writer.writeLine("parseAs: 'text',");
    writer.writeLine('signal: attempt.signal,');
    if (plan.formEncoding) writer.writeLine(`...bodyEncoding(${input}encoding),`);
  });
  writer.write('}');
}

/** The runtime's policy object, as a literal. */
function policyLiteral(policy: OperationPolicy): string {
  const answer = ({ status, errorCode }: { status: number; errorCode: string }): string =>
    `{ status: ${status}, errorCode: ${quote(errorCode)} }`;
  const parts = [
    `operationId: ${quote(policy.operationId)}`,
    `safe: ${String(policy.safe)}`,
    `retryable: [${policy.retryable.map(answer).join(', ')}]`,
  ];
  const { idempotency } = policy;
  if (idempotency)
    parts.push(
      `idempotency: { replay: ${answer(idempotency.replay)}, successStatus: ${idempotency.successStatus}, recoverable: ${String(idempotency.recoverable)} }`,
    );
  return `{ ${parts.join(', ')} }`;
}

/** The statuses' declared headers as the runtime reads them: `{ 429: { 'Retry-After': { required: true, numeric: true } } }`. */
function headerFieldsLiteral(plan: ClientMethodPlan): string {
  const byStatus = plan.headerFields.map(
    ({ status, fields }) =>
      `${status}: { ${fields.map(({ name, required, numeric }) => `${quote(name)}: { required: ${String(required)}, numeric: ${String(numeric)} }`).join(', ')} }`,
  );
  return `{ ${byStatus.join(', ')} }`;
}

function writeClientObject(writer: CodeBlockWriter, plans: ClientMethodPlan[]): void {
  writer.write('return {').indent(() => {
    for (const plan of plans) {
      const parameter = plan.fields.length === 0 ? '(call)' : '(input, call)';
      const input = plan.fields.some((field) => field.required) ? 'input.' : 'input?.';
      writer.write(`${plan.operationId}: ${parameter} =>`).indent(() => {
        writer.write(`callOperation<operations[${quote(plan.operationId)}]>(`).indent(() => {
          writer.write('{').indent(() => {
            writer.writeLine(`policy: ${policyLiteral(plan.policy)},`);
            writer.writeLine(`documented: [${plan.statuses.join(', ')}],`);
            writer.writeLine(`headerFields: ${headerFieldsLiteral(plan)},`);
            const key = plan.idempotencyHeader ? `${input}${plan.idempotencyHeader.option}` : 'undefined';
            writer.writeLine(`idempotencyKey: ${key},`);
            writer.write(`send: (attempt) => client.${plan.fetchMethod}(${quote(plan.path)}, `);
            writeRequestOptions(writer, plan);
            writer.write('),').newLine();
            const { recovery } = plan;
            if (recovery) {
              const query = recovery.query.map(({ parameter, field }) => `${quote(parameter)}: ${input}body.${field}`);
              writer.writeLine(
                `recovery: { request: ${input}body, lookup: (signal) => client.${recovery.fetchMethod}(${quote(recovery.path)}, { params: { query: { ${query.join(', ')} } }, parseAs: 'text', signal }) },`,
              );
            }
          });
          writer.write('},').newLine();
          writer.writeLine('callOptions(options, call),');
        });
        writer.writeLine('),');
      });
    }
  });
  writer.writeLine('};');
}

export function emitClient(model: ApiModel, clientName: string = DEFAULT_CLIENT_NAME): GeneratedFile[] {
  const factory = `create${clientName}`;
  const plans = model.operations.map((operation) => planOperation(operation, model.operations));
  const project = createEmitProject();
  const file = project.createSourceFile('client.ts');

  file.addImportDeclaration({ moduleSpecifier: './types.js', isTypeOnly: true, namedImports: ['operations', 'paths'] });
  // Form encoding is imported only where an operation can use it, so the file has no unused import.
  const form = plans.some((plan) => plan.formEncoding);
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('client'),
    namedImports: [
      ...(form ? ['bodyEncoding'] : []),
      'createApiClient',
      { name: 'ApiClientOptions', isTypeOnly: true },
      ...(form ? [{ name: 'BodyEncoding', isTypeOnly: true }] : []),
      { name: 'OperationResult', isTypeOnly: true },
    ],
  });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('resilience'),
    namedImports: ['callOperation', 'callOptions', { name: 'CallOptions', isTypeOnly: true }],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('client'),
    namedExports: ['MalformedResponseError'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('client'),
    isTypeOnly: true,
    namedExports: ['BodyEncoding', 'Failure', 'HttpStatus', 'OperationResult', 'Success', 'UnexpectedResponse'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('resilience'),
    namedExports: ['CallTimeoutError', 'DEFAULT_CALL_OPTIONS', 'OutcomeUnknownError'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('resilience'),
    isTypeOnly: true,
    namedExports: ['AttemptReport', 'CallOptions', 'RetryOptions'],
  });
  file.addTypeAlias({ name: `${clientName}Options`, isExported: true, type: 'ApiClientOptions' });

  for (const plan of plans) {
    if (plan.fields.length > 0) {
      file.addInterface({
        name: `${plan.typeName}Input`,
        isExported: true,
        docs: [`Input of {@link ${clientName}.${plan.operationId}}.`],
        properties: plan.fields.map((field) => ({
          name: field.name,
          hasQuestionToken: !field.required,
          type: field.type,
          docs: [docText(field.docs)],
        })),
      });
    }
    file.addTypeAlias({
      name: `${plan.typeName}Result`,
      isExported: true,
      docs: [
        `What {@link ${clientName}.${plan.operationId}} resolves to: documented statuses ${plan.statuses.join(', ')}, or an unexpected response.`,
      ],
      type: `OperationResult<operations[${quote(plan.operationId)}]>`,
    });
  }

  const client: OptionalKind<InterfaceDeclarationStructure> = {
    name: clientName,
    isExported: true,
    docs: [
      'One method per operation of the contract, named by its operationId. Every HTTP answer resolves, except a documented status without its JSON body (MalformedResponseError). A call is retried where the contract says that is harmless; a network failure it cannot retry rejects (OutcomeUnknownError when a write may have been carried out).',
    ],
    methods: plans.map((plan) => ({
      name: plan.operationId,
      docs: [docText(`${plan.summary}: \`${plan.fetchMethod} ${plan.path}\`.`)],
      parameters: inputParameter(plan),
      returnType: `Promise<${plan.typeName}Result>`,
    })),
  };
  file.addInterface(client);

  file.addFunction({
    name: factory,
    isExported: true,
    docs: [
      "A client of the service at `baseUrl`, authenticated with `secretKey` (HTTP Basic, the key as the user name); the other options are every call's defaults (retries, timeouts, the attempt hook).",
    ],
    parameters: [{ name: 'options', type: `${clientName}Options` }],
    returnType: clientName,
    statements: (writer) => {
      writer.writeLine('const client = createApiClient<paths>(options);');
      writeClientObject(writer, plans);
    },
  });

  return [toGeneratedFile('client.ts', SOURCE, file)];
}
