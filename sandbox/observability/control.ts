// The control API's listRequests (spec/sandbox/paths/sandbox_requests.yaml): the key's merchant and mode's
// recent service requests from the request record, newest first.
import type { Handlers } from '@payments-contract/server/sandbox/server';
import { scopeOf, type Caller } from '../context.js';
import type { RequestLog } from './request-log.js';

/** How many requests a list holds when the request names no limit (the contract's default). */
const DEFAULT_LIMIT = 50;

export function requestLogControlHandlers(log: RequestLog): Pick<Handlers<Caller>, 'listRequests'> {
  return {
    listRequests: ({ query }, { principal }) => ({
      status: 200,
      body: { data: log.list(scopeOf(principal), query.limit ?? DEFAULT_LIMIT) },
    }),
  };
}
