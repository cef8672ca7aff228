// Where the contract lets a request address an existing object (an id in the path, a merchant reference in
// the query, a reference in the body), read from the operations' `x-error-triggers` (`not_found`,
// `other_merchant` with their `parameter`), with the kind of object addressed and the code the contract
// documents when that object belongs to another merchant or the other mode. Pure: planning sends nothing.
import type { OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import {
  bodyReferences,
  normalizePath,
  referencedKind,
  resourceKind,
  resourceOperations,
  successBody,
} from '../workflows/resources.js';

/** Whose object a foreign key addresses: another merchant's (same mode), or its own merchant's in the other mode. */
export type Relation = 'merchant' | 'mode';

export interface Address {
  operation: OperationModel;
  in: 'path' | 'query' | 'body';
  /** The parameters (body fields: every reference of the body) that carry the owner's values. */
  names: string[];
  /** The kind of object each name addresses, by name. */
  kinds: Record<string, string>;
  /**
   * The codes the contract documents for an object of another merchant (`other_merchant`, else `not_found`);
   * none for a lookup without a `not_found` (then only the owner's object must be absent from the answer).
   */
  otherMerchant: string[];
  /** The codes for an object of the other mode: it does not exist there (`not_found`). */
  otherMode: string[];
}

interface Trigger {
  code: string;
  when: 'not_found' | 'other_merchant';
  in: string;
  name: string;
}

function triggers(operation: OperationModel): Trigger[] {
  return Object.entries(operation.errorTriggers).flatMap(([code, trigger]) =>
    trigger.when === 'not_found' || trigger.when === 'other_merchant'
      ? [{ code, when: trigger.when, in: trigger.parameter.in, name: trigger.parameter.name }]
      : [],
  );
}

/** What the creating POST of a collection answers with (`/tokens/auth` creates the `/tokens/{id}` objects). */
function createdIn(contract: Contract, collection: string): string | undefined {
  const creators = contract.model.operations.filter(
    (o) => o.method === 'post' && !o.parameters.some((p) => p.in === 'path'),
  );
  const creator =
    creators.find((o) => normalizePath(o.path) === collection) ??
    creators.find((o) => normalizePath(o.path).startsWith(`${collection}/`));
  return creator ? resourceKind(contract, creator) : undefined;
}

/**
 * The kind of object a path parameter names: what the collection's creating operation answers with, else
 * (nothing creates it through the service) what the operation itself answers with.
 */
function pathKind(contract: Contract, operation: OperationModel, name: string): string | undefined {
  // The path up to the segment that holds the parameter (`/payments/payment_id={payment_id}`: `/payments`).
  const collection = normalizePath(
    operation.path.slice(0, operation.path.lastIndexOf('/', operation.path.indexOf(`{${name}}`))),
  );
  const created = collection === '' ? undefined : createdIn(contract, collection);
  return created ?? (successBody(contract, operation).list ? undefined : resourceKind(contract, operation));
}

function kindOf(contract: Contract, operation: OperationModel, where: string, name: string): string | undefined {
  if (where === 'path') return pathKind(contract, operation, name);
  if (where === 'query') return createdIn(contract, normalizePath(operation.path)) ?? resourceKind(contract, operation);
  const reference = bodyReferences(contract, operation).find((r) => r.field === name);
  return reference ? referencedKind(contract, reference) : undefined;
}

/** Every way an operation addresses an existing object; an address whose kind cannot be told is left out with the reason. */
export function addresses(contract: Contract): {
  addresses: Address[];
  unknown: { operation: OperationModel; reason: string }[];
} {
  const found: Address[] = [];
  const unknown: { operation: OperationModel; reason: string }[] = [];
  for (const operation of contract.model.operations) {
    const all = triggers(operation);
    for (const where of ['path', 'query', 'body'] as const) {
      const here = all.filter((t) => t.in === where);
      if (here.length === 0) continue;
      // A body's references are one address: a foreign key sending them all names only objects it cannot see.
      const groups =
        where === 'body'
          ? [here]
          : [...new Set(here.map((t) => t.name))].map((name) => here.filter((t) => t.name === name));
      for (const group of groups) {
        const names = [...new Set(group.map((t) => t.name))];
        const kinds = Object.fromEntries(names.map((name) => [name, kindOf(contract, operation, where, name)]));
        const missing = names.filter((name) => kinds[name] === undefined);
        if (missing.length > 0) {
          unknown.push({
            operation,
            reason: `cannot tell which resource ${where} parameter ${missing.join(', ')} names`,
          });
          continue;
        }
        const notFound = group.filter((t) => t.when === 'not_found').map((t) => t.code);
        const otherMerchant = group.filter((t) => t.when === 'other_merchant').map((t) => t.code);
        found.push({
          operation,
          in: where,
          names,
          kinds: kinds as Record<string, string>,
          otherMerchant: [...new Set(otherMerchant.length > 0 ? otherMerchant : notFound)],
          otherMode: [...new Set(notFound)],
        });
      }
    }
  }
  // Lookups the contract gives no `not_found` (lists by a merchant reference): whatever they answer a foreign
  // key, the owner's object must not be in it.
  for (const creator of contract.model.operations.filter(
    (o) => o.method === 'post' && !o.parameters.some((p) => p.in === 'path'),
  )) {
    const kind = resourceKind(contract, creator);
    const { lookup } = resourceOperations(contract, creator);
    if (!kind || !lookup || found.some((a) => a.operation === lookup) || successBody(contract, creator).list) continue;
    const names = lookup.parameters
      .filter(
        (p) => p.in === 'query' && (p.required || lookup.parameters.every((q) => !q.required || q.in !== 'query')),
      )
      .map((p) => p.name);
    if (names.length > 0)
      found.push({
        operation: lookup,
        in: 'query',
        names,
        kinds: Object.fromEntries(names.map((name) => [name, kind])),
        otherMerchant: [],
        otherMode: [],
      });
  }
  return { addresses: found, unknown };
}

export const codesFor = (address: Address, relation: Relation): string[] =>
  relation === 'merchant' ? address.otherMerchant : address.otherMode;
