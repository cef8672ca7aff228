// The sandbox's observability assembled for app.ts: the log (logger.ts), the record of recent requests and
// its control operation (request-log.ts, control.ts), the request observer the site wraps every request in
// (observe.ts), the line per callback attempt, and the health check (health.ts).
import { parseBasicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import type { Handlers } from '@payments-contract/server/sandbox/server';
import type { DispatcherOptions } from '../callbacks/dispatcher.js';
import { maskUrlCredentials } from '../callbacks/mask-credentials.js';
import { scopeOf, type Caller, type Scope, type Store } from '../context.js';
import type { Merchants } from '../merchants.js';
import { requestLogControlHandlers } from './control.js';
import { createHealthCheck, type HealthAnswer } from './health.js';
import type { SandboxLogger } from './logger.js';
import { secretMasker } from './mask-secrets.js';
import { createRequestObserver, type RequestObserver } from './observe.js';
import { createRequestLog, type RequestLog } from './request-log.js';

export {
  createLogger,
  silentLogger,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
  type SandboxLogger,
} from './logger.js';
export type { HealthAnswer } from './health.js';
export { newRequestId, REQUEST_ID_HEADER } from './observe.js';
export type { RefusedRequest, RequestObserver, SiteTarget } from './observe.js';
export type { RequestLog, RequestRecord } from './request-log.js';

export interface ObservabilityOptions {
  merchants: Merchants;
  /** A scope's sandbox time (the request record's `at`). */
  now: (scope: Scope) => Date;
  store: Store;
  logger: SandboxLogger;
  /** True once the sandbox is stopping (health answers 503). */
  isStopping: () => boolean;
}

export interface Observability {
  requests: RequestLog;
  observer: RequestObserver;
  health: () => Promise<HealthAnswer>;
  onCallbackAttempt: NonNullable<DispatcherOptions['onAttempt']>;
  controlHandlers: Pick<Handlers<Caller>, 'listRequests'>;
}

export function createObservability(options: ObservabilityOptions): Observability {
  const { merchants, logger } = options;
  const mask = secretMasker(
    merchants
      .list()
      .flatMap((merchant) => [
        merchant.keys.test,
        merchant.keys.live,
        merchant.callbackTokens.test,
        merchant.callbackTokens.live,
      ]),
  );
  const requests = createRequestLog({ mask });
  const observer = createRequestObserver({
    logger,
    mask,
    requests: {
      log: requests,
      scopeOf: (authorization) => {
        const caller = merchants.authenticate(parseBasicAuthorization(authorization));
        return caller ? scopeOf(caller) : null;
      },
      now: options.now,
    },
  });
  return {
    requests,
    observer,
    health: createHealthCheck(options.store, options.isStopping),
    onCallbackAttempt: (delivery, attempt, number) =>
      logger.callbackAttempt({
        delivery_id: delivery.id,
        webhook: delivery.webhook,
        url: mask(maskUrlCredentials(delivery.url ?? '-')),
        status: attempt.status,
        error: attempt.error,
        attempt: number,
        max_attempts: delivery.max_attempts,
        duration_ms: Math.round(attempt.duration_ms * 1000) / 1000,
      }),
    controlHandlers: requestLogControlHandlers(requests),
  };
}
