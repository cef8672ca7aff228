// The code samples the docs page shows beside each operation (Redoc's `x-codeSamples`): a curl command and a
// call through the generated TypeScript client, written from the operation's own examples (its first request
// body example, each parameter's example), so no sample is written by hand and none can drift from the
// contract. The client call takes its input's shape from the client emitter's plan (path, query, a header as a
// named option, body), the one place that shape is decided. The samples are compiled and run in
// samples.test.ts: the TypeScript by tsc against the generated client, the curl against the sandbox.
import { dereference, isObject, readModel } from '@payments-contract/model';
import type { Json, JsonObject, OperationModel, ParameterModel } from '@payments-contract/model/types';
import { planOperation } from '../emit/client.js';

/** One entry of Redoc's `x-codeSamples`. */
export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}

/** The samples' languages, in the order the page lists them; Redoc shows a sample only in a language it is configured with. */
export const SAMPLE_LANGUAGES = [
  { lang: 'Shell', label: 'curl' },
  { lang: 'TypeScript', label: 'TypeScript client' },
] as const satisfies readonly Omit<CodeSample, 'source'>[];

/** Where the samples read the secret key from: the variable the conformance suite reads it from too. */
export const KEY_VARIABLE = 'PAYMENTS_API_KEY';
export const CLIENT_PACKAGE = '@payments-contract/client';

/** The first server's URL with its variables' defaults: the address a sample calls. */
export function sampleBaseUrl(doc: JsonObject): string {
  const server = Array.isArray(doc.servers) ? doc.servers[0] : undefined;
  if (!isObject(server) || typeof server.url !== 'string') throw new Error('the contract names no server');
  const variables = isObject(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const variable = variables[name];
    if (!isObject(variable) || typeof variable.default !== 'string')
      throw new Error(`server variable ${name} has no default`);
    return variable.default;
  });
}

/** The first example a parameter or media type gives: `example`, then the first of `examples`. */
function firstExample(doc: JsonObject, holder: JsonObject): Json | undefined {
  if (holder.example !== undefined) return holder.example;
  const named = isObject(holder.examples) ? Object.values(holder.examples)[0] : undefined;
  const example = dereference(doc, named);
  if (isObject(example) && example.value !== undefined) return example.value;
  const schema = dereference(doc, holder.schema);
  if (isObject(schema)) {
    if (schema.example !== undefined) return schema.example;
    if (Array.isArray(schema.examples)) return schema.examples[0];
  }
  return undefined;
}

interface SampleInput {
  path: Record<string, Json>;
  query: Record<string, Json>;
  headers: { parameter: ParameterModel; value: Json }[];
  body?: Json;
}

/** The operation's examples: every required parameter's, every optional one that has one, the first body example. */
function sampleInput(doc: JsonObject, operation: OperationModel): SampleInput {
  const where = `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path})`;
  const raw = dereference(doc, { $ref: operation.pointer });
  if (!isObject(raw)) throw new Error(`${where}: not found at ${operation.pointer}`);
  const pathItem = dereference(doc, { $ref: operation.pointer.slice(0, operation.pointer.lastIndexOf('/')) });
  const declared = [
    ...(isObject(pathItem) && Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(raw.parameters) ? raw.parameters : []),
  ]
    .map((parameter) => dereference(doc, parameter))
    .filter(isObject);
  const input: SampleInput = { path: {}, query: {}, headers: [] };
  for (const parameter of operation.parameters) {
    const written = declared.find((candidate) => candidate.name === parameter.name && candidate.in === parameter.in);
    const value = written === undefined ? undefined : firstExample(doc, written);
    if (value === undefined) {
      if (parameter.required) throw new Error(`${where}: parameter ${parameter.name} has no example for its samples`);
      continue;
    }
    if (parameter.in === 'path') input.path[parameter.name] = value;
    else if (parameter.in === 'query') input.query[parameter.name] = value;
    else if (parameter.in === 'header') input.headers.push({ parameter, value });
  }
  if (operation.body) {
    const requestBody = dereference(doc, raw.requestBody);
    const content = isObject(requestBody) && isObject(requestBody.content) ? requestBody.content : {};
    const json = content['application/json'];
    const body = isObject(json) ? firstExample(doc, json) : undefined;
    if (body === undefined) throw new Error(`${where}: the JSON request body has no example for its samples`);
    input.body = body;
  }
  return input;
}

const text = (value: Json): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The URL with the path's examples in its template and the query's after it. */
function sampleUrl(baseUrl: string, operation: OperationModel, input: SampleInput): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(text(input.path[name] ?? '')),
  );
  const query = new URLSearchParams(Object.entries(input.query).map(([name, value]) => [name, text(value)]));
  return `${baseUrl}${path}${query.size > 0 ? `?${query.toString()}` : ''}`;
}

/** A word for any POSIX shell (bash, zsh, sh): single-quoted, so nothing in it is expanded or globbed. */
const shellWord = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

export function curlSample(baseUrl: string, operation: OperationModel, input: SampleInput): string {
  const method = operation.method.toUpperCase();
  const lines = [`curl ${method === 'GET' ? '' : `-X ${method} `}${shellWord(sampleUrl(baseUrl, operation, input))}`];
  lines.push(`  -u "$${KEY_VARIABLE}:"`);
  for (const { parameter, value } of input.headers)
    lines.push(`  -H ${shellWord(`${parameter.name}: ${text(value)}`)}`);
  if (input.body !== undefined) {
    lines.push(`  -H 'content-type: application/json'`);
    lines.push(`  -d ${shellWord(JSON.stringify(input.body, null, 2))}`);
  }
  return lines.join(' \\\n');
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const tsString = (value: string): string =>
  `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n')}'`;

/** A JSON value as a TypeScript literal, laid out as Biome would: two spaces a level, keys unquoted where they can be. */
export function tsLiteral(value: Json, indent = ''): string {
  const inner = `${indent}  `;
  if (typeof value === 'string') return tsString(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const key = (name: string): string => (IDENTIFIER.test(name) ? name : tsString(name));
  return `{\n${entries.map(([name, item]) => `${inner}${key(name)}: ${tsLiteral(item, inner)},`).join('\n')}\n${indent}}`;
}

export function typescriptSample(
  baseUrl: string,
  operation: OperationModel,
  operations: readonly OperationModel[],
  input: SampleInput,
): string {
  const plan = planOperation(operation, operations);
  const argument: JsonObject = {};
  for (const field of plan.fields) {
    if (field.name === 'path') argument.path = input.path;
    else if (field.name === 'query' && Object.keys(input.query).length > 0) argument.query = input.query;
    else if (field.name === 'body' && input.body !== undefined) argument.body = input.body;
    else {
      const header = plan.headerOptions.find((option) => option.option === field.name);
      const value = input.headers.find(({ parameter }) => parameter.name === header?.header)?.value;
      if (value !== undefined) argument[field.name] = value;
    }
  }
  const call = Object.keys(argument).length === 0 ? '()' : `(${tsLiteral(argument)})`;
  return [
    `import { createPaymentsClient } from '${CLIENT_PACKAGE}';`,
    '',
    'const payments = createPaymentsClient({',
    `  baseUrl: ${tsString(baseUrl)},`,
    `  secretKey: process.env.${KEY_VARIABLE} ?? '',`,
    '});',
    `const result = await payments.${operation.operationId}${call};`,
    'if (result.ok) console.log(result.data);',
    'else console.error(result.status, result.error);',
  ].join('\n');
}

/** Each operation's samples, by operationId, in the contract's order. */
export function codeSamples(doc: JsonObject): Map<string, CodeSample[]> {
  const model = readModel(doc);
  const baseUrl = sampleBaseUrl(doc);
  return new Map(
    model.operations.map((operation) => {
      const input = sampleInput(doc, operation);
      return [
        operation.operationId,
        [
          { ...SAMPLE_LANGUAGES[0], source: curlSample(baseUrl, operation, input) },
          { ...SAMPLE_LANGUAGES[1], source: typescriptSample(baseUrl, operation, model.operations, input) },
        ],
      ];
    }),
  );
}

/** The document with `x-codeSamples` on every operation, as the docs page shows it. */
export function withCodeSamples(doc: JsonObject): JsonObject {
  const samples = codeSamples(doc);
  const paths: JsonObject = {};
  for (const [key, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) {
      paths[key] = item;
      continue;
    }
    paths[key] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => {
        const shown =
          isObject(operation) && typeof operation.operationId === 'string'
            ? samples.get(operation.operationId)
            : undefined;
        return [
          method,
          shown && isObject(operation) ? { ...operation, 'x-codeSamples': shown as unknown as Json } : operation,
        ];
      }),
    );
  }
  return { ...doc, paths };
}
