// validators/ of the server and client packages (generated/*/src/validators/): every request part, response
// body and webhook body compiled by ajv (JSON Schema 2020-12, formats) at generate time into standalone code,
// so nothing compiles a schema at start-up.
//   strict.js    bodies and responses, validated as sent (JSON keeps its types)
//   coercing.js  path, query and header parameters and form bodies, whose values arrive as text and are
//                converted to the schema's types while validated (decision `form-encoding-coercion`)
//   index.ts     the typed table: operationId -> its validators
//   webhook-schemas.js, webhooks.ts   the webhook bodies alone, for receivers (the client package): bundled
//                with the few helpers of ajv they call, so a client needs neither ajv nor ajv-formats
import { _ } from 'ajv';
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { VariableDeclarationKind, type WriterFunction } from 'ts-morph';
import type { ApiModel, Json, JsonObject, OperationModel, ParameterLocation } from '../model/types.js';
import { isObject } from '../model/read-model.js';
import { createEmitProject, toGeneratedFile, withHeader, type GeneratedFile, runtimeImport } from './generated-file.js';

const SOURCE = 'generator/emit/validators.ts';
const DOCUMENT_ID = 'openapi';
const standaloneCode = standaloneCodeModule as unknown as (ajv: Ajv2020, refsOrFunc: Record<string, string>) => string;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Names of the exported validators of one operation. */
export interface OperationValidatorNames {
  path?: string;
  query?: string;
  header?: string;
  body?: string;
  form?: string;
  responses: Record<number, string>;
}

const PARAMETER_PARTS: ParameterLocation[] = ['path', 'query', 'header'];

/** Keywords that document a schema but never change what it accepts: left out of the compiled code. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'example',
  '$comment',
  'x-known-variants',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
/** Keywords whose value maps names (not keywords) to schemas. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * Prepares a schema for compilation: points local references at the document the components live in, and
 * drops annotations (the error objects carry `parentSchema`, so every byte kept here is kept per rule).
 */
function forCompilation(value: Json): Json {
  if (Array.isArray(value)) return value.map(forCompilation);
  if (!isObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (ANNOTATIONS.has(key) || key === 'enum' || key === 'const' || key === 'default' || key.startsWith('x-')) {
      if (!ANNOTATIONS.has(key)) result[key] = child;
      continue;
    }
    if (key === '$ref' && typeof child === 'string')
      result[key] = child.startsWith('#') ? `${DOCUMENT_ID}${child}` : child;
    else if (NAMED_SCHEMAS.has(key) && isObject(child))
      result[key] = Object.fromEntries(Object.entries(child).map(([name, schema]) => [name, forCompilation(schema)]));
    else result[key] = forCompilation(child);
  }
  return result;
}

/** The object schema of one parameter location; header names are lower-cased (matched case-insensitively). */
export function parameterObjectSchema(operation: OperationModel, location: ParameterLocation): JsonObject | undefined {
  const parameters = operation.parameters.filter((parameter) => parameter.in === location);
  if (parameters.length === 0) return undefined;
  const name = (raw: string): string => (location === 'header' ? raw.toLowerCase() : raw);
  return {
    type: 'object',
    properties: Object.fromEntries(
      parameters.map((parameter) => [name(parameter.name), forCompilation(parameter.schema)]),
    ),
    required: parameters.filter((parameter) => parameter.required).map((parameter) => name(parameter.name)),
  };
}

function createAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    // `parentSchema` on every error lets the router read the rule's own code (`x-error-codes`).
    verbose: true,
    coerceTypes: coerce,
    code: { source: true, esm: true, lines: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  });
  addFormats(ajv);
  return ajv;
}

export function validatorNames(model: ApiModel): Map<string, OperationValidatorNames> {
  const names = new Map<string, OperationValidatorNames>();
  for (const operation of model.operations) {
    const id = operation.operationId;
    const entry: OperationValidatorNames = { responses: {} };
    for (const location of PARAMETER_PARTS)
      if (parameterObjectSchema(operation, location)) entry[location] = `${id}_${location}`;
    if (operation.body) {
      entry.body = `${id}_body`;
      if (operation.body.mediaTypes.includes('application/x-www-form-urlencoded')) entry.form = `${id}_form`;
    }
    for (const response of operation.responses)
      if (response.schema !== undefined) entry.responses[response.status] = `${id}_response${response.status}`;
    names.set(id, entry);
  }
  return names;
}

export const webhookValidatorName = (operationId: string): string => `webhook_${operationId}`;

/** ajv's standalone code for `schemas`: ESM that calls require() for ajv's runtime helpers and formats. */
function standaloneModule(ajv: Ajv2020, schemas: Map<string, Json>): string {
  const exports: Record<string, string> = {};
  for (const [name, schema] of schemas) {
    ajv.addSchema({ ...(isObject(schema) ? schema : { allOf: [schema] }), $id: name } as JsonObject, name);
    exports[name] = name;
  }
  return standaloneCode(ajv, exports).replace(/^"use strict";\n/, '');
}

function compileModule(ajv: Ajv2020, schemas: Map<string, Json>): string {
  // Give ESM a require() for ajv's helpers: the package that ships this module depends on ajv and ajv-formats.
  const preamble = 'import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\n';
  return preamble + standaloneModule(ajv, schemas);
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The same code with ajv's helpers and formats bundled in (esbuild, from this repository's ajv): a few
 * kilobytes that spare every client installing ajv and ajv-formats to check callbacks.
 */
function compileSelfContainedModule(ajv: Ajv2020, schemas: Map<string, Json>): string {
  const result = buildSync({
    stdin: {
      contents: standaloneModule(ajv, schemas),
      resolveDir: repoRoot,
      loader: 'js',
      sourcefile: 'webhook-schemas.js',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    legalComments: 'inline',
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild produced no webhook validator module');
  return output.text;
}

function declarations(names: string[]): string {
  return names.map((name) => `export declare const ${name}: Validator;`).join('\n');
}

export function emitValidators(model: ApiModel): GeneratedFile[] {
  const strictSchemas = new Map<string, Json>();
  const coercingSchemas = new Map<string, Json>();
  const names = validatorNames(model);
  for (const operation of model.operations) {
    const entry = names.get(operation.operationId) as OperationValidatorNames;
    for (const location of PARAMETER_PARTS) {
      const schema = parameterObjectSchema(operation, location);
      if (schema && entry[location]) coercingSchemas.set(entry[location] as string, schema);
    }
    if (operation.body && entry.body) strictSchemas.set(entry.body, forCompilation(operation.body.schema));
    if (operation.body && entry.form) coercingSchemas.set(entry.form, forCompilation(operation.body.schema));
    for (const response of operation.responses) {
      const name = entry.responses[response.status];
      if (name && response.schema !== undefined) strictSchemas.set(name, forCompilation(response.schema));
    }
  }
  const webhookSchemas = new Map<string, Json>(
    model.webhooks.map((webhook) => [webhookValidatorName(webhook.operationId), forCompilation(webhook.bodySchema)]),
  );

  const schemas = Object.fromEntries(
    Object.entries(model.componentSchemas).map(([name, schema]) => [name, forCompilation(schema)]),
  );
  const document = { components: { schemas } };
  const strict = createAjv(false);
  const coercing = createAjv(true);
  const webhookAjv = createAjv(false);
  for (const ajv of [strict, coercing, webhookAjv]) ajv.addSchema(document, DOCUMENT_ID);

  const validatorType = `import type { Validator } from '${runtimeImport('validator')}';\n\n`;
  const files: GeneratedFile[] = [
    { path: 'validators/strict.js', contents: withHeader(SOURCE, compileModule(strict, strictSchemas)) },
    { path: 'validators/coercing.js', contents: withHeader(SOURCE, compileModule(coercing, coercingSchemas)) },
    {
      path: 'validators/strict.d.ts',
      contents: withHeader(SOURCE, validatorType + declarations([...strictSchemas.keys()])),
    },
    {
      path: 'validators/coercing.d.ts',
      contents: withHeader(SOURCE, validatorType + declarations([...coercingSchemas.keys()])),
    },
    emitValidatorTable(model, names),
  ];
  if (webhookSchemas.size === 0) return files;
  return [
    ...files,
    {
      path: 'validators/webhook-schemas.js',
      contents: withHeader(SOURCE, compileSelfContainedModule(webhookAjv, webhookSchemas)),
    },
    {
      path: 'validators/webhook-schemas.d.ts',
      contents: withHeader(SOURCE, validatorType + declarations([...webhookSchemas.keys()])),
    },
    emitWebhookValidatorTable(model),
  ];
}

/** validators/index.ts: operationId -> { path, query, header, body, form, responses }, webhooks by operationId. */
function emitValidatorTable(model: ApiModel, names: Map<string, OperationValidatorNames>): GeneratedFile {
  const project = createEmitProject();
  const file = project.createSourceFile('index.ts');
  file.addImportDeclaration({ moduleSpecifier: './strict.js', namespaceImport: 'strict' });
  file.addImportDeclaration({ moduleSpecifier: './coercing.js', namespaceImport: 'coercing' });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('validator'),
    isTypeOnly: true,
    namedImports: ['OperationValidators'],
  });
  file.addExportDeclaration({
    moduleSpecifier: runtimeImport('validator'),
    isTypeOnly: true,
    namedExports: ['OperationValidators', 'Validator', 'ValidatorError'],
  });

  const operationsWriter: WriterFunction = (writer) => {
    writer.write('{').indent(() => {
      for (const operation of model.operations) {
        const entry = names.get(operation.operationId) as OperationValidatorNames;
        writer.write(`${operation.operationId}: {`).indent(() => {
          for (const location of PARAMETER_PARTS)
            if (entry[location]) writer.writeLine(`${location}: coercing.${entry[location]},`);
          if (entry.body) writer.writeLine(`body: strict.${entry.body},`);
          if (entry.form) writer.writeLine(`form: coercing.${entry.form},`);
          writer.write('responses: {').indent(() => {
            for (const [status, name] of Object.entries(entry.responses))
              writer.writeLine(`${status}: strict.${name},`);
          });
          writer.writeLine('},');
        });
        writer.writeLine('},');
      }
    });
    writer.write('}');
  };
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['The compiled validators of every operation, by operationId.'],
    declarations: [
      {
        name: 'operationValidators',
        initializer: (writer) => {
          operationsWriter(writer);
          writer.write(' satisfies Record<string, OperationValidators>');
        },
      },
    ],
  });
  return toGeneratedFile('validators/index.ts', SOURCE, file);
}

/** validators/webhooks.ts: the compiled body validator of every webhook, by operationId. */
function emitWebhookValidatorTable(model: ApiModel): GeneratedFile {
  const project = createEmitProject();
  const file = project.createSourceFile('webhooks.ts');
  file.addImportDeclaration({ moduleSpecifier: './webhook-schemas.js', namespaceImport: 'schemas' });
  file.addImportDeclaration({
    moduleSpecifier: runtimeImport('validator'),
    isTypeOnly: true,
    namedImports: ['Validator'],
  });
  file.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['The compiled body validator of every webhook, by operationId.'],
    declarations: [
      {
        name: 'webhookValidators',
        initializer: (writer) => {
          writer.write('{').indent(() => {
            for (const webhook of model.webhooks)
              writer.writeLine(`${webhook.operationId}: schemas.${webhookValidatorName(webhook.operationId)},`);
          });
          writer.write('} satisfies Record<string, Validator>');
        },
      },
    ],
  });
  return toGeneratedFile('validators/webhooks.ts', SOURCE, file);
}
