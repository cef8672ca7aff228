// What stands in front of Prism in `npm run mock`: the generated router, the same code every server built
// from the contract runs. It routes (trailing slashes, `payment_id=` segments, 404/405), authenticates,
// bounds and parses bodies and validates every request with the contract's compiled validators,
// answering failures exactly as the contract prescribes; each valid request is then forwarded to Prism,
// whose answer (an example from the contract) goes back unchanged.
//
// Why not Prism alone: Prism answers malformed JSON and unknown routes in its own formats, crashes on a
// broken form body, skips validating some bodies (PUT /customers/{id} in Prism 5.9) and treats empty
// values as absent. The mock should be a faithful stand-in for the contract, so validation is the router's.
import { createRouter, operationTable, type Handlers } from '@payments-contract/server';
import type { AnyHandler, RequestContext } from '@payments-contract/server/runtime/router';
import { fillPath } from '../http.js';

export interface MockExchange {
  method: string;
  path: string;
  status: number;
  /** True when Prism answered; false when the router answered itself (a refused request). */
  forwarded: boolean;
}

/** The mock knows no keys: any well-formed secret key (Basic, empty password) is a caller. */
type MockCaller = { key: string };

const FORWARDED_RESPONSE_HEADERS = ['www-authenticate'];

export function createMockFront(options: {
  upstream: string;
  onExchange?: (exchange: MockExchange) => void;
}): (request: Request) => Promise<Response> {
  const forwarded = new WeakSet<Request>();

  const forward = async (
    input: { path?: Record<string, string>; body?: unknown },
    context: RequestContext<MockCaller>,
  ): Promise<{ status: number; body: unknown; headers: Record<string, string> }> => {
    forwarded.add(context.request);
    const route = operationTable[context.operationId as keyof typeof operationTable];
    const incoming = new URL(context.request.url);
    // The route's own template: Prism matches paths literally (no trailing-slash variants).
    const target = new URL(fillPath(route.path, input.path ?? {}) + incoming.search, options.upstream);
    const headers = new Headers(context.request.headers);
    for (const name of ['host', 'content-length', 'content-type', 'connection']) headers.delete(name);
    // The validated body, as JSON: a form body arrives already converted to the schema's types.
    if (input.body !== undefined) headers.set('content-type', 'application/json');
    const answer = await fetch(target, {
      method: context.request.method,
      headers,
      ...(input.body !== undefined ? { body: JSON.stringify(input.body) } : {}),
    });
    const text = await answer.text();
    const kept = Object.fromEntries(
      FORWARDED_RESPONSE_HEADERS.flatMap((name) => {
        const value = answer.headers.get(name);
        return value === null ? [] : [[name, value]];
      }),
    );
    return { status: answer.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), headers: kept };
  };

  // One forwarding handler for every operation. The cast is the one place the mock steps outside the
  // handler types: it answers whatever Prism took from the contract, whose documented statuses those are.
  const handlers = Object.fromEntries(
    Object.keys(operationTable).map((id) => [id, forward as AnyHandler<MockCaller>]),
  ) as unknown as Handlers<MockCaller>;
  const router = createRouter(handlers, {
    authenticate: (credentials) =>
      credentials && credentials.username !== '' && credentials.password === '' ? { key: credentials.username } : null,
  });

  return async (request) => {
    const response = await router(request);
    options.onExchange?.({
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      forwarded: forwarded.has(request),
    });
    return response;
  };
}
