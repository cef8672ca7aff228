// The sandbox assembled: the store opened with the platform's and every product module's collections, the
// platform services behind SandboxContext, and the two generated routers (the service contract and the
// control API) with the modules' handlers and the core's own (clock, settings, faults, request log, resource
// lists), both authenticating through the merchants' keys. Nothing here knows a rule of the service or names
// a product: the modules (modules.ts) implement operations, the routers enforce the contracts.
import { createRouter, type AroundOperation } from '@payments-contract/server';
import { createRouter as createControlRouter } from '@payments-contract/server/sandbox/server';
import type { FetchHandler } from '@payments-contract/server/runtime/node-listener';
import type { DeliveryRecord } from './callbacks/outbox.js';
import { listenerControlHandlers, type ListenerControlHandlers } from './callbacks/listener-control.js';
import type { SandboxConfig } from './config.js';
import type { Caller, SandboxSettings, SandboxContext } from './context.js';
import { controlRateLimits, serviceRateLimits } from './contract.js';
import { enforceRateLimits } from './limits/enforce.js';
import { createRateLimiter } from './limits/rate-limits.js';
import { createMerchants, type Merchants } from './merchants.js';
import {
  createObservability,
  silentLogger,
  type HealthAnswer,
  type Observability,
  type RequestLog,
  type RequestObserver,
  type SandboxLogger,
} from './observability/index.js';
import {
  combineHandlers,
  completeControl,
  completeService,
  composeModules,
  type AnySandboxModule,
  type ControlHandlers,
} from './module.js';
import { PRODUCTS } from './modules.js';
import * as platformModule from './platform/index.js';
import type { FaultControlHandlers, Platform, PlatformControlHandlers } from './platform/index.js';
import { resourceListHandlers } from './platform/resources.js';
import type { PlatformSettings } from './platform/settings.js';
import { createStoreGuard } from './cluster/guard.js';
import { createSharedStateReads } from './cluster/fresh-reads.js';
import { openConfiguredStore } from './store/open-store.js';

/** The control operations the core implements (the products implement the others: modules.ts checks it). */
export type CoreControlOperation =
  | keyof PlatformControlHandlers
  | keyof ListenerControlHandlers
  | keyof FaultControlHandlers
  | keyof Observability['controlHandlers']
  | 'listResources';

/** How often, with a shared store, background work reads again the clocks and settings other sandboxes may have moved. */
export const SHARED_STATE_REFRESH_MS = 500;

export interface SandboxAppOptions {
  /** Sends the callbacks; tests pass an in-process receiver. Default: the global fetch. */
  fetch?: typeof fetch;
  /** Told about thrown handler errors and answers off the contract (the client sees the generic 500). */
  onError?: (error: unknown, request: Request) => void;
  /** Told when a callback has failed its last attempt. Default: a warning line. */
  onAlert?: (delivery: DeliveryRecord) => void;
  /** The real clock in ms (tests fix it). */
  realTime?: () => number;
  /** Where the lines per request and per callback attempt go. Default: nowhere (main.ts gives the configured one). */
  logger?: SandboxLogger;
  /** The product modules. Default: the sandbox's products (modules.ts); tests compose others. */
  modules?: readonly AnySandboxModule[];
}

export interface SandboxApp {
  config: SandboxConfig;
  merchants: Merchants;
  ctx: SandboxContext;
  platform: Platform;
  /** The service contract's router. */
  service: FetchHandler;
  /** The control API's router (/sandbox...). */
  control: FetchHandler;
  /** The recent service requests of each merchant and mode (the control API's listRequests). */
  requests: RequestLog;
  /** What the site wraps every request in: request id, log line, request record. */
  observer: RequestObserver;
  /** GET /health's answer. */
  health(): Promise<HealthAnswer>;
  /** Starts delivering callbacks and finishing what finishes by itself (pending ones from an earlier run first). */
  start(): Promise<void>;
  /** Stops the dispatcher (waiting for attempts under way) and closes the store. */
  close(): Promise<void>;
}

/**
 * Per-kind callback URLs from the configuration (SANDBOX_CALLBACK_URL_<SETTING>) as the default of their
 * setting, under what the control API sets. The platform's settings take one default URL for all kinds, so
 * a setting still at that default is replaced here with its own URL.
 */
function withPerKindCallbackUrls(
  settings: PlatformSettings,
  defaultUrl: string | null,
  perKind: Readonly<Record<string, string>>,
): PlatformSettings {
  const entries = Object.entries(perKind);
  if (entries.length === 0) return settings;
  const apply = <T extends Readonly<SandboxSettings>>(current: T): T => {
    const callback_urls = { ...current.callback_urls };
    for (const [setting, url] of entries)
      if ((callback_urls[setting] ?? null) === defaultUrl) callback_urls[setting] = url;
    return { ...current, callback_urls };
  };
  // The platform's uncopied settings of a scope are one object until they change (a new one then): each is
  // given its URLs once.
  const peeked = new WeakMap<Readonly<SandboxSettings>, Readonly<SandboxSettings>>();
  return {
    get: async (scope) => apply(await settings.get(scope)),
    update: async (scope, changes) => apply(await settings.update(scope, changes)),
    peek: (scope) => {
      const stored = settings.peek(scope);
      let found = peeked.get(stored);
      if (!found) peeked.set(stored, (found = apply(stored)));
      return found;
    },
    forget: (scope) => settings.forget(scope),
    reload: () => settings.reload(),
  };
}

export async function createSandboxApp(config: SandboxConfig, options: SandboxAppOptions = {}): Promise<SandboxApp> {
  const merchants = createMerchants(config.merchants);
  const products = composeModules(options.modules ?? PRODUCTS);
  // The store knows every collection before the first request.
  const collections = [...platformModule.collections, ...products.collections];
  const store = await openConfiguredStore(config.store, config, collections);
  let platform: Platform;
  let closing: Promise<void> | undefined;
  const sharedState = createSharedStateReads(
    async () =>
      void (await Promise.all([platform.clock.reload(), platform.settings.reload(), platform.faults.reload()])),
  );
  const observability = createObservability({
    merchants,
    store,
    logger: options.logger ?? silentLogger,
    now: (scope) => platform.clock.now(scope),
    isStopping: () => closing !== undefined,
  });
  try {
    platform = await platformModule.createPlatform({
      store,
      callbackToken: (scope) => merchants.callbackToken(scope),
      callbackRetryDelayMs: config.callbackRetryDelayMs,
      autoProgressDelayMs: config.autoProgressDelayMs,
      autoProgress: config.autoProgress,
      rateLimits: config.rateLimits,
      defaultCallbackUrl: config.callbackUrl,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.onAlert ? { onAlert: options.onAlert } : {}),
      onCallbackAttempt: observability.onCallbackAttempt,
      ...(options.realTime ? { realTime: options.realTime } : {}),
      onSharedStateChange: sharedState.changed,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const settings = withPerKindCallbackUrls(platform.settings, config.callbackUrl, config.callbackUrls);
  const ctx: SandboxContext = {
    store,
    clock: platform.clock,
    ids: platform.ids,
    settings,
    callbacks: platform.callbacks,
    balances: platform.balances,
    idempotency: platform.idempotency,
    autoResolve: platform.autoResolve,
  };

  const serviceHandlers = completeService(products.service(ctx));
  const coreControlHandlers: Pick<ControlHandlers, CoreControlOperation> = combineHandlers(
    platformModule.platformControlHandlers(ctx, platform),
    listenerControlHandlers(platform.listeners),
    platformModule.faultControlHandlers(platform.faults),
    observability.controlHandlers,
    resourceListHandlers(store, (caller) => platform.clock.now(caller), products.views),
  );
  const controlHandlers = completeControl(coreControlHandlers, products.control(ctx));

  // What the modules auto-resolve (a disbursement, a direct debit payment), by kind.
  for (const [kind, handler] of Object.entries(products.autoResolve(ctx))) platform.autoResolve.handle(kind, handler);

  // With a store other sandboxes share, a request first makes sure the clocks, settings and which scopes have
  // faults were read at most SHARED_STATE_MAX_AGE_MS ago, and a change of them is answered that long after
  // its commit, so a change made through another sandbox is seen at once (fresh-reads.ts); background work
  // (callbacks, auto-resolve) reads them again every SHARED_STATE_REFRESH_MS.
  const guard = createStoreGuard(store.shared ? { shared: sharedState } : {});
  let sharedStateTimer: NodeJS.Timeout | undefined;
  const reportError = options.onError;
  const routerOptions = {
    authenticate: merchants.authenticate,
    validateResponses: config.validateResponses,
    // The store being unreachable is answered 503 (guard.ts), not reported as a failure of the sandbox.
    onError: (error: unknown, request: Request) => void (guard.noteUnavailable(error) || reportError?.(error, request)),
  };
  // Armed faults answer service requests once the key is known (control requests are never faulted).
  // Each key is held to the contract's limits while its merchant's setting says so; one count for both APIs,
  // whose groups are apart. A faulted request is answered before it is counted.
  const limiter = createRateLimiter(options.realTime);
  const rateLimitsOn = (caller: Caller): boolean => platform.settings.peek(caller).rate_limits_enabled;
  const serviceLimits = enforceRateLimits({ table: serviceRateLimits, limiter, enabled: rateLimitsOn });
  const serviceAround: AroundOperation<Caller> = (call, next) => {
    // The request record takes its scope from here rather than digesting the key a second time.
    observability.observer.noteScope(call.request, call.principal);
    return serviceLimits(call, next);
  };
  const faultInjection = platformModule.createFaultInjection({
    faults: platform.faults,
    authenticate: merchants.authenticate,
    onError: routerOptions.onError,
  });
  return {
    config,
    merchants,
    ctx,
    platform,
    service: guard.wrap(
      faultInjection.wrap(
        createRouter(serviceHandlers, {
          ...routerOptions,
          around: serviceAround,
        }),
      ),
    ),
    control: guard.wrap(
      createControlRouter(controlHandlers, {
        ...routerOptions,
        around: enforceRateLimits({ table: controlRateLimits, limiter, enabled: rateLimitsOn }),
      }),
    ),
    requests: observability.requests,
    observer: observability.observer,
    health: observability.health,
    start: async () => {
      if (store.shared) {
        sharedStateTimer = setInterval(() => void sharedState.fresh().catch(() => undefined), SHARED_STATE_REFRESH_MS);
        sharedStateTimer.unref();
      }
      await platform.autoResolve.start();
      await platform.dispatcher.start();
    },
    close: () =>
      (closing ??= (async () => {
        clearInterval(sharedStateTimer);
        faultInjection.release();
        platform.listeners.close();
        await platform.autoResolve.stop();
        await platform.dispatcher.stop();
        await store.close();
      })()),
  };
}
