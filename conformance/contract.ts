// Loads the contract the suite checks against (the bundled spec, or another version with --spec) and
// compiles its schemas with ajv at run time: the suite must work for any version of the document, not
// only the one the generator last saw.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { dereference, isObject, readModel } from '@payments-contract/contract/model';
import type {
  ApiModel,
  Json,
  JsonObject,
  OperationModel,
  ResponseModel,
  WebhookModel,
} from '@payments-contract/contract/model/types';
import { openapiPath } from '@payments-contract/contract';
import { createTargetClock, type TargetClock } from './target-clock.js';

export const defaultSpecPath = openapiPath;
const DOCUMENT_ID = 'https://payments-conformance.local/contract.json';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface Contract {
  doc: JsonObject;
  model: ApiModel;
  operation: (operationId: string) => OperationModel;
  webhook: (operationId: string) => WebhookModel;
  /** Validates a value against a schema taken from the document (references resolve into it). */
  validate: (schema: Json, value: unknown) => ErrorObject[];
  /** Same, with every object closed to properties its schema does not declare (for --strict). */
  validateClosed: (schema: Json, value: unknown) => ErrorObject[];
  response: (operation: OperationModel, status: number) => ResponseModel | undefined;
  deref: (value: Json | undefined) => Json | undefined;
  /** The target's time, which the examples' time-bound values are moved to (a run reads it from its target). */
  clock: TargetClock;
}

function anchor(value: Json): Json {
  if (Array.isArray(value)) return value.map(anchor);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' && child.startsWith('#') ? `${DOCUMENT_ID}${child}` : anchor(child),
    ]),
  );
}

/** Adds `unevaluatedProperties: false` to every object schema, so undeclared fields are reported. */
function closeObjects(value: Json): Json {
  if (Array.isArray(value)) return value.map(closeObjects);
  if (!isObject(value)) return value;
  const copy: JsonObject = Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === 'properties' && isObject(child)
        ? Object.fromEntries(Object.entries(child).map(([name, schema]) => [name, closeObjects(schema)]))
        : closeObjects(child),
    ]),
  );
  if (copy.type === 'object' || isObject(copy.properties)) copy.unevaluatedProperties = false;
  return copy;
}

export function loadContract(specPath: string = defaultSpecPath): Contract {
  const doc = JSON.parse(readFileSync(specPath, 'utf8')) as JsonObject;
  return createContract(doc);
}

/** Compiles a document's schemas once: what every contract read from the same document shares. */
type SchemaCompiler = (schema: Json, closed: boolean) => ValidateFunction;

/**
 * Compilers by the document's digest, the most recently used last. Compiling is most of what a run costs
 * (measured: 5.8 s of a 6.1 s run of the boundaries check, 14 s of 17 s of the full profile), and a process
 * that runs the suite again reads the same document: the mutant catalogue's workers, the tests, a CI job that
 * checks several targets. A few documents are kept, so a process that reads many stays bounded.
 */
const compilers = new Map<string, SchemaCompiler>();
const COMPILERS_KEPT = 8;

function compilerFor(doc: JsonObject): SchemaCompiler {
  const digest = createHash('sha256').update(JSON.stringify(doc)).digest('hex');
  const kept = compilers.get(digest);
  if (kept) {
    compilers.delete(digest);
    compilers.set(digest, kept);
    return kept;
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true });
  addFormats(ajv);
  // A copy: the compiled validators must not change when the caller later changes its document.
  const own = structuredClone(doc);
  ajv.addSchema({ ...own, $id: DOCUMENT_ID });
  const cache = new Map<string, ValidateFunction>();
  const compile: SchemaCompiler = (schema, closed) => {
    const key = `${closed ? 'closed:' : ''}${JSON.stringify(schema)}`;
    let validate = cache.get(key);
    if (!validate) {
      const resolved = closed ? closeObjects(inlineRefs(own, schema)) : anchor(schema);
      validate = ajv.compile(resolved as JsonObject);
      cache.set(key, validate);
    }
    return validate;
  };
  compilers.set(digest, compile);
  if (compilers.size > COMPILERS_KEPT) compilers.delete(compilers.keys().next().value as string);
  return compile;
}

export function createContract(doc: JsonObject): Contract {
  const model = readModel(doc);
  const compile = compilerFor(doc);
  const operations = new Map(model.operations.map((operation) => [operation.operationId, operation]));
  const webhooks = new Map(model.webhooks.map((webhook) => [webhook.operationId, webhook]));
  return {
    doc,
    model,
    operation: (id) => {
      const found = operations.get(id);
      if (!found) throw new Error(`the contract has no operation ${id}`);
      return found;
    },
    webhook: (id) => {
      const found = webhooks.get(id);
      if (!found) throw new Error(`the contract has no webhook ${id}`);
      return found;
    },
    validate: (schema, value) => {
      const validate = compile(schema, false);
      return validate(value) ? [] : [...(validate.errors ?? [])];
    },
    validateClosed: (schema, value) => {
      const validate = compile(schema, true);
      return validate(value) ? [] : [...(validate.errors ?? [])];
    },
    response: (operation, status) => operation.responses.find((response) => response.status === status),
    deref: (value) => dereference(doc, value),
    clock: createTargetClock(),
  };
}

/** Replaces references with their targets (the closed variant must see every object it closes). */
function inlineRefs(doc: JsonObject, value: Json, depth = 0): Json {
  if (depth > 40) return value;
  if (Array.isArray(value)) return value.map((item) => inlineRefs(doc, item, depth + 1));
  if (!isObject(value)) return value;
  if (typeof value.$ref === 'string') return inlineRefs(doc, dereference(doc, value) ?? {}, depth + 1);
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, inlineRefs(doc, child, depth + 1)]));
}
