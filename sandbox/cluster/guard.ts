// What every request to a router goes through when the store can be unavailable or shared: first, what
// this process keeps in memory of the shared state (clock offsets, settings, faults) is brought up to date,
// so a change made through another sandbox is seen at once; then the router runs, and if the store could
// not be reached on the way (StoreUnavailableError), the answer is a JSON 503 the client may retry instead
// of the router's generic 500; a request that changed the shared state is answered once every sandbox's
// copy has the change (fresh-reads.ts). Both the fetch-standard entry and the router's native one are wrapped.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FetchHandler } from '@payments-contract/server/runtime/node-listener';
import {
  nativeHandlerOf,
  withNativeHandler,
  type NativeAnswer,
} from '@payments-contract/server/runtime/native-request';
import { SERVICE_UNAVAILABLE_ERROR_CODE } from '../limits/limit-answers.js';
import { isStoreUnavailable } from '../store/store.js';
import type { SharedStateReads } from './fresh-reads.js';

const UNAVAILABLE_MESSAGE =
  'The sandbox cannot reach its database right now. Retry the request in a moment (with the same Idempotency-Key where the operation takes one).';
const UNAVAILABLE_HEADERS = { 'content-type': 'application/json', 'retry-after': '1' };
const unavailableBody = JSON.stringify({ error_code: SERVICE_UNAVAILABLE_ERROR_CODE, message: UNAVAILABLE_MESSAGE });

/** Per request: whether the store failed it by being unreachable. */
interface RequestState {
  unavailable: boolean;
}

export interface StoreGuard {
  /** Wraps a router (its native entry too, when it has one). */
  wrap(router: FetchHandler): FetchHandler;
  /**
   * For the routers' onError: true when the error is the store being unreachable, noted for the request
   * under way (which is then answered 503); such errors need no report of their own.
   */
  noteUnavailable(error: unknown): boolean;
}

export interface StoreGuardOptions {
  /** With a shared store: read again before a request (a failure that is the store's answers 503), and published before its answer. */
  shared?: Pick<SharedStateReads, 'fresh' | 'published' | 'now'>;
}

export function createStoreGuard(options: StoreGuardOptions = {}): StoreGuard {
  const requests = new AsyncLocalStorage<RequestState>();
  const { shared } = options;

  /** Runs `handle` for one request; `unavailable` makes the 503, `status` reads an answer's status. */
  const guarded = async <A>(
    handle: () => Promise<A>,
    status: (answer: A) => number,
    unavailable: () => A,
  ): Promise<A> => {
    const state: RequestState = { unavailable: false };
    return requests.run(state, async () => {
      const since = shared?.now() ?? 0;
      if (shared) {
        try {
          await shared.fresh();
        } catch (error) {
          if (isStoreUnavailable(error)) return unavailable();
          throw error;
        }
      }
      const answer = await handle();
      await shared?.published(since);
      return state.unavailable && status(answer) >= 500 ? unavailable() : answer;
    });
  };

  return {
    wrap: (router) => {
      // Only a store other sandboxes share is reached over the network (PostgreSQL): an embedded one is never
      // unreachable and has no shared state to read, so its routers are served as they are. The per-request
      // state would cost every request: on Node 20, AsyncLocalStorage hooks every promise once it is used.
      if (!shared) return router;
      const fetchEntry: FetchHandler = (request) =>
        guarded(
          () => router(request),
          (response) => response.status,
          () => new Response(unavailableBody, { status: 503, headers: UNAVAILABLE_HEADERS }),
        );
      const native = nativeHandlerOf(router);
      if (!native) return fetchEntry;
      return withNativeHandler(fetchEntry, (request) =>
        guarded(
          () => native(request),
          (answer) => answer.status,
          (): NativeAnswer => ({ status: 503, headers: { ...UNAVAILABLE_HEADERS }, body: unavailableBody }),
        ),
      );
    },
    noteUnavailable: (error) => {
      if (!isStoreUnavailable(error)) return false;
      const state = requests.getStore();
      if (state) state.unavailable = true;
      return true;
    },
  };
}
