// The cases of the lookups check, one per list or lookup operation whose `x-matches` states the order of
// what it answers. The case creates three objects that share the operation's query fields (the fields of
// the creating request it queries by: a reference id, an external id, the customer), one after another,
// each with identifiers of its own; the objects they refer to are provided once, or anew for each where the
// creating operation refuses two objects referring to the same one (then two objects, each chain costing
// rate-limited requests such as OTP validations),
// and asks the operation: a list must hold all of them, each matching the query, in the stated order among
// themselves; an operation answering one object must answer the first of them in that order. Where the
// creating operation forbids sharing the field (a `duplicate` trigger on it, the uniqueness check's
// business), a list whose query is optional is asked without it; otherwise the case does not apply.
import { isObject } from '@payments-contract/contract/model';
import type { Json, MatchOrder, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { buildRequest } from '../data/requests.js';
import type { CheckContext } from '../types.js';
import type { SubjectCase, UnavailableCase } from './case-results.js';
import { getPath } from './data.js';
import { expiryField, machineForResource } from './machines.js';
import { CannotProvide, planProvision, planReferences, withReferences, type Provided } from './provision.js';
import {
  bodyReferences,
  creatorOf,
  identifierField,
  propertySchema,
  referencedKind,
  resourceKind,
  resourceOperations,
  successBody,
  triggersOf,
} from './resources.js';
import type { Scenario } from './scenario.js';
import { createdId, freshBody, requireMatchesQuery, withFields, type WorkflowEnv } from './steps.js';
import type { TargetTime } from './target-time.js';

/** How many objects share the field: two could agree with a reversed order by chance of a tie; three cannot. */
export const SHARING = 3;
/** How many when each needs its references provided anew. */
export const SHARING_RENEWED = 2;

export interface LookupPlan {
  lookup: OperationModel;
  matches: MatchOrder;
  create: OperationModel;
  /** Query parameters the objects share, each a field of the creating request of the same name. */
  shared: string[];
  /** The lookup answers a list (else one object). */
  list: boolean;
  /** Kinds the shared fields refer to: provided once, for all the objects. */
  sharedKinds: string[];
  /** Each object needs its other references provided anew (a duplicate rule of the creation names one). */
  renew: boolean;
  /** How many objects share the fields. */
  count: number;
  /** Why the lookup is asked without its optional query, when it is. */
  unfiltered?: string;
}

/** The plan of one operation's case, or why it does not apply. */
export function lookupPlan(
  contract: Contract,
  lookup: OperationModel,
): LookupPlan | { notApplicable: string } | { unavailable: string } {
  const matches = lookup.matches;
  if (!matches) return { notApplicable: `${lookup.operationId} states no order of its matches (x-matches)` };
  const kind = resourceKind(contract, lookup);
  const create = kind ? creatorOf(contract, kind) : undefined;
  if (!kind || !create)
    return {
      notApplicable: `no operation of the contract creates the ${kind ?? 'objects'} ${lookup.operationId} answers, so the suite cannot make several of them`,
    };
  if (lookup.parameters.some((p) => p.in === 'path'))
    return {
      notApplicable: `${lookup.operationId} lists what one object holds (a path parameter); the suite cannot make several under one`,
    };
  const query = lookup.parameters.filter((p) => p.in === 'query');
  const fields = query
    .filter((p) => propertySchema(contract, create.body?.schema, p.name) !== undefined)
    .map((p) => p.name);
  const forbidden = triggersOf(create, 'duplicate').find(
    ([, trigger]) =>
      Array.isArray(trigger.fields) &&
      trigger.fields.length > 0 &&
      trigger.fields.every((f) => fields.includes(String(f))),
  );
  const unbuildable = query.filter((p) => p.required && !fields.includes(p.name)).map((p) => p.name);
  if (unbuildable.length > 0)
    return {
      notApplicable: `${lookup.operationId} requires ${unbuildable.join(', ')}, which ${create.operationId} does not set`,
    };
  let shared = fields;
  let unfiltered: string | undefined;
  if (forbidden) {
    if (query.some((p) => p.required))
      return {
        notApplicable: `${create.operationId} forbids two objects with the same ${fields.join(' + ')} (${forbidden[0]}), so ${lookup.operationId} never has several to order`,
      };
    shared = [];
    unfiltered = `${create.operationId} forbids sharing ${fields.join(' + ')} (${forbidden[0]}), so the list is asked without it`;
  }
  const references = bodyReferences(contract, create);
  const sharedKinds = references.filter((r) => shared.includes(r.field)).map((r) => referencedKind(contract, r) ?? '');
  const renew = triggersOf(create, 'duplicate').some(
    ([, trigger]) =>
      Array.isArray(trigger.fields) &&
      trigger.fields.some((f) => references.some((r) => r.field === String(f) && !shared.includes(r.field))),
  );
  try {
    planReferences(contract, create);
  } catch (error) {
    if (error instanceof CannotProvide) return { unavailable: error.message };
    throw error;
  }
  return {
    lookup,
    matches,
    create,
    shared,
    list: successBody(contract, lookup).list,
    sharedKinds,
    renew,
    count: renew ? SHARING_RENEWED : SHARING,
    ...(unfiltered ? { unfiltered } : {}),
  };
}

/** The objects' ids in the order the lookup must show them. */
export const expectedOrder = (order: MatchOrder['order'], created: readonly string[]): string[] =>
  order === 'newest_first' ? [...created].reverse() : [...created];

/** Creates the objects sharing the plan's fields, one after another; their ids in order of creation, and the shared values. */
async function createSharing(
  s: Scenario,
  env: WorkflowEnv,
  time: TargetTime,
  plan: LookupPlan,
): Promise<{ ids: string[]; values: Record<string, Json> }> {
  const { contract } = s;
  const { create } = plan;
  const machine = machineForResource(contract, resourceKind(contract, create) ?? '');
  const expiry = machine ? expiryField(machine) : undefined;
  const sharedSteps = new Set(
    plan.sharedKinds.flatMap((kind) => planProvision(contract, kind).map((action) => action.step)),
  );
  const provided: Provided = new Map();
  const ids: string[] = [];
  let values: Record<string, Json> = {};
  for (let index = 0; index < plan.count; index++) {
    // Moved apart in the target's time too, so a target ordering by `created` is judged on distinct times.
    if (index > 0 && time.moved) await time.pass('observation');
    for (const action of planReferences(contract, create)) {
      if (index === 0 || (plan.renew && !sharedSteps.has(action.step))) await action.run(s, env, provided);
    }
    const fresh = withReferences(contract, create, freshBody(s, env, create, expiry), provided);
    if (index === 0)
      values = Object.fromEntries(
        plan.shared.map((field) => [
          field,
          getPath(fresh, field) ?? s.notApplicable(`${create.operationId}'s example sets no ${field} to share`),
        ]),
      );
    const body = withFields(fresh, values);
    const step = `create ${index + 1}`;
    const answer = await s.succeed(step, create, buildRequest(contract, create, { body }));
    ids.push(createdId(s, step, answer, create, resourceOperations(contract, create).read));
  }
  return { ids, values };
}

export function lookupCase(env: WorkflowEnv, time: TargetTime, plan: LookupPlan): SubjectCase {
  const { lookup, matches } = plan;
  const steps = [...Array.from({ length: plan.count }, (_, i) => `create ${i + 1}`), 'look up'];
  const sharing = plan.shared.length > 0 ? `sharing ${plan.shared.join(' + ')}` : 'one after another';
  return {
    subject: lookup.operationId,
    label: `${plan.count} objects ${sharing}, ${matches.order.replace('_', ' ')} (decision ${matches.decision})`,
    steps,
    script: async (s) => {
      if (plan.unfiltered) s.notes.push(plan.unfiltered);
      const { ids, values } = await createSharing(s, env, time, plan);
      const query = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
      const answer = await s.succeed('look up', lookup, buildRequest(s.contract, lookup, { parameters: query }));
      const field = identifierField(s.contract, plan.create, resourceOperations(s.contract, plan.create).read);
      const idOf = (item: Json): string | undefined =>
        isObject(item) && typeof item[field] === 'string' ? item[field] : undefined;
      const wanted = expectedOrder(matches.order, ids);
      if (!plan.list) {
        const got = idOf(s.object('look up', answer));
        s.flag(
          got === wanted[0],
          'look up',
          answer.exchange,
          `answered ${got ?? 'no object'} of the ${plan.count} created with the same ${plan.shared.join(' + ')} (${ids.join(', ')}, oldest first); the contract says the ${matches.order === 'newest_first' ? 'newest' : 'oldest'}, ${wanted[0]} (decision ${matches.decision})`,
        );
        return;
      }
      const items = s.list('look up', answer);
      requireMatchesQuery(s, 'look up', answer, items, query);
      const listed = items.map(idOf).filter((id): id is string => id !== undefined && ids.includes(id));
      const missing = ids.filter((id) => !listed.includes(id));
      s.flag(
        missing.length === 0,
        'look up',
        answer.exchange,
        `the list leaves out ${missing.join(', ')} of the ${plan.count} objects created ${sharing}`,
      );
      const order = wanted.filter((id) => listed.includes(id));
      s.flag(
        JSON.stringify(listed) === JSON.stringify(order),
        'look up',
        answer.exchange,
        `the list shows the objects created ${sharing} (oldest first: ${ids.join(', ')}) as ${listed.join(', ')}; the contract says ${matches.order.replace('_', ' ')}: ${order.join(', ')} (decision ${matches.decision})`,
      );
    },
  };
}

export function lookupCases(
  context: CheckContext,
  env: WorkflowEnv,
  time: TargetTime,
): { cases: SubjectCase[]; unavailable: UnavailableCase[]; notApplicable: UnavailableCase[] } {
  const cases: SubjectCase[] = [];
  const unavailable: UnavailableCase[] = [];
  const notApplicable: UnavailableCase[] = [];
  for (const lookup of context.contract.model.operations.filter((o) => o.matches !== undefined)) {
    const plan = lookupPlan(context.contract, lookup);
    const label = `order of matches (${lookup.matches?.order ?? ''})`;
    if ('notApplicable' in plan) notApplicable.push({ subject: lookup.operationId, label, reason: plan.notApplicable });
    else if ('unavailable' in plan) unavailable.push({ subject: lookup.operationId, label, reason: plan.unavailable });
    else cases.push(lookupCase(env, time, plan));
  }
  return { cases, unavailable, notApplicable };
}
