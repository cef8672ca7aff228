// GET /health: what a process manager or load balancer asks before sending traffic. It needs no key and
// reads nothing of any merchant: it proves the sandbox is not stopping and that its store answers a read
// (a read waits its turn behind the writes under way, so a wedged store shows here) within a time limit.
import type { Scope, Store } from '../context.js';
import { CLOCK_COLLECTION } from '../platform/clock.js';

export type HealthAnswer =
  | { status: 200; body: { status: 'ok' } }
  | { status: 503; body: { status: 'unavailable'; error_code: 'SANDBOX_UNAVAILABLE'; message: string } };

/** A scope no key reaches (merchant ids starting with `__` are refused in the configuration). */
const HEALTH_SCOPE: Scope = { merchantId: '__health__', mode: 'test' };
export const HEALTH_TIMEOUT_MS = 2_000;

const unavailable = (message: string): HealthAnswer => ({
  status: 503,
  body: { status: 'unavailable', error_code: 'SANDBOX_UNAVAILABLE', message },
});

export function createHealthCheck(
  store: Store,
  isStopping: () => boolean,
  timeoutMs: number = HEALTH_TIMEOUT_MS,
): () => Promise<HealthAnswer> {
  return async () => {
    if (isStopping()) return unavailable('The sandbox is stopping.');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      timer.unref();
    });
    try {
      const read = store
        .transaction((tx) => tx.get(CLOCK_COLLECTION, HEALTH_SCOPE, 'health'))
        .then(() => 'read' as const);
      if ((await Promise.race([read, timedOut])) === 'timeout')
        return unavailable(`The store did not answer a read within ${timeoutMs} ms.`);
      return { status: 200, body: { status: 'ok' } };
    } catch (error) {
      return unavailable(`The store failed a read: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  };
}
