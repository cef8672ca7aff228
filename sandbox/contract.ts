// The bundled contract, read once for the whole sandbox, and the facts modules take from it instead of
// restating them: example catalogs that a
// decision makes authoritative, the parameters of x-error-triggers, conditional rules of schemas. Read once
// at start-up; a contract that no longer holds a fact the sandbox relies on fails loudly here, not later
// in a request.
import { readFileSync } from 'node:fs';
import { dereference, isObject, readModel, responseExampleValues } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { openapiPath } from '@payments-contract/contract';

const document = JSON.parse(readFileSync(openapiPath, 'utf8')) as JsonObject;
const model = readModel(document);

export function contractOperation(operationId: string): OperationModel {
  const operation = model.operations.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`the contract has no operation ${operationId}`);
  return operation;
}

/** The `x-error-triggers` entry of `code` on the operation. */
export function errorTrigger(operationId: string, code: string): JsonObject {
  const trigger = contractOperation(operationId).errorTriggers[code];
  if (!trigger) throw new Error(`${operationId} has no x-error-triggers entry for ${code}`);
  return trigger;
}

/** A list of strings the trigger carries (`terms`, `not_in`...). */
export function triggerStrings(operationId: string, code: string, field: string): string[] {
  const value = errorTrigger(operationId, code)[field];
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string')) throw new Error(`${operationId} x-error-triggers ${code}.${field} is not a list of strings`);
  return value;
}

/** The values of every named example of the operation's JSON response with this status, in document order. */
export function responseExamples(operationId: string, status: number): Json[] {
  const values = responseExampleValues(document, contractOperation(operationId).pointer, status);
  if (values.length === 0) throw new Error(`${operationId} ${status} has no examples`);
  return values;
}

/** A component schema of the contract, references resolved at the top level. */
export function componentSchema(name: string): JsonObject {
  const schema = dereference(document, model.componentSchemas[name]);
  if (!isObject(schema)) throw new Error(`the contract has no schema ${name}`);
  return schema;
}

/**
 * The values of `field` for which a schema's conditional rules (`allOf` members `if`/`then`) require
 * `required`: `if: { properties: { <field>: { const: X } } }, then: { required: [<required>] }` gives X.
 */
export function valuesRequiring(schemaName: string, field: string, required: string): string[] {
  const members = componentSchema(schemaName).allOf;
  return (Array.isArray(members) ? members : []).flatMap((member) => {
    if (!isObject(member) || !isObject(member.if) || !isObject(member.then)) return [];
    const requires = Array.isArray(member.then.required) && member.then.required.includes(required);
    const condition = isObject(member.if.properties) ? member.if.properties[field] : undefined;
    return requires && isObject(condition) && typeof condition.const === 'string' ? [condition.const] : [];
  });
}
