// The schemas and ajv the peers (Fastify, Hono) validate with: the contract's own request schemas, as the
// generator compiles them (generator/emit/validators.ts), with every reference inlined, compiled at start-up
// by ajv (2020-12) with the generator's options. Apart from scenario.ts, so the generated router's and the
// ceiling's processes do not load the generator.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readBundle } from '../generate.js';
import { dereference, isObject, readModel } from '../model/read-model.js';
import { parameterObjectSchema } from '../emit/validators.js';
import type { Json, JsonObject } from '../model/types.js';

/** Replaces every local `$ref` with what it points at (the schemas used here have no cycles). */
function inlineReferences(doc: JsonObject, value: Json, depth = 0): Json {
  if (depth > 64) throw new Error('reference nesting too deep: a cycle?');
  if (Array.isArray(value)) return value.map((item) => inlineReferences(doc, item, depth + 1));
  if (!isObject(value)) return value;
  const target = typeof value.$ref === 'string' ? dereference(doc, value) : value;
  if (target !== value) {
    const { $ref: _ref, ...siblings } = value;
    const inlined = inlineReferences(doc, target ?? {}, depth + 1);
    return Object.keys(siblings).length === 0
      ? inlined
      : { allOf: [inlined, inlineReferences(doc, siblings, depth + 1)] };
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, inlineReferences(doc, child, depth + 1)]),
  );
}

/** The JSON Schemas (2020-12) the peers validate with: the same the generator compiles, dereferenced. */
export function benchSchemas(): {
  balanceQuery: JsonObject;
  fixedVirtualAccountPath: JsonObject;
  disbursementHeader: JsonObject;
  disbursementBody: JsonObject;
} {
  const doc = readBundle();
  const model = readModel(doc);
  const operation = (id: string) => {
    const found = model.operations.find((candidate) => candidate.operationId === id);
    if (!found) throw new Error(`the contract has no operation ${id}`);
    return found;
  };
  const parameters = (id: string, location: 'path' | 'query' | 'header'): JsonObject => {
    const schema = parameterObjectSchema(operation(id), location);
    if (!schema) throw new Error(`${id} has no ${location} parameters`);
    return inlineReferences(doc, schema) as JsonObject;
  };
  const body = operation('createDisbursement').body;
  if (!body) throw new Error('createDisbursement has no body');
  return {
    balanceQuery: parameters('getBalance', 'query'),
    fixedVirtualAccountPath: parameters('getFixedVirtualAccount', 'path'),
    disbursementHeader: parameters('createDisbursement', 'header'),
    disbursementBody: inlineReferences(doc, body.schema) as JsonObject,
  };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** An ajv with the generator's options (generator/emit/validators.ts): coercing for parameters, strict for bodies. */
export function benchAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, verbose: true, coerceTypes: coerce });
  addFormats(ajv);
  return ajv;
}
