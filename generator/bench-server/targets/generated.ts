// The generated router on the generated Node listener, as a team implementing the service serves it
// (the published package's compiled JavaScript, not the TypeScript sources).
import type { Server } from 'node:http';
import { createRouter, operationTable, type Handlers } from '@payments-contract/server';
import { createNodeServer } from '@payments-contract/server/runtime/node-listener';
import { handlers, principalFor, type Principal } from '../scenario.js';

/** Every operation the benchmark does not call answers the generic 500; the router needs one handler each. */
function notServed() {
  return {
    status: 500 as const,
    body: { error_code: 'SERVER_ERROR' as const, message: 'Not served by the benchmark.' },
  };
}

export function createGeneratedServer(): Server {
  // Typed one by one below; the rest only need to exist.
  const rest = Object.fromEntries(
    Object.keys(operationTable).map((operationId) => [operationId, notServed]),
  ) as unknown as Handlers<Principal>;
  const router = createRouter<Principal>(
    {
      ...rest,
      getBalance: ({ query }) => handlers.getBalance(query),
      getFixedVirtualAccount: ({ path }) => handlers.getFixedVirtualAccount(path.id),
      createDisbursement: ({ body }) => handlers.createDisbursement(body),
    },
    { authenticate: principalFor },
  );
  return createNodeServer(router, { origin: 'http://127.0.0.1' });
}
