// Faults armed through the control API (spec/sandbox/paths/sandbox_faults.yaml): per merchant and mode, a
// queue of "answer the next N requests (to one operation) with this" records, kept in the store so that
// every sandbox sharing it takes from the same count. Taking one is a read-modify-write inside one store
// transaction, which the store runs alone per scope (in process, and across processes on PostgreSQL), so two
// requests never both take the last of a fault.
//
// Every service request asks whether its scope may have a fault armed, so that answer is kept in memory: the
// scopes with faults, loaded at start, kept up to date by this process's own changes and, with a shared
// store, loaded again as settings and clocks are. A request of a scope without faults costs a set lookup.
import { isObject } from '@payments-contract/contract/model';
import type { components } from '@payments-contract/server/sandbox/types';
import type { Clock, Ids } from '../context.js';
import { controlComponentSchema, controlDefaults } from '../contract.js';
import type { CollectionDefinition, Json, Scope, Store, Transaction } from '../store/store.js';
import { scopeKey } from '../store/scope-key.js';

export const FAULTS_COLLECTION = 'sandbox_faults';
/** Faults are found across scopes by `armed`, which every stored fault has (a used-up one is deleted). */
export const faultsCollections: CollectionDefinition[] = [{ name: FAULTS_COLLECTION, indexed: ['armed'] }];

type Schemas = components['schemas'];
/** An armed fault as the control API shows it (a type alias of the schema's object type, so a JSON record as it is). */
export type Fault = Schemas['SandboxFault'];
/** What arming a fault takes: the control API's request, already checked against its schema. */
export type FaultRequest = Schemas['SandboxFaultRequest'];

type FaultRecord = Fault & { armed: true };

export type ArmResult = { kind: 'armed'; fault: Fault } | { kind: 'full'; max: number };

export interface SandboxFaults {
  /** Stores a new fault after the scope's others (it applies after them); refused when the scope has its maximum. */
  arm(scope: Scope, request: FaultRequest): Promise<ArmResult>;
  /** The scope's faults in the order they apply. */
  list(scope: Scope): Promise<Fault[]>;
  /** Removes one fault; what it was, or undefined when the scope has none with this id. */
  remove(scope: Scope, id: string): Promise<Fault | undefined>;
  /** Removes every fault of the scope; what they were. */
  clear(scope: Scope): Promise<Fault[]>;
  /** False when no scope may have a fault armed: nothing needs looking at. */
  anyArmed(): boolean;
  /** False when the scope has no fault armed (as far as this process knows: see `reload`). */
  mayHaveFaults(scope: Scope): boolean;
  /**
   * Takes one request from the first fault of the scope that applies to `operationId`: its count goes down
   * by one, and the fault goes once it reaches zero. The fault as it was taken (its `remaining` counting
   * this request), or undefined when none applies.
   */
  take(scope: Scope, operationId: string): Promise<Fault | undefined>;
  /** Drops what is known of a scope whose records were cleared (reset). */
  forget(scope: Scope): void;
  /** Reads again which scopes have faults (another process sharing the store may have armed or used some). */
  reload(): Promise<void>;
}

/** The most faults armed per scope at once: the control contract's bound on the list. */
function maxArmedFaults(): number {
  const { properties } = controlComponentSchema('SandboxFaultList');
  const list = isObject(properties) ? properties.data : undefined;
  const max = isObject(list) ? list.maxItems : undefined;
  if (typeof max !== 'number') throw new Error('the control contract gives SandboxFaultList.data no maxItems');
  return max;
}

/** The new fault the request arms, with the control contract's defaults for what it left out; a setting of another kind is null. */
function settingsOf(request: FaultRequest, defaults: Readonly<Record<string, Json>>): Omit<Fault, 'id' | 'created'> {
  const given = <T>(value: T | undefined, name: string): T => (value ?? defaults[name]) as T;
  const { kind } = request;
  const count = given(request.count, 'count');
  return {
    kind,
    operation: request.operation ?? null,
    count,
    remaining: count,
    retry_after_seconds:
      kind === 'rate_limited' || kind === 'unavailable'
        ? given(request.retry_after_seconds, 'retry_after_seconds')
        : null,
    limit: kind === 'rate_limited' ? given(request.limit, 'limit') : null,
    outcome: kind === 'server_error' ? given(request.outcome, 'outcome') : null,
    // The schema requires it for a delay.
    delay_ms: kind === 'delay' ? (request.delay_ms ?? null) : null,
  };
}

const onlyScope = (scope: Scope): Scope => ({ merchantId: scope.merchantId, mode: scope.mode });
const shown = ({ armed: _armed, ...fault }: FaultRecord): Fault => fault;
const applies = (fault: Fault, operationId: string): boolean =>
  fault.operation === null || fault.operation === operationId;

export interface FaultsOptions {
  store: Store;
  clock: Clock;
  ids: Ids;
  /**
   * Told after a fault is armed, or a reset forgotten: other sandboxes keep copies of which scopes have
   * faults. Not after faults are taken, removed or cleared: a copy still saying "armed" costs only a look.
   */
  onChange?: () => void;
}

export async function createFaults({ store, clock, ids, onChange }: FaultsOptions): Promise<SandboxFaults> {
  const changed = onChange ?? (() => undefined);
  const defaults = controlDefaults('SandboxFaultRequest');
  const max = maxArmedFaults();
  let armedScopes = new Set<string>();
  const reload = async (): Promise<void> => {
    const found = await store.findAcrossScopes<FaultRecord>(FAULTS_COLLECTION, 'armed', true);
    // Replaced whole: faults used up or removed elsewhere are gone from the store.
    armedScopes = new Set(found.map(({ scope }) => scopeKey(scope)));
  };
  await reload();
  const listIn = (tx: Transaction, scope: Scope): Promise<FaultRecord[]> =>
    tx.list<FaultRecord>(FAULTS_COLLECTION, scope, { order: 'oldest' });
  /** Notes whether the scope has faults left, after a change this process made. */
  const note = (scope: Scope, left: number): void =>
    void (left > 0 ? armedScopes.add(scopeKey(scope)) : armedScopes.delete(scopeKey(scope)));

  return {
    arm: async (given, request) => {
      const scope = onlyScope(given);
      const result = await store.transaction(async (tx): Promise<ArmResult & { left: number }> => {
        const existing = await listIn(tx, scope);
        if (existing.length >= max) return { kind: 'full', max, left: existing.length };
        const record: FaultRecord = {
          id: ids.next(),
          armed: true,
          ...settingsOf(request, defaults),
          created: clock.now(scope).toISOString(),
        };
        await tx.insert(FAULTS_COLLECTION, scope, record);
        return { kind: 'armed', fault: shown(record), left: existing.length + 1 };
      });
      note(scope, result.left);
      if (result.kind === 'armed') changed();
      return result.kind === 'armed' ? { kind: 'armed', fault: result.fault } : { kind: 'full', max: result.max };
    },
    list: async (scope) =>
      (await store.list<FaultRecord>(FAULTS_COLLECTION, onlyScope(scope), { order: 'oldest' })).map(shown),
    remove: async (given, id) => {
      const scope = onlyScope(given);
      const { removed, left } = await store.transaction(async (tx) => {
        const existing = await listIn(tx, scope);
        const found = existing.find((fault) => fault.id === id);
        if (found) await tx.delete(FAULTS_COLLECTION, scope, id);
        return { removed: found, left: existing.length - (found ? 1 : 0) };
      });
      note(scope, left);
      return removed && shown(removed);
    },
    clear: async (given) => {
      const scope = onlyScope(given);
      const removed = await store.transaction(async (tx) => {
        const existing = await listIn(tx, scope);
        for (const fault of existing) await tx.delete(FAULTS_COLLECTION, scope, fault.id);
        return existing;
      });
      note(scope, 0);
      return removed.map(shown);
    },
    anyArmed: () => armedScopes.size > 0,
    mayHaveFaults: (scope) => armedScopes.has(scopeKey(scope)),
    take: async (given, operationId) => {
      const scope = onlyScope(given);
      const { taken, left } = await store.transaction(async (tx) => {
        const existing = await listIn(tx, scope);
        const fault = existing.find((candidate) => applies(candidate, operationId));
        if (!fault) return { taken: undefined, left: existing.length };
        if (fault.remaining <= 1) {
          await tx.delete(FAULTS_COLLECTION, scope, fault.id);
          return { taken: fault, left: existing.length - 1 };
        }
        await tx.update(FAULTS_COLLECTION, scope, { ...fault, remaining: fault.remaining - 1 });
        return { taken: fault, left: existing.length };
      });
      note(scope, left);
      return taken && shown(taken);
    },
    forget: (scope) => {
      armedScopes.delete(scopeKey(scope));
      changed();
    },
    reload,
  };
}
