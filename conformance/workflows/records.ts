// Resources that are created once and then only read (disbursements, e-wallet payments): create -> get by
// id (when the contract has an item read) -> create another with other identifiers -> find by the
// identifiers the first create request carried: the first is found, and nothing the lookup did not ask for
// (the other) is answered.
import { buildRequest } from '../data/requests.js';
import { isObject } from '@payments-contract/contract/model';
import { machineWithCreation, statesAfter } from './machines.js';
import { identifierField, resourceOperations } from './resources.js';
import {
  createdId,
  freshBody,
  itemRequest,
  lookupRequest,
  creationOrSkip,
  requireMatchesQuery,
  requireState,
  resourceOrSkip,
  type Workflow,
} from './steps.js';

export function recordWorkflow(subject: string, machineKey: string): Workflow {
  return {
    subject,
    // Without an item read (e-wallet payments), the lookup is the only way back to the resource.
    steps: (contract) => {
      const found = machineWithCreation(contract, machineKey);
      return [
        'create',
        ...(found && resourceOperations(contract, found.create).read ? ['get by id'] : []),
        'create another',
        'find by identifier',
      ];
    },
    script: async (s, env) => {
      const { machine, create } = creationOrSkip(s, machineKey);
      const { read, lookup } = resourceOrSkip(s, create, ['lookup']);
      const body = freshBody(s, env, create);

      const created = await s.succeed('create', create, buildRequest(s.contract, create, { body }));
      requireState(s, 'create', created, machine, statesAfter(machine, null, create.operationId));
      const id = read ? createdId(s, 'create', created, create, read) : undefined;

      if (read && id !== undefined) {
        const got = await s.succeed('get by id', read, itemRequest(s, read, id));
        s.require(
          createdId(s, 'get by id', got, create, read) === id,
          'get by id',
          got.exchange,
          `answered another resource than ${id}`,
        );
      }

      // A lookup that ignores its query would still find a lone resource; with another one stored it answers both.
      await s.succeed('create another', create, buildRequest(s.contract, create, { body: freshBody(s, env, create) }));

      const { request, query } = lookupRequest(s, lookup, body);
      const found = await s.succeed('find by identifier', lookup, request);
      const items = Array.isArray(found.value) ? found.value : [s.object('find by identifier', found)];
      requireMatchesQuery(s, 'find by identifier', found, items, query);
      if (id !== undefined) {
        const field = identifierField(s.contract, create, read);
        s.require(
          items.some((item) => isObject(item) && item[field] === id),
          'find by identifier',
          found.exchange,
          `the created resource ${id} is not among the answers`,
        );
      }
      // Found resources are in a state of the machine (it may have moved on since creation).
      for (const item of items)
        requireState(s, 'find by identifier', { exchange: found.exchange, value: item }, machine, machine.states);
    },
  };
}
