// The platform services behind SandboxContext (clock, ids, settings, balances, idempotency, the callback
// outbox) and the one scheduler of what happens later (scheduler.ts): the callbacks' attempts (the
// dispatcher) and auto-resolve are its kinds of job. app.ts opens the store with `collections`
// (together with the domain modules' own), calls `createPlatform`, builds the context from it, and starts the
// scheduler once the server listens.
import type { AccountType, Balances, Idempotency, Ids } from '../context.js';
import { jobsCollections, type CollectionDefinition, type Scope, type Store } from '../store/store.js';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../callbacks/dispatcher.js';
import { createCheckedPayloads } from '../callbacks/checked-payloads.js';
import { createOutbox, outboxCollections, type DeliveryRecord, type Outbox } from '../callbacks/outbox.js';
import { createListeners, type Listeners } from '../callbacks/listeners.js';
import { createStoreListeners, storeListenersCollections } from '../callbacks/store-listeners.js';
import { clockLatestMs } from '../contract.js';
import { balancesCollections, createBalances } from './balances.js';
import { clockCollections, createClock, type SandboxClock } from './clock.js';
import { contractFacts } from './contract-facts.js';
import { createFaults, faultsCollections, type SandboxFaults } from './faults.js';
import { createIdempotency, idempotencyCollections } from './idempotency.js';
import { createIds } from './ids.js';
import {
  createAutoResolve,
  DEFAULT_AUTO_PROGRESS_DELAY_MS,
  legacyCountdownsCollections,
  type SandboxAutoResolve,
} from './auto-resolve.js';
import { createScheduler, type Scheduler } from './scheduler.js';
import { createSettings, settingsCollections, type PlatformSettings } from './settings.js';

export { platformControlHandlers, type PlatformControlHandlers } from './control.js';
export { faultControlHandlers, type FaultControlHandlers } from './fault-control.js';
export { createFaultInjection, type FaultInjection } from './fault-injection.js';

/** Every collection the platform services store records in. */
export const collections: CollectionDefinition[] = [
  ...clockCollections,
  ...settingsCollections,
  ...balancesCollections,
  ...idempotencyCollections,
  ...outboxCollections,
  ...storeListenersCollections,
  ...jobsCollections,
  ...legacyCountdownsCollections,
  ...faultsCollections,
];

export interface PlatformOptions {
  store: Store;
  /** The merchant's callback token for a mode (sent as `x-callback-token`). */
  callbackToken: (scope: Scope) => string;
  /** CALLBACK_RETRY_DELAY_MS: spacing of callback attempts in sandbox milliseconds. */
  callbackRetryDelayMs: number;
  /** SANDBOX_CALLBACK_URL: the default of every dashboard callback URL setting, or null for none. */
  defaultCallbackUrl: string | null;
  /** SANDBOX_CALLBACK_URL_<SETTING>: per dashboard setting, a default URL that replaces `defaultCallbackUrl`. */
  defaultCallbackUrls?: Readonly<Record<string, string>>;
  /** SANDBOX_AUTO_PROGRESS_DELAY_MS: sandbox milliseconds after which objects finish by themselves. */
  autoProgressDelayMs?: number;
  /** SANDBOX_AUTO_PROGRESS: the default of the settings that let objects finish after the delay (default true). */
  autoProgress?: boolean;
  /** SANDBOX_RATE_LIMITS: the default of the setting that holds keys to the rate limits (default true). */
  rateLimits?: boolean;
  /** Balances a merchant starts with (and returns to on reset); default CASH 100000000000, HOLDING 0. */
  initialBalance?: Partial<Record<AccountType, number>>;
  fetch?: typeof fetch;
  /** Told when a callback has failed its last attempt; default: a warning line on stderr. */
  onAlert?: (delivery: DeliveryRecord) => void;
  /** Told after each callback attempt (the log's line per attempt). */
  onCallbackAttempt?: DispatcherOptions['onAttempt'];
  /** Told of each thread the callbacks' attempts are made in (tests). */
  onSendingThread?: DispatcherOptions['onSendingThread'];
  /** The real clock (ms); tests replace it. */
  realTime?: () => number;
  /** A callback attempt without an answer within this time fails. Default 10 s. */
  callbackTimeoutMs?: number;
  /** Told when this process has committed a change of a clock, the settings or the armed faults (other sandboxes keep copies). */
  onSharedStateChange?: () => void;
}

export interface Platform {
  store: Store;
  /** The merchant's callback token for a mode, as configured. */
  callbackToken: (scope: Scope) => string;
  /** Spacing of callback attempts in sandbox milliseconds, as configured. */
  callbackRetryDelayMs: number;
  clock: SandboxClock;
  ids: Ids;
  settings: PlatformSettings;
  balances: Balances;
  idempotency: Idempotency;
  callbacks: Outbox;
  /** Runs everything that happens later: callback attempts and auto-resolve countdowns are its kinds of job. */
  scheduler: Scheduler;
  /** The scheduler's start, stop and runDue (its callbacks' part: the same scheduler). */
  dispatcher: Dispatcher;
  /** What finishes by itself; the domain modules register their handlers, `start` starts it with the dispatcher. */
  autoResolve: SandboxAutoResolve;
  /** Faults armed through the control API, taken by the service's requests. */
  faults: SandboxFaults;
  /** Listeners that forward callbacks to receivers the sandbox cannot reach (`payments-sandbox listen`). */
  listeners: Listeners;
}

/** A callback attempt without an answer within this time fails. */
const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
/** How much longer than the attempt timeout a hold on a job lasts (recording the outcome, a slow store). */
const LEASE_MARGIN_MS = 5_000;

/** Loads what the services keep in memory (the clock's offset, settings overrides, which scopes have faults); the dispatcher starts stopped. */
export async function createPlatform(options: PlatformOptions): Promise<Platform> {
  const { store } = options;
  const onChange = options.onSharedStateChange ? { onChange: options.onSharedStateChange } : {};
  const clock = await createClock({
    store,
    latestMs: clockLatestMs(),
    ...(options.realTime ? { realTime: options.realTime } : {}),
    ...onChange,
  });
  const ids = createIds();
  const settings = await createSettings({
    store,
    facts: contractFacts(),
    defaultCallbackUrl: options.defaultCallbackUrl,
    ...(options.defaultCallbackUrls ? { defaultCallbackUrls: options.defaultCallbackUrls } : {}),
    ...(options.autoProgress !== undefined ? { autoProgress: options.autoProgress } : {}),
    ...(options.rateLimits !== undefined ? { rateLimits: options.rateLimits } : {}),
    ...onChange,
  });
  // With a store other sandboxes share, each job is claimed by one of them. A hold outlasts the longest
  // attempt (its timeout) by a margin, so it never lapses under a live holder.
  const attemptTimeoutMs = options.callbackTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const scheduler = createScheduler({
    store,
    clock,
    leaseMs: attemptTimeoutMs + LEASE_MARGIN_MS,
    ...(options.realTime ? { realTime: options.realTime } : {}),
  });
  const autoResolve = createAutoResolve({
    store,
    clock,
    scheduler,
    delayMs: options.autoProgressDelayMs ?? DEFAULT_AUTO_PROGRESS_DELAY_MS,
  });
  // With a store other sandboxes share, listeners are kept in it: one polling another sandbox gets this one's attempts.
  const realTimeOption = options.realTime ? { realTime: options.realTime } : {};
  const listeners = store.shared ? createStoreListeners({ store, ...realTimeOption }) : createListeners(realTimeOption);
  // A payload checked as its delivery is recorded is not checked again at its first attempt.
  const checked = createCheckedPayloads();
  const dispatcher = createDispatcher({
    checked,
    listeners,
    store,
    clock,
    scheduler,
    callbackToken: options.callbackToken,
    retryDelayMs: options.callbackRetryDelayMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.onAlert ? { onAlert: options.onAlert } : {}),
    ...(options.onCallbackAttempt ? { onAttempt: options.onCallbackAttempt } : {}),
    ...(options.onSendingThread ? { onSendingThread: options.onSendingThread } : {}),
    attemptTimeoutMs,
  });
  const callbacks = createOutbox({
    checked,
    store,
    clock,
    ids,
    settings,
    scheduler,
    listening: listeners.live,
  });
  const faults = await createFaults({ store, clock, ids, ...onChange });
  return {
    store,
    callbackToken: options.callbackToken,
    callbackRetryDelayMs: options.callbackRetryDelayMs,
    clock,
    ids,
    settings,
    balances: createBalances(options.initialBalance),
    idempotency: createIdempotency(clock, ids),
    callbacks,
    scheduler,
    dispatcher,
    autoResolve,
    faults,
    listeners,
  };
}
