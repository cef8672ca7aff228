// The control API's resource lists (spec/sandbox/paths/sandbox_resources_{kind}.yaml): the newest resources
// of one kind of the key's merchant and mode, as the service shows them, with their state. The platform
// knows no domain: each kind's collection, state machine and view come from the module that stores it (its
// `views`, see module.ts).
import type { Handlers } from '@payments-contract/server/sandbox/server';
import type { operations } from '@payments-contract/server/sandbox/types';
import { scopeOf, type Caller, type Json, type JsonRecord, type Store } from '../context.js';
import { toJson } from '../json.js';

export type ResourceKindName = operations['listResources']['parameters']['path']['kind'];

/** A resource as the service shows it, and its state in the kind's machine (null without one). */
export interface ShownResource {
  resource: { [field: string]: Json };
  state: string | null;
}

export interface ResourceKind {
  /** The store collection holding the kind's records. */
  collection: string;
  /** The service contract's state machine for the kind (`x-state-machines`), or null. */
  machine: string | null;
  /** The record as the service shows it at `now` (what depends on time, such as expiry, computed then). */
  show(record: JsonRecord, now: Date): ShownResource;
}

/**
 * A kind whose records are stored as `Stored` (every collection holds one module's records only), shown by
 * the module's own view of a record, so a listed resource reads exactly as the service's lookup answers it.
 */
export function resourceKind<Stored>(
  collection: string,
  machine: string | null,
  show: (record: Stored, now: Date) => { resource: object; state: string | null },
): ResourceKind {
  return {
    collection,
    machine,
    show: (record: JsonRecord, now: Date) => {
      const shown = show(record as unknown as Stored, now);
      // Views are typed by the contract's schemas, which are all JSON objects.
      return { resource: toJson(shown.resource) as { [field: string]: Json }, state: shown.state };
    },
  };
}

/** How many resources a list holds when the request names no limit (the contract's default). */
const DEFAULT_LIMIT = 50;

export function resourceListHandlers(
  store: Store,
  now: (caller: Caller) => Date,
  kinds: Readonly<Partial<Record<ResourceKindName, ResourceKind>>>,
): Pick<Handlers<Caller>, 'listResources'> {
  return {
    listResources: async ({ path, query }, { principal }) => {
      const kind = kinds[path.kind];
      // The sandbox's products show every kind (modules.ts checks it); a list a test composes may not.
      if (!kind) throw new Error(`no module shows ${path.kind}`);
      const scope = scopeOf(principal);
      const records = await store.list<JsonRecord>(kind.collection, scope, {
        order: 'newest',
        limit: query.limit ?? DEFAULT_LIMIT,
      });
      const at = now(principal);
      const data = records.map((record) => ({ id: record.id, ...kind.show(record, at) }));
      return { status: 200, body: { kind: path.kind, machine: kind.machine, data } };
    },
  };
}
