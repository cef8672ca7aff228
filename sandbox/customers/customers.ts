// Customers in the sandbox: creation (external_id unique per merchant and mode), the partial update checked
// against the customer as it would be afterwards (decision `customer-update-rules`), and the list by
// external_id. The type rules (which fields INDIVIDUAL and BUSINESS customers may have) are the contract's
// own: the update is judged by the creation schema's compiled validator, and the fields a change of type
// drops are read from that schema's conditional rules.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject } from '@payments-contract/contract/model/types';
import { toIssues, type ValidationIssue } from '@payments-contract/server/runtime/validation-errors';
import { operationTable, type Handlers } from '@payments-contract/server';
import type { components } from '@payments-contract/server/types';
import { componentSchema, listLimit } from '../contract.js';
import { DuplicateKeyError, type CollectionDefinition } from '../store/store.js';
import type { Caller, JsonRecord, SandboxContext, Scope, Transaction } from '../context.js';
import { toJson, toRecord } from '../json.js';
import { sandboxModule } from '../module.js';
import { resourceKind } from '../platform/resources.js';

export type Customer = components['schemas']['Customer'];
type CustomerFields = components['schemas']['CreateCustomerRequest'];
type CustomerType = Customer['customer_type'];
type CustomerRecord = Customer & JsonRecord;

export const COLLECTION = 'customers';
const REQUEST_SCHEMA = 'CreateCustomerRequest';

export const collections: CollectionDefinition[] = [{ name: COLLECTION, unique: ['external_id'] }];

/** The object schema a property refers to (`$ref: '#/components/schemas/X'`), or the property itself. */
function resolveSchema(schema: Json | undefined): Json | undefined {
  const prefix = '#/components/schemas/';
  return isObject(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith(prefix)
    ? componentSchema(schema.$ref.slice(prefix.length))
    : schema;
}

/**
 * The value with only the properties its schema declares, at every level. Unknown request fields are
 * ignored (README, "The contract's conventions"), so they are not stored or answered either.
 */
function keepDeclared(schema: Json | undefined, value: Json): Json {
  const resolved = resolveSchema(schema);
  const properties = isObject(resolved) && isObject(resolved.properties) ? resolved.properties : undefined;
  if (!properties || !isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([name, field]) =>
      Object.hasOwn(properties, name) ? [[name, keepDeclared(properties[name], field)]] : [],
    ),
  );
}

/** What a customer type may not have: top-level fields, and names inside an object field (`identification`). */
interface Forbidden {
  fields: Set<string>;
  inside: Map<string, Set<string>>;
}

/**
 * Reads the creation schema's type rules: each `allOf` member `if: { properties: { <field>: { const: T } } }`
 * whose `then` holds `properties: { x: false }` (x not allowed for T) or `properties: { o: { propertyNames:
 * { not: { enum: [...] } } } }` (those names not allowed inside o for T).
 */
function readForbidden(): Map<string, Forbidden> {
  const byType = new Map<string, Forbidden>();
  const members = componentSchema(REQUEST_SCHEMA).allOf;
  for (const member of Array.isArray(members) ? members : []) {
    if (!isObject(member) || !isObject(member.if) || !isObject(member.if.properties) || !isObject(member.then))
      continue;
    const type = Object.values(member.if.properties).find(
      (condition) => isObject(condition) && typeof condition.const === 'string',
    );
    if (!isObject(type) || typeof type.const !== 'string') continue;
    const forbidden = byType.get(type.const) ?? { fields: new Set<string>(), inside: new Map<string, Set<string>>() };
    byType.set(type.const, forbidden);
    const parts = Array.isArray(member.then.allOf) ? member.then.allOf : [];
    for (const part of parts) {
      for (const [name, rule] of Object.entries(isObject(part) && isObject(part.properties) ? part.properties : {})) {
        if (rule === false) forbidden.fields.add(name);
        const names =
          isObject(rule) && isObject(rule.propertyNames) && isObject(rule.propertyNames.not)
            ? rule.propertyNames.not.enum
            : undefined;
        if (Array.isArray(names))
          forbidden.inside.set(
            name,
            new Set([...(forbidden.inside.get(name) ?? []), ...names.filter((n) => typeof n === 'string')]),
          );
      }
    }
  }
  if (byType.size === 0) throw new Error(`${REQUEST_SCHEMA} has no type rules the customer update can read`);
  return byType;
}

const forbiddenByType = readForbidden();

/** The customer without what `type` does not allow: what a change of type drops from the stored customer. */
function withoutForbidden(customer: JsonObject, type: CustomerType): JsonObject {
  const forbidden = forbiddenByType.get(type);
  if (!forbidden) return customer;
  const kept: JsonObject = {};
  for (const [name, value] of Object.entries(customer)) {
    if (forbidden.fields.has(name)) continue;
    const names = forbidden.inside.get(name);
    if (!names || !isObject(value)) {
      kept[name] = value;
      continue;
    }
    const inner = Object.fromEntries(Object.entries(value).filter(([key]) => !names.has(key)));
    if (Object.keys(inner).length > 0) kept[name] = inner;
  }
  return kept;
}

const createRules = operationTable.createCustomer.validators.body;

/** The customer's own fields if they satisfy the creation rules, else every rule they break. */
function checkFields(candidate: Json): { ok: true; fields: CustomerFields } | { ok: false; issues: ValidationIssue[] } {
  const isValid = (value: Json): value is Json & CustomerFields => createRules(value);
  return isValid(candidate)
    ? { ok: true, fields: candidate }
    : { ok: false, issues: toIssues('body', createRules.errors) };
}

/** The operation's answer to broken rules (`x-validation-error`), `errors` listing each. */
function invalid<Status extends number, Code extends string>(
  answer: { status: Status; error_code: Code },
  what: string,
  issues: ValidationIssue[],
) {
  const listed = issues.map((issue) => `${issue.path || '(whole body)'} ${issue.message}`).join('; ');
  return {
    status: answer.status,
    body: {
      error_code: answer.error_code,
      message: `${what} breaks ${issues.length} rule${issues.length === 1 ? '' : 's'}: ${listed}.`,
      errors: issues,
    },
  };
}

const duplicate = (externalId: string) =>
  ({
    status: 400,
    body: {
      error_code: 'DUPLICATE_CUSTOMER_ERROR',
      message: `A customer with external_id ${externalId} already exists.`,
    },
  }) as const;

/** The customer with this id in the scope (the direct debit module's lookup of `customer_id`). */
export async function findCustomer(tx: Transaction, scope: Scope, id: string): Promise<Customer | undefined> {
  return tx.get<CustomerRecord>(COLLECTION, scope, id);
}

const LIST_LIMIT = listLimit('listCustomers');

export function customerHandlers(
  ctx: SandboxContext,
): Pick<Handlers<Caller>, 'createCustomer' | 'updateCustomer' | 'listCustomers'> {
  return {
    createCustomer: async ({ body }, { principal }) => {
      // The router validated the body; only its undeclared fields go.
      const checked = checkFields(keepDeclared(componentSchema(REQUEST_SCHEMA), toJson(body)));
      if (!checked.ok) return invalid(operationTable.createCustomer.validationError, 'The customer', checked.issues);
      const now = ctx.clock.now(principal).toISOString();
      const customer: Customer = { id: ctx.ids.next(), ...checked.fields, created: now, updated: now };
      try {
        await ctx.store.insert(COLLECTION, principal, toRecord(customer));
      } catch (error) {
        if (error instanceof DuplicateKeyError) return duplicate(body.external_id);
        throw error;
      }
      return { status: 200, body: customer };
    },

    updateCustomer: async ({ path, body }, { principal }) => {
      return ctx.store.transaction(async (tx) => {
        const stored = await tx.get<CustomerRecord>(COLLECTION, principal, path.id);
        if (!stored)
          return {
            status: 400,
            body: { error_code: 'CUSTOMER_NOT_FOUND_ERROR', message: `Customer ${path.id} was not found.` },
          } as const;
        const { id, created, updated: _previous, ...fields } = stored;
        const type = body.customer_type ?? stored.customer_type;
        // Decision `customer-update-rules`: a change of type drops what only the old type allows; the body's
        // fields replace the stored ones (objects as a whole); the creation rules judge the result.
        const base = type === stored.customer_type ? fields : withoutForbidden(fields, type);
        const changes = keepDeclared(componentSchema(REQUEST_SCHEMA), toJson(body));
        const checked = checkFields({ ...base, ...(isObject(changes) ? changes : {}) });
        if (!checked.ok)
          return invalid(
            operationTable.updateCustomer.validationError,
            'The customer after the update',
            checked.issues,
          );
        const customer: Customer = { id, ...checked.fields, created, updated: ctx.clock.now(principal).toISOString() };
        try {
          await tx.update(COLLECTION, principal, toRecord(customer));
        } catch (error) {
          if (error instanceof DuplicateKeyError) return duplicate(customer.external_id);
          throw error;
        }
        return { status: 200, body: customer } as const;
      });
    },

    listCustomers: async ({ query }, { principal }) => {
      // Decision `customers-list-without-filter`: newest first, unpaginated; with external_id, 0 or 1.
      // Decision `list-bounds`: the newest ones past the contract's limit, bounded in the store.
      const newest = { limit: LIST_LIMIT };
      const found =
        query.external_id === undefined
          ? await ctx.store.list<CustomerRecord>(COLLECTION, principal, newest)
          : await ctx.store.findBy<CustomerRecord>(COLLECTION, principal, 'external_id', query.external_id, newest);
      return { status: 200, body: found };
    },
  };
}

/** Customers as a product; a customer has no state machine, so its list shows it as the lookup does. */
export const product = sandboxModule({
  name: 'customers',
  collections,
  service: customerHandlers,
  views: { customers: resourceKind<JsonRecord>(COLLECTION, null, (record) => ({ resource: record, state: null })) },
});
