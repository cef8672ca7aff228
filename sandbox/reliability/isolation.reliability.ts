// Isolation across merchants and modes, for every resource: two merchants in two modes (four scopes) each
// get one resource of every kind the contract lets a client make (the conformance suite's derived
// provisioning). Then every scope tries, with its own key, every operation of both contracts on every other
// scope's resources: by id in the path, by the fields a lookup takes, by reference in a request body. None may
// succeed, and no answer may show another scope's resource; the owners' own reads (which must succeed), the
// clocks, settings and balances of every scope are the same afterwards. Last, scope-wide writes (the clock,
// settings, a top-up, a reset) in one scope must leave the other three as they were.
import { describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import {
  bodyExamples,
  bodyReferences,
  buildRequest,
  CannotProvide,
  type CheckContext,
  type Contract,
  creatorOf,
  DEFAULT_WORKFLOW_SETTINGS,
  type Exchange,
  freshBody,
  getPath,
  identifierFields,
  planProvision,
  planReferences,
  type Provided,
  referencedKind,
  type RequestSpec,
  resourceKind,
  resourceKinds,
  resourceOperations,
  runScenario,
  setPath,
  successStatuses,
  UniqueValues,
  withReferences,
  type WorkflowEnv,
} from '@payments-contract/conformance/testing';
import type { TestKeyName } from '../testing/index.js';
import { controlContract, findingLines, liveContext, liveScenario, serviceContract } from './live-conformance.js';
import { summaryLine } from './scale.js';
import { useSandbox } from './fixtures.js';
import { SCOPES } from './sandbox-process.js';

const CONTRACTS: readonly Contract[] = [serviceContract, controlContract];
const succeeded = (operation: OperationModel, exchange: Exchange): boolean =>
  successStatuses(operation).includes(exchange.status);
const idOf = (resource: JsonObject): string | undefined => (typeof resource.id === 'string' ? resource.id : undefined);
const pathParameter = (operation: OperationModel) => operation.parameters.find((p) => p.in === 'path');
/**
 * The record of a scope's own recent requests grows with every read the snapshot itself makes, so it is
 * never the same twice; that it shows no other scope's request is what the listing attacks check.
 */
const OWN_REQUEST_LOG = /^listRequests$/;
/** The sandbox's "current time" moves with real time: left out when two readings are compared. */
const withoutNow = (text: string): string => text.replace(/"now":"[^"]*"/g, '"now":""');

interface Scope {
  key: TestKeyName;
  contexts: Map<Contract, CheckContext>;
  provided: Provided;
  /** Ids of this scope's resources. */
  ids: Set<string>;
}

interface Counts {
  requests: number;
  crossReads: string[];
  crossWrites: string[];
  ownerMisses: string[];
  changed: string[];
}

/** Every answer a scope's reads give: its resources by id, and every operation that takes no required parameter. */
async function snapshot(scope: Scope, counts: Counts): Promise<Map<string, string>> {
  const taken = new Map<string, string>();
  for (const [contract, context] of scope.contexts) {
    for (const operation of contract.model.operations.filter((o) => o.method === 'get')) {
      if (operation.parameters.some((p) => p.required) || OWN_REQUEST_LOG.test(operation.operationId)) continue;
      counts.requests++;
      const exchange = await context.http.send(buildRequest(contract, operation));
      taken.set(`${scope.key} ${operation.operationId}`, `${exchange.status} ${withoutNow(exchange.bodyText)}`);
    }
  }
  for (const [kind, resource] of scope.provided) {
    const create = creatorOf(serviceContract, kind);
    const read = create ? resourceOperations(serviceContract, create).read : undefined;
    const id = idOf(resource);
    if (!read || id === undefined) continue;
    counts.requests++;
    const exchange = await scope.contexts
      .get(serviceContract)!
      .http.send(buildRequest(serviceContract, read, { parameters: { [pathParameter(read)!.name]: id } }));
    if (!succeeded(read, exchange))
      counts.ownerMisses.push(`${scope.key} cannot read its own ${kind} ${id}: ${exchange.status}`);
    taken.set(`${scope.key} ${read.operationId} ${id}`, `${exchange.status} ${withoutNow(exchange.bodyText)}`);
  }
  return taken;
}

/** A body for `operation` whose references name the owner's resources (by kind, or by the fields they share). */
function foreignBody(
  context: CheckContext,
  env: WorkflowEnv,
  contract: Contract,
  operation: OperationModel,
  owned: Provided,
): Json | undefined {
  const { scenario } = liveScenario(context, operation.operationId, env.unique);
  let body: Json;
  try {
    body =
      contract === serviceContract
        ? freshBody(scenario, env, operation)
        : (bodyExamples(contract, operation)[0]?.value ?? {});
  } catch {
    return undefined;
  }
  body = withReferences(contract, operation, body, owned);
  for (const reference of bodyReferences(contract, operation)) {
    if (referencedKind(contract, reference) !== undefined) continue;
    // A reference by a field the resource carries (an e-wallet payment's external_id): the resource with
    // most of the body's fields gives them all.
    const fields = isObject(body) ? Object.keys(body) : [];
    const source = [...owned.values()]
      .filter((resource) => getPath(resource, reference.field) !== undefined)
      .sort((a, b) => fields.filter((f) => f in b).length - fields.filter((f) => f in a).length)[0];
    if (!source) return undefined;
    body = fields
      .filter((field) => field in source)
      .reduce<Json>((current, field) => setPath(current, field, source[field] ?? null), body);
  }
  return body;
}

interface Attack {
  contract: Contract;
  operation: OperationModel;
  request: RequestSpec;
  what: string;
  /** The resource kinds it aims at. */
  kinds: string[];
  /** A lookup or list: it may succeed, but must not show the resource. */
  listing: boolean;
}

/** Every request scope `attacker` can make about `owner`'s resources, each with how its answer is judged. */
function attacks(owner: Scope, attacker: Scope, env: WorkflowEnv): Attack[] {
  const planned: Attack[] = [];
  for (const contract of CONTRACTS) {
    for (const operation of contract.model.operations) {
      const parameter = pathParameter(operation);
      const queries = operation.parameters.filter((p) => p.in === 'query');
      for (const [kind, resource] of owner.provided) {
        const id = idOf(resource);
        if (parameter && id !== undefined) {
          planned.push({
            contract,
            operation,
            request: buildRequest(contract, operation, { parameters: { [parameter.name]: id } }),
            what: `${operation.operationId} on ${owner.key}'s ${kind} ${id}`,
            kinds: [kind],
            listing: false,
          });
        }
        const values = Object.fromEntries(
          queries.flatMap((p) => {
            const value = getPath(resource, p.name);
            return typeof value === 'string' || typeof value === 'number' ? [[p.name, String(value)]] : [];
          }),
        );
        if (
          !parameter &&
          queries.length > 0 &&
          Object.keys(values).length > 0 &&
          queries.filter((p) => p.required).every((p) => p.name in values)
        ) {
          planned.push({
            contract,
            operation,
            request: buildRequest(contract, operation, { parameters: values }),
            what: `${operation.operationId} by ${Object.keys(values).join(', ')} of ${owner.key}'s ${kind}`,
            kinds: [kind],
            listing: true,
          });
        }
      }
      if (!parameter && operation.body && bodyReferences(contract, operation).length > 0) {
        const body = foreignBody(attacker.contexts.get(contract)!, env, contract, operation, owner.provided);
        const kinds = bodyReferences(contract, operation).map(
          (reference) => referencedKind(contract, reference) ?? reference.field,
        );
        if (body !== undefined)
          planned.push({
            contract,
            operation,
            request: buildRequest(contract, operation, { body }),
            what: `${operation.operationId} referring to ${owner.key}'s resources`,
            kinds,
            listing: false,
          });
      }
    }
  }
  return planned;
}

describe('isolation across merchants and modes', () => {
  // Objects that finish by themselves would change a scope's answers with no other scope acting.
  const started = useSandbox({ env: { SANDBOX_AUTO_PROGRESS: 'false' } });

  it("lets no scope read, find, change or refer to another scope's resources, clock, settings or balance", async () => {
    const { sandbox, receiver } = started;
    const env: WorkflowEnv = { unique: new UniqueValues(serviceContract), settings: DEFAULT_WORKFLOW_SETTINGS };
    const counts: Counts = { requests: 0, crossReads: [], crossWrites: [], ownerMisses: [], changed: [] };
    const scopes: Scope[] = SCOPES.map((key) => ({
      key,
      contexts: new Map(
        CONTRACTS.map((contract) => [
          contract,
          liveContext({ baseUrl: sandbox.url, key, contract, callbackUrl: receiver.publicUrl }),
        ]),
      ),
      provided: new Map(),
      ids: new Set(),
    }));

    // One resource of every kind the contract lets a client make, in every scope.
    const kinds = [...resourceKinds(serviceContract).keys()];
    const unprovidable = new Set<string>();
    for (const scope of scopes) {
      const context = scope.contexts.get(serviceContract)!;
      const planned = new Set<string>();
      const result = await runScenario(context, 'stateful_workflows', `provision ${scope.key}`, [], async (s) => {
        for (const kind of kinds) {
          if (scope.provided.has(kind)) continue;
          const create = creatorOf(serviceContract, kind);
          try {
            // What it refers to first; a kind nothing creates comes from the list its owner yields.
            for (const action of create
              ? planReferences(serviceContract, create, planned)
              : planProvision(serviceContract, kind, planned))
              await action.run(s, env, scope.provided);
          } catch (error) {
            if (!(error instanceof CannotProvide)) throw error;
            unprovidable.add(kind);
            continue;
          }
          if (!create) continue;
          planned.add(kind);
          const answer = await s.succeed(
            create.operationId,
            create,
            buildRequest(serviceContract, create, {
              body: withReferences(serviceContract, create, freshBody(s, env, create), scope.provided),
            }),
          );
          scope.provided.set(kind, s.object(create.operationId, answer));
        }
      });
      expect(findingLines(result.findings), `provisioning in ${scope.key}`).toEqual([]);
      for (const [kind, resource] of scope.provided) {
        const create = creatorOf(serviceContract, kind);
        // What names it: its id, and the values its duplicate rule and lookup go by (an e-wallet payment has no id).
        for (const field of ['id', ...(create ? identifierFields(serviceContract, create) : [])]) {
          const value = getPath(resource, field);
          if (typeof value === 'string' && value.length >= 8) scope.ids.add(value);
        }
      }
    }
    const before = new Map(
      (await Promise.all(scopes.map((scope) => snapshot(scope, counts)))).flatMap((taken) => [...taken]),
    );

    // Every scope against every other; a lookup in the owner's own scope must find what it looks for. The
    // owners are attacked side by side: each attack is judged by its own answer, and what a wrongly accepted
    // write changed is found by the comparison after them all.
    const attacked = new Map<string, number>();
    await Promise.all(
      scopes.map(async (owner) => {
        for (const attack of attacks(owner, owner, env).filter(
          (a) => a.listing && a.kinds.includes(resourceKind(a.contract, a.operation) ?? ''),
        )) {
          counts.requests++;
          const exchange = await owner.contexts.get(attack.contract)!.http.send(attack.request);
          if (!succeeded(attack.operation, exchange) || ![...owner.ids].some((id) => exchange.bodyText.includes(id)))
            counts.ownerMisses.push(
              `${owner.key}: ${attack.what} in its own scope answered ${exchange.status} without it`,
            );
        }
        for (const attacker of scopes.filter((scope) => scope !== owner)) {
          for (const attack of attacks(owner, attacker, env)) {
            counts.requests++;
            for (const kind of attack.kinds) attacked.set(kind, (attacked.get(kind) ?? 0) + 1);
            const exchange = await attacker.contexts.get(attack.contract)!.http.send(attack.request);
            if (!succeeded(attack.operation, exchange)) continue;
            const shown = [...owner.ids].filter((id) => exchange.bodyText.includes(id));
            if (attack.listing && shown.length === 0) continue;
            const line = `${attacker.key}: ${attack.what} answered ${exchange.status}${shown.length > 0 ? ` showing ${shown.join(', ')}` : ''}`;
            (attack.operation.method === 'get' ? counts.crossReads : counts.crossWrites).push(line);
          }
        }
      }),
    );
    const after = new Map(
      (await Promise.all(scopes.map((scope) => snapshot(scope, counts)))).flatMap((taken) => [...taken]),
    );
    for (const [key, value] of before)
      if (after.get(key) !== value)
        counts.changed.push(`${key}: ${value.slice(0, 160)} -> ${after.get(key)?.slice(0, 160)}`);

    // Scope-wide writes in the first scope: every control operation without a path or a body reference (the
    // clock, the settings, a top-up, and last a reset), with its example body.
    const [first, ...others] = scopes;
    const control = first!.contexts.get(controlContract)!;
    const scopeWide = controlContract.model.operations.filter(
      (o) => o.method !== 'get' && !pathParameter(o) && bodyReferences(controlContract, o).length === 0,
    );
    const ordered = [
      ...scopeWide.filter((o) => !/reset/i.test(o.operationId)),
      ...scopeWide.filter((o) => /reset/i.test(o.operationId)),
    ];
    for (const operation of ordered) {
      counts.requests++;
      const exchange = await control.http.send(buildRequest(controlContract, operation));
      if (!succeeded(operation, exchange))
        counts.ownerMisses.push(
          `${first!.key} ${operation.operationId} on its own scope: ${exchange.status} ${exchange.bodyText.slice(0, 120)}`,
        );
    }
    const othersAfter = new Map(
      (await Promise.all(others.map((scope) => snapshot(scope, counts)))).flatMap((taken) => [...taken]),
    );
    for (const [key, value] of othersAfter)
      if (before.get(key) !== value)
        counts.changed.push(
          `after ${first!.key}'s ${ordered.map((o) => o.operationId).join(', ')}: ${key}: ${before.get(key)?.slice(0, 160)} -> ${value.slice(0, 160)}`,
        );

    const provisioned = kinds.filter((kind) => !unprovidable.has(kind));
    console.log(
      summaryLine('isolation', {
        scopes: scopes.length,
        'resource kinds': provisioned.length,
        'kinds nothing makes': [...unprovidable].join(',') || 'none',
        'scope-wide writes': ordered.map((o) => o.operationId).join(','),
        requests: counts.requests,
        'cross-scope reads': counts.crossReads.length,
        'cross-scope writes': counts.crossWrites.length,
        'changed by another scope': counts.changed.length,
        'owner misses': counts.ownerMisses.length,
      }),
    );
    console.log(
      `  cross-scope requests per kind: ${provisioned.map((kind) => `${kind} ${attacked.get(kind) ?? 0}`).join(', ')}`,
    );
    for (const line of [...counts.crossReads, ...counts.crossWrites, ...counts.changed, ...counts.ownerMisses].slice(
      0,
      20,
    ))
      console.log(`  ${line}`);

    expect(provisioned.length, 'resource kinds provisioned').toBeGreaterThan(0);
    expect(counts.ownerMisses, 'owners failing on their own resources').toEqual([]);
    expect(counts.crossReads, 'cross-scope reads').toEqual([]);
    expect(counts.crossWrites, 'cross-scope writes').toEqual([]);
    expect(counts.changed, 'answers changed by another scope').toEqual([]);
    // Every kind made was aimed at from the other scopes.
    expect(
      provisioned.filter((kind) => !attacked.has(kind)),
      'kinds no cross-scope request aimed at',
    ).toEqual([]);
  });
});
