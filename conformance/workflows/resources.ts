// How the contract's operations relate to one another, read from their paths, schemas and error
// triggers: the read/update/lookup operations of a created resource, which status answers a code, which
// body fields refer to other resources. The workflows and the idempotency check ask these questions
// instead of naming operations or codes.
import { isObject } from '@payments-contract/contract/model';
import type {
  ErrorTriggerKind,
  ErrorTriggerOf,
  Json,
  OperationModel,
  ParameterModel,
} from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';

export const normalizePath = (path: string): string => path.replace(/\/+$/, '');
/** The path one segment up (`/tokens/{id}` for `/tokens/{id}/accounts`). */
export const parentPath = (path: string): string => normalizePath(path).replace(/\/[^/]*$/, '');
const pathParameters = (operation: OperationModel): ParameterModel[] =>
  operation.parameters.filter((p) => p.in === 'path');

export function successStatuses(operation: OperationModel): number[] {
  return operation.responses.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.status);
}

/** The statuses at which the operation documents an error code. */
export function statusesOf(operation: OperationModel, code: string): number[] {
  return operation.responses.filter((r) => r.errorCodes.includes(code)).map((r) => r.status);
}

/** The operation's `x-error-triggers` of one kind, as [code, trigger]. */
export function triggersOf<K extends ErrorTriggerKind>(
  operation: OperationModel,
  when: K,
): [string, ErrorTriggerOf<K>][] {
  return Object.entries(operation.errorTriggers).filter(
    (entry): entry is [string, ErrorTriggerOf<K>] => entry[1].when === when,
  );
}

/** Follows references and merges `allOf` members, so a schema's properties can be looked up. */
export function schemaProperties(contract: Contract, schema: Json | undefined): Record<string, Json> {
  const resolved = contract.deref(schema);
  if (!isObject(resolved)) return {};
  const own = contract.deref(resolved.properties);
  const members = Array.isArray(resolved.allOf)
    ? resolved.allOf.map((member) => schemaProperties(contract, member))
    : [];
  return Object.assign({}, ...members, isObject(own) ? own : {}) as Record<string, Json>;
}

/** The schema of a dotted property path (`properties.id`) inside an object schema. */
export function propertySchema(contract: Contract, schema: Json | undefined, path: string): Json | undefined {
  return path
    .split('.')
    .reduce<Json | undefined>(
      (current, name) =>
        current === undefined ? undefined : contract.deref(schemaProperties(contract, current)[name]),
      schema,
    );
}

/** The documented 2xx body schema of an operation, and whether it is a list of the resource. */
export function successBody(contract: Contract, operation: OperationModel): { schema?: Json; list: boolean } {
  const schema = contract.deref(operation.responses.find((r) => r.status >= 200 && r.status < 300)?.schema);
  if (isObject(schema) && schema.type === 'array') return { schema: contract.deref(schema.items), list: true };
  return { ...(schema === undefined ? {} : { schema }), list: false };
}

/** The resource an operation answers with: its 2xx schema's title (items' title for lists). */
export function resourceKind(contract: Contract, operation: OperationModel): string | undefined {
  const { schema } = successBody(contract, operation);
  return isObject(schema) && typeof schema.title === 'string' ? schema.title : undefined;
}

export interface ResourceOperations {
  create: OperationModel;
  /** GET `{create path}/{id}`. */
  read?: OperationModel;
  /** PUT or PATCH `{create path}/{id}`. */
  update?: OperationModel;
  /** GET on the create path whose query parameters are fields of the create body (list or lookup by identifier). */
  lookup?: OperationModel;
}

/** The operations that read, change and find what `create` creates, by the shape of their paths. */
export function resourceOperations(contract: Contract, create: OperationModel): ResourceOperations {
  const base = normalizePath(create.path);
  const item = (operation: OperationModel): boolean =>
    pathParameters(operation).length === 1 &&
    normalizePath(operation.path) === `${base}/{${pathParameters(operation)[0]?.name}}`;
  const bodyFields = Object.keys(schemaProperties(contract, create.body?.schema));
  const isLookup = (operation: OperationModel): boolean => {
    const query = operation.parameters.filter((p) => p.in === 'query');
    return (
      query.some((p) => bodyFields.includes(p.name)) &&
      query.filter((p) => p.required).every((p) => bodyFields.includes(p.name))
    );
  };
  const others = contract.model.operations.filter((o) => o !== create);
  const read = others.find((o) => o.method === 'get' && item(o));
  const update = others.find((o) => (o.method === 'patch' || o.method === 'put') && item(o));
  const lookup = others.find((o) => o.method === 'get' && normalizePath(o.path) === base && isLookup(o));
  return { create, ...(read ? { read } : {}), ...(update ? { update } : {}), ...(lookup ? { lookup } : {}) };
}

/** The POST operation that creates resources of a kind (no path parameters). */
export function creatorOf(contract: Contract, kind: string): OperationModel | undefined {
  return contract.model.operations.find(
    (o) =>
      o.method === 'post' &&
      pathParameters(o).length === 0 &&
      resourceKind(contract, o) === kind &&
      !successBody(contract, o).list,
  );
}

/** The name of the identifier field of a resource read by `read` (its path parameter, when the resource has that field). */
export function identifierField(contract: Contract, operation: OperationModel, read?: OperationModel): string {
  const properties = Object.keys(schemaProperties(contract, successBody(contract, operation).schema));
  const name = read ? pathParameters(read)[0]?.name : undefined;
  return name && properties.includes(name) ? name : 'id';
}

export interface Reference {
  /** Dotted path of the body field. */
  field: string;
  /** The code answered when it names nothing. */
  code: string;
  schema: Json | undefined;
}

/** Body fields that must name an existing resource (`x-error-triggers` kind `not_found`, `in: body`). */
export function bodyReferences(contract: Contract, operation: OperationModel): Reference[] {
  return triggersOf(operation, 'not_found').flatMap(([code, trigger]) => {
    const parameter = trigger.parameter;
    if (!isObject(parameter) || parameter.in !== 'body' || typeof parameter.name !== 'string') return [];
    return [{ field: parameter.name, code, schema: propertySchema(contract, operation.body?.schema, parameter.name) }];
  });
}

const snake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * Whether a reference field names resources of `kind`: by name (`payment_method_id` names a
 * PaymentMethod), or, for a field called just `id`, by the identifier pattern both declare.
 */
export function refersTo(
  contract: Contract,
  reference: Reference,
  kind: string,
  kindSchema: Json | undefined,
): boolean {
  const last = reference.field.split('.').pop() ?? '';
  if (last !== 'id' && last.endsWith('_id')) return last.slice(0, -3) === snake(kind);
  const own = contract.deref(reference.schema);
  const theirs = propertySchema(contract, kindSchema, 'id');
  return isObject(own) && isObject(theirs) && typeof own.pattern === 'string' && own.pattern === theirs.pattern;
}

/** The resource kinds the contract answers with, each with its schema. */
export function resourceKinds(contract: Contract): Map<string, Json> {
  const kinds = new Map<string, Json>();
  for (const operation of contract.model.operations) {
    const { schema } = successBody(contract, operation);
    const kind = resourceKind(contract, operation);
    if (kind && schema !== undefined && !kinds.has(kind)) kinds.set(kind, schema);
  }
  return kinds;
}

/** The kind a reference field names, if exactly one kind matches. */
export function referencedKind(contract: Contract, reference: Reference): string | undefined {
  const matches = [...resourceKinds(contract)]
    .filter(([kind, schema]) => refersTo(contract, reference, kind, schema))
    .map(([kind]) => kind);
  return matches.length === 1 ? matches[0] : undefined;
}
