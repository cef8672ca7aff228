// Reads the bundled contract (generated/contract/openapi.json) for the spec's own tests: the operations, the
// webhooks, and an ajv instance that resolves `$ref`s into the document.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { dereference, errorCodesOf, escapePointerToken, isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject } from '@payments-contract/contract/model/types';
import { openapiPath } from '@payments-contract/contract';

export type { Json, JsonObject };
export { isObject };
export const deref = dereference;
export const escapePointer = escapePointerToken;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationEntry {
  kind: 'operation' | 'webhook';
  /** Path template for operations, webhook name for webhooks. */
  key: string;
  method: string;
  operationId: string;
  operation: JsonObject;
  /** JSON Pointer of the operation within the bundled document. */
  pointer: string;
}

export const bundledPath = openapiPath;

export function loadBundled(path: string = bundledPath): JsonObject {
  return asObject(JSON.parse(readFileSync(path, 'utf8')) as Json, 'the bundled document');
}

export function asObject(value: Json | undefined, what: string): JsonObject {
  if (!isObject(value)) throw new Error(`${what} is not an object`);
  return value;
}

export function resolvePointer(doc: JsonObject, ref: string): Json | undefined {
  if (!ref.startsWith('#')) throw new Error(`only local references are supported: ${ref}`);
  let current: Json | undefined = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    current = Array.isArray(current) ? current[Number(token)] : isObject(current) ? current[token] : undefined;
  }
  return current;
}

function entriesOf(doc: JsonObject, kind: OperationEntry['kind']): OperationEntry[] {
  const container = kind === 'operation' ? 'paths' : 'webhooks';
  const items = asObject(doc[container], container);
  const entries: OperationEntry[] = [];
  for (const [key, item] of Object.entries(items)) {
    const pathItem = asObject(deref(doc, item), `${container} ${key}`);
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      entries.push({
        kind,
        key,
        method,
        operationId: String(operation.operationId),
        operation,
        pointer: `#/${container}/${escapePointer(key)}/${method}`,
      });
    }
  }
  return entries;
}

export const listOperations = (doc: JsonObject): OperationEntry[] => entriesOf(doc, 'operation');
export const listWebhooks = (doc: JsonObject): OperationEntry[] => entriesOf(doc, 'webhook');

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOCUMENT_ID = 'https://payments-contract.local/openapi.json';

/** An ajv (JSON Schema 2020-12, with formats) that knows the whole document, so schemas may `$ref` into it. */
export interface DocumentAjv {
  ajv: Ajv2020;
  compileAt: (pointer: string) => ValidateFunction;
  compileSchema: (schema: Json) => ValidateFunction;
}

export function createDocumentAjv(doc: JsonObject): DocumentAjv {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOCUMENT_ID });
  const cache = new Map<string, ValidateFunction>();
  const compileAt = (pointer: string): ValidateFunction => {
    const cached = cache.get(pointer);
    if (cached) return cached;
    const fragment = pointer
      .split('/')
      .map((token) => encodeURIComponent(token))
      .join('/');
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}${fragment}` });
    cache.set(pointer, validate);
    return validate;
  };
  /** Compiles a schema taken out of the document; its local `$ref`s still point into the document. */
  const compileSchema = (schema: Json): ValidateFunction => ajv.compile(anchorRefs(schema) as JsonObject);
  return { ajv, compileAt, compileSchema };
}

function anchorRefs(value: Json): Json {
  if (Array.isArray(value)) return value.map(anchorRefs);
  if (!isObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith('#')
        ? `${DOCUMENT_ID}${child}`
        : anchorRefs(child);
  }
  return copy;
}

/** The error codes an operation documents, per status. */
export function documentedCodes(root: JsonObject, entry: OperationEntry): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  const responses = deref(root, entry.operation.responses);
  for (const [status, response] of Object.entries(isObject(responses) ? responses : {})) {
    const content = deref(root, (deref(root, response) as JsonObject | undefined)?.content);
    const media = isObject(content) ? deref(root, content['application/json']) : undefined;
    if (!isObject(media)) continue;
    const codes = errorCodesOf(root, media.schema);
    if (codes.length > 0) result[status] = codes;
  }
  return result;
}
