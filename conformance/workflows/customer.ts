// Resources without a state machine whose identifier must be unique (customers): create -> the same
// create again is refused with the operation's `duplicate` code -> update -> the lookup finds the
// resource with the update applied.
import { isObject } from '@payments-contract/contract/model';
import { buildRequest } from '../data/requests.js';
import { getPath } from './data.js';
import { creatorOf, identifierField, triggersOf } from './resources.js';
import {
  createdId,
  freshBody,
  itemRequest,
  lookupRequest,
  requireMatchesQuery,
  resourceOrSkip,
  unreflectedFields,
  type Workflow,
} from './steps.js';

export function uniqueResourceWorkflow(subject: string, kind: string): Workflow {
  return {
    subject,
    steps: ['create', 'create again', 'update', 'find'],
    script: async (s, env) => {
      const create = creatorOf(s.contract, kind) ?? s.skip(`the contract has no operation that creates a ${kind}`);
      const { update, lookup, read } = resourceOrSkip(s, create, ['update', 'lookup']);
      const body = freshBody(s, env, create);
      const duplicate = triggersOf(create, 'duplicate').find(
        ([, trigger]) =>
          Array.isArray(trigger.fields) && trigger.fields.every((field) => getPath(body, String(field)) !== undefined),
      );
      if (!duplicate) return s.skip(`${create.operationId} documents no duplicate rule on fields its example sends`);

      const created = await s.succeed('create', create, buildRequest(s.contract, create, { body }));
      const id = createdId(s, 'create', created, create, read ?? update);
      await s.reject('create again', create, buildRequest(s.contract, create, { body }), duplicate[0]);

      const change = freshBody(s, env, update);
      const updated = await s.succeed('update', update, itemRequest(s, update, id, change));
      const stale = unreflectedFields(change, updated.value);
      s.require(
        stale.length === 0,
        'update',
        updated.exchange,
        `the answer does not show the updated ${stale.join(', ')}`,
      );

      const { request, query } = lookupRequest(s, lookup, created.value);
      const found = await s.succeed('find', lookup, request);
      const items = s.list('find', found);
      requireMatchesQuery(s, 'find', found, items, query);
      const field = identifierField(s.contract, create, read ?? update);
      const item = items.find((candidate) => isObject(candidate) && candidate[field] === id);
      s.require(item !== undefined, 'find', found.exchange, `the created resource ${id} is not among the answers`);
      const lost = unreflectedFields(change, item ?? null);
      s.require(
        lost.length === 0,
        'find',
        found.exchange,
        `the found resource does not show the updated ${lost.join(', ')}`,
      );
    },
  };
}
