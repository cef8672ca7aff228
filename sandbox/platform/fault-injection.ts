// Where armed faults (faults.ts) meet the service's requests: a wrapper around the service router that,
// once a request's operation is known and its key is valid, takes a fault of the key's merchant and mode
// for it and answers as the fault says. Outside the router, because a fault's 429 and 503 are answers the
// router's handlers cannot give, and before its handler, so a rate limit or unavailability carries nothing
// out. A request without a valid key, or to no operation, goes to the router untouched (its 401, 404, 405)
// and takes no fault. While no scope has a fault armed, a request costs one check of a flag.
import { operationTable } from '@payments-contract/server';
import { parseBasicAuthorization, type BasicCredentials } from '@payments-contract/server/runtime/basic-auth';
import {
  answerToResponse,
  nativeFromRequest,
  nativeHandlerOf,
  withNativeHandler,
  type NativeAnswer,
  type NativeHandler,
  type NativeRequest,
} from '@payments-contract/server/runtime/native-request';
import type { FetchHandler } from '@payments-contract/server/runtime/node-listener';
import { createPathMatcher } from '@payments-contract/server/runtime/path-matcher';
import { DEFAULT_MAX_BODY_BYTES, type ErrorAnswer } from '@payments-contract/server/runtime/router';
import type { Scope } from '../store/store.js';
import type { Fault, SandboxFaults } from './faults.js';
import { rateLimitedAnswer, SERVICE_UNAVAILABLE_ERROR_CODE } from '../limits/limit-answers.js';

/** The header naming the fault that made an answer, for the developer reading it. */
export const FAULT_HEADER = 'x-sandbox-fault';

export interface FaultInjectionOptions {
  faults: Pick<SandboxFaults, 'anyArmed' | 'mayHaveFaults' | 'take'>;
  /** The scope of a request's Basic credentials, or null for no valid key (the router then answers 401). */
  authenticate: (credentials: BasicCredentials | null) => Scope | null;
  /** Told when taking a fault failed (the request is answered 500, or 503 by the store guard around it). */
  onError?: (error: unknown, request: Request) => void;
}

export interface FaultInjection {
  /** The router with faults applied; it must offer the native entry (generated routers do). */
  wrap(router: FetchHandler): FetchHandler;
  /** Sends every answer a delay is holding back now: the sandbox is stopping and must not wait for them. */
  release(): void;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): NativeAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const simulated = (fault: Fault): string => `Simulated by sandbox fault ${fault.id}.`;

/** A fault's answer that does not carry the request out: read the body anyway, so the request log shows what was sent. */
async function withoutRunning(request: NativeRequest, answer: NativeAnswer): Promise<NativeAnswer> {
  try {
    await request.readBody(DEFAULT_MAX_BODY_BYTES);
  } catch {
    // A body that cannot be read changes nothing about the answer.
  }
  return answer;
}

export function createFaultInjection(options: FaultInjectionOptions): FaultInjection {
  const { faults, authenticate } = options;
  const routes = Object.entries(operationTable).map(([operationId, route]) => ({
    method: route.method,
    path: route.path,
    value: { operationId, serverError: route.serverError },
  }));
  const match = createPathMatcher(routes);
  const held = new Set<() => void>();

  /** Resolves `ms` after now, or at once on `release`. */
  const hold = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        held.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      held.add(done);
    });

  /** What the fault makes of the request; `run` carries it out through the router. */
  async function faulted(
    fault: Fault,
    request: NativeRequest,
    serverError: ErrorAnswer,
    arrived: number,
    run: NativeHandler,
  ): Promise<NativeAnswer> {
    const marked = { [FAULT_HEADER]: fault.id };
    // A fault's own settings are set for its kind (faults.ts); the fallbacks only satisfy the nullable type.
    const seconds = fault.retry_after_seconds ?? 1;
    const again = `send this request again in ${seconds} second${seconds === 1 ? '' : 's'}`;
    switch (fault.kind) {
      case 'rate_limited': {
        const answer = rateLimitedAnswer({
          limit: fault.limit ?? 1,
          remaining: 0,
          resetSeconds: seconds,
          retryAfterSeconds: seconds,
          message: `Too many requests: ${again}. ${simulated(fault)}`,
        });
        return withoutRunning(request, { ...answer, headers: { ...answer.headers, ...marked } });
      }
      case 'unavailable':
        return withoutRunning(
          request,
          json(
            503,
            {
              error_code: SERVICE_UNAVAILABLE_ERROR_CODE,
              message: `The service is unavailable: ${again}. ${simulated(fault)}`,
            },
            { 'retry-after': String(seconds), ...marked },
          ),
        );
      case 'server_error': {
        const answer = json(
          serverError.status,
          {
            error_code: serverError.error_code,
            message: `The service could not complete the request. Check the object's state before retrying. ${simulated(fault)}`,
          },
          marked,
        );
        if (fault.outcome !== 'applied') return withoutRunning(request, answer);
        // Carried out as usual (stored, idempotency key recorded with its real answer), then lost on the way back.
        await run(request);
        return answer;
      }
      case 'delay': {
        const answer = await run(request);
        await hold(Math.max(0, arrived + (fault.delay_ms ?? 0) - performance.now()));
        answer.headers[FAULT_HEADER] = fault.id;
        return answer;
      }
    }
  }

  return {
    wrap: (router) => {
      const run = nativeHandlerOf(router);
      if (!run) throw new Error("fault injection needs the router's native entry");
      const withFaults: NativeHandler = async (request) => {
        const arrived = performance.now();
        const found = match(request.method.toUpperCase(), request.pathname);
        if (found.kind !== 'found') return run(request);
        const scope = authenticate(parseBasicAuthorization(request.header('authorization')));
        if (scope === null || !faults.mayHaveFaults(scope)) return run(request);
        let fault: Fault | undefined;
        try {
          fault = await faults.take(scope, found.value.operationId);
        } catch (error) {
          options.onError?.(error, request.toRequest());
          return json(found.value.serverError.status, {
            error_code: found.value.serverError.error_code,
            message: "The service could not complete the request. Check the object's state before retrying.",
          });
        }
        return fault ? faulted(fault, request, found.value.serverError, arrived, run) : run(request);
      };
      // Not an async function: while no fault is armed, the router's own promise is handed back as it is,
      // without a promise and turns of the microtask queue of its own per request.
      const native: NativeHandler = (request) => (faults.anyArmed() ? withFaults(request) : run(request));
      const fetchEntry: FetchHandler = async (request) =>
        faults.anyArmed() ? answerToResponse(await native(nativeFromRequest(request))) : router(request);
      return withNativeHandler(fetchEntry, native);
    },
    release: () => {
      for (const done of [...held]) done();
    },
  };
}
