// What makes a call of the generated client survive the network: retries, idempotency keys, timeouts and the
// recovery of a lost answer. Each operation's policy (`OperationPolicy`) is written by the generator from what
// the contract says of it, so this file knows no operation: a read may always be repeated; a write only when
// the contract says the answer means nothing was done (`x-retryable`), when the request cannot have reached
// the service, or when its idempotency key makes the repeat harmless and the contract gives a way to find
// what the first request did (`x-idempotency.recovery`), so that meeting the replay answer is recoverable.
import {
  classify,
  type DeclaredHeaderFields,
  type FetchOutcome,
  type OperationResult,
  type SettledResult,
} from './client.js';

// ---------------------------------------------------------------------------------------------------
// Options

/** How a call repeats itself. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 5). 1 sends the request once. */
  maxAttempts?: number;
  /** The wait before the second attempt, in ms (default 500); it doubles with every attempt, up to `maxDelayMs`. */
  initialDelayMs?: number;
  /** The longest wait between two attempts, in ms (default 8000). A longer `Retry-After` ends the call instead. */
  maxDelayMs?: number;
}

/** What every call of a client does (its defaults), and what one call may change (its second argument). */
export interface CallOptions {
  /** How the call repeats itself; `false` sends every request once. */
  retries?: RetryOptions | false;
  /** How long one attempt may take before it is abandoned (and retried when that is safe), in ms (default 30000). */
  attemptTimeoutMs?: number;
  /** How long the whole call may take, retries, waits and recovery included, in ms (default 120000). */
  timeoutMs?: number;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Called after every attempt (for logs and metrics); what it throws is ignored. */
  onAttempt?: (attempt: AttemptReport) => void;
}

/** The defaults a payments client starts from. */
export const DEFAULT_CALL_OPTIONS = {
  retries: { maxAttempts: 5, initialDelayMs: 500, maxDelayMs: 8_000 },
  attemptTimeoutMs: 30_000,
  timeoutMs: 120_000,
} as const satisfies CallOptions;

/** One attempt, as the `onAttempt` hook sees it. */
export interface AttemptReport {
  operationId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** `request`: the operation itself; `recovery`: the contract's lookup of what a lost request did. */
  kind: 'request' | 'recovery';
  /** The idempotency key the request carried, made by the client when the caller gave none. */
  idempotencyKey?: string;
  /** The answer's status; undefined when there was none (a network failure or a timeout). */
  status?: number;
  /** The `error_code` of an error answer. */
  errorCode?: string;
  /** Why no answer came. */
  error?: unknown;
  timedOut: boolean;
  durationMs: number;
  /** What happens next: another attempt after `delayMs`, or the end of the call. */
  next: 'retry' | 'recover' | 'done';
  delayMs?: number;
}

// ---------------------------------------------------------------------------------------------------
// Policy (written by the generator per operation)

/** A documented error answer, by status and code. */
export interface ErrorAnswer {
  status: number;
  errorCode: string;
}

export interface OperationPolicy {
  operationId: string;
  /** A read: sending it again cannot change anything. */
  safe: boolean;
  /** The answers the contract says mean nothing was done (`x-retryable`): repeating the request is harmless. */
  retryable: readonly ErrorAnswer[];
  /** The operation's idempotency key, when it takes one (`x-idempotency`). */
  idempotency?: {
    /** Its replay answer: the key's request was already carried out. */
    replay: ErrorAnswer;
    /** The documented status of the operation's success, which a recovered answer takes. */
    successStatus: number;
    /** Whether the contract gives a way to find what the key's request did (`x-idempotency.recovery`). */
    recoverable: boolean;
  };
}

/** One attempt's request: the signal that abandons it and the idempotency key it carries. */
export interface AttemptInput {
  signal: AbortSignal;
  idempotencyKey: string;
}

/** What the generated method hands over for one call. */
export interface CallPlan {
  policy: OperationPolicy;
  documented: readonly number[];
  headerFields: DeclaredHeaderFields;
  /** The caller's key, if any; the client makes one for an operation that takes a key. */
  idempotencyKey: string | undefined;
  send: (attempt: AttemptInput) => Promise<FetchOutcome>;
  /** The contract's lookup of what the key's request did, and the request body it is compared with. */
  recovery?: { lookup: (signal: AbortSignal) => Promise<FetchOutcome>; request: unknown };
}

// ---------------------------------------------------------------------------------------------------
// Errors

/**
 * Thrown when a write may have been carried out and the client cannot tell: no answer came, and repeating
 * the request could do it twice, or the replay answer came and the contract's lookup did not find it. Check
 * the object's state (by the identifier you chose) before sending it again.
 */
export class OutcomeUnknownError extends Error {
  override readonly name = 'OutcomeUnknownError';
  constructor(
    readonly operationId: string,
    readonly attempts: number,
    /** The key the request carried: send it again with this key and the service will not do it twice. */
    readonly idempotencyKey: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${operationId}: ${message}`, options);
  }
}

/** Thrown when the call's own deadline (`timeoutMs`) passed before any answer came. */
export class CallTimeoutError extends Error {
  override readonly name = 'CallTimeoutError';
}

// ---------------------------------------------------------------------------------------------------
// Running a call

const NO_ANSWER_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** A failure that shows the request never left: no connection was made. */
export function neverSent(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && NO_ANSWER_CODES.has(code);
}

/** The `Retry-After` of an answer in ms, when it gives one in seconds. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value) * 1000;
}

function errorCodeOf(outcome: FetchOutcome): string | undefined {
  const error = outcome.error;
  if (typeof error !== 'object' || error === null || !('error_code' in error)) return undefined;
  return typeof error.error_code === 'string' ? error.error_code : undefined;
}

const isAnswer = (answer: ErrorAnswer, status: number, code: string | undefined): boolean =>
  answer.status === status && answer.errorCode === code;

/** Full jitter (AWS's "exponential backoff and jitter"): a random wait up to the doubled delay. */
function backoffMs(retry: Required<RetryOptions>, attempt: number, random: () => number): number {
  const ceiling = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

type Attempt =
  | { kind: 'answer'; outcome: FetchOutcome }
  | { kind: 'failure'; error: unknown; timedOut: boolean; neverSent: boolean };

/** Runs one attempt, abandoned at the attempt's timeout or the call's end, whatever fetch does with the signal. */
async function attempt(
  send: (signal: AbortSignal) => Promise<FetchOutcome>,
  attemptTimeoutMs: number,
  callSignal: AbortSignal,
): Promise<Attempt> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('attempt timed out', 'TimeoutError')),
    attemptTimeoutMs,
  );
  const stop = (): void => controller.abort(callSignal.reason);
  callSignal.addEventListener('abort', stop, { once: true });
  const abandoned = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  try {
    const outcome = await Promise.race([send(controller.signal), abandoned]);
    return { kind: 'answer', outcome };
  } catch (error) {
    const timedOut = controller.signal.aborted;
    return { kind: 'failure', error, timedOut, neverSent: !timedOut && neverSent(error) };
  } finally {
    clearTimeout(timer);
    callSignal.removeEventListener('abort', stop);
    abandoned.catch(() => undefined);
  }
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', cancel);
      resolve();
    }, ms);
    const cancel = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', cancel, { once: true });
  });

/** The request's fields that the found object also has are equal in both: it is the same request. */
export function sameRequest(request: unknown, found: unknown): boolean {
  if (typeof request !== 'object' || request === null || typeof found !== 'object' || found === null) return false;
  const foundFields = new Map(Object.entries(found));
  return Object.entries(request).every(
    ([name, value]) =>
      value === undefined || !foundFields.has(name) || JSON.stringify(foundFields.get(name)) === JSON.stringify(value),
  );
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A client's defaults (its options, of which only the call options count here) merged with one call's. */
export function callOptions(client: CallOptions, call: CallOptions | undefined): CallOptions {
  const { retries, attemptTimeoutMs, timeoutMs, signal, onAttempt } = client;
  return { retries, attemptTimeoutMs, timeoutMs, signal, onAttempt, ...call };
}

/**
 * Runs one call of an operation by its policy, and settles its answer into the operation's result. A success
 * found by recovery carries `recovered: true`.
 */
export async function runCall(
  plan: CallPlan,
  options: CallOptions,
  random: () => number = Math.random,
): Promise<SettledResult> {
  const { policy } = plan;
  const retry: Required<RetryOptions> =
    options.retries === false
      ? { ...DEFAULT_CALL_OPTIONS.retries, maxAttempts: 1 }
      : { ...DEFAULT_CALL_OPTIONS.retries, ...options.retries };
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_CALL_OPTIONS.attemptTimeoutMs;
  const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_OPTIONS.timeoutMs;
  const deadline = Date.now() + timeoutMs;
  const callSignal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  const idempotencyKey = policy.idempotency ? (plan.idempotencyKey ?? crypto.randomUUID()) : plan.idempotencyKey;
  const keyed = idempotencyKey ? { idempotencyKey } : {};
  // A repeat after an answer that may have been lost is harmless only where meeting the replay answer can be
  // turned back into the original answer.
  const repeatable = policy.safe || (policy.idempotency?.recoverable === true && plan.recovery !== undefined);
  const report = (entry: Omit<AttemptReport, 'operationId'>): void => {
    try {
      options.onAttempt?.({ operationId: policy.operationId, ...entry });
    } catch {
      // A hook for logs and metrics never changes the call.
    }
  };
  const waitOr = async (delayMs: number): Promise<boolean> => {
    if (Date.now() + delayMs >= deadline) return false;
    await sleep(delayMs, callSignal);
    return true;
  };

  let mayHaveActed = false;
  let last: Attempt | undefined;
  for (let number = 1; ; number++) {
    const started = Date.now();
    last = await attempt(
      (signal) => plan.send({ signal, idempotencyKey: idempotencyKey ?? '' }),
      attemptTimeoutMs,
      callSignal,
    );
    const durationMs = Date.now() - started;
    const more = number < retry.maxAttempts && !callSignal.aborted;
    if (last.kind === 'failure') {
      const { error, timedOut } = last;
      mayHaveActed ||= !last.neverSent;
      const again = more && (last.neverSent || repeatable);
      const delayMs = again ? backoffMs(retry, number, random) : undefined;
      report({
        attempt: number,
        kind: 'request',
        ...keyed,
        error,
        timedOut,
        durationMs,
        next: again ? 'retry' : 'done',
        ...(delayMs === undefined ? {} : { delayMs }),
      });
      if (again && (await waitOr(delayMs ?? 0))) continue;
      if (callSignal.aborted && !options.signal?.aborted)
        throw new CallTimeoutError(`${policy.operationId}: no answer within the call's ${timeoutMs} ms`, {
          cause: error,
        });
      if (!last.neverSent && !policy.safe)
        throw new OutcomeUnknownError(
          policy.operationId,
          number,
          idempotencyKey,
          'no answer came and the request may have been carried out; look it up before sending it again',
          { cause: error },
        );
      throw error;
    }

    const { outcome } = last;
    const { status } = outcome.response;
    const errorCode = errorCodeOf(outcome);
    const nothingDone = policy.retryable.some((answer) => isAnswer(answer, status, errorCode));
    const replayed = policy.idempotency !== undefined && isAnswer(policy.idempotency.replay, status, errorCode);
    const unknownOutcome = status >= 500 && !nothingDone;
    // The replay answer to a repeat of this call's own request that may have been carried out: its answer was lost.
    const recovering = replayed && mayHaveActed && plan.recovery !== undefined;
    mayHaveActed ||= unknownOutcome;
    const again = !recovering && more && (nothingDone || (unknownOutcome && repeatable));
    const waited = again ? (retryAfterMs(outcome.response) ?? backoffMs(retry, number, random)) : undefined;
    const delayMs = waited !== undefined && waited <= retry.maxDelayMs ? waited : undefined;
    report({
      attempt: number,
      kind: 'request',
      ...keyed,
      status,
      ...(errorCode ? { errorCode } : {}),
      timedOut: false,
      durationMs,
      next: recovering ? 'recover' : delayMs !== undefined ? 'retry' : 'done',
      ...(delayMs === undefined ? {} : { delayMs }),
    });
    if (recovering) return recover(plan, retry, attemptTimeoutMs, callSignal, deadline, report, random, idempotencyKey);
    if (delayMs !== undefined && (await waitOr(delayMs))) continue;
    return classify(outcome, plan.documented, plan.headerFields);
  }
}

/**
 * The replay answer met a repeat of this call's own request: the first attempt was carried out and its answer
 * lost. Looks the original up by the contract's lookup, newest first, and answers the one equal to the request.
 */
async function recover(
  plan: CallPlan,
  retry: Required<RetryOptions>,
  attemptTimeoutMs: number,
  callSignal: AbortSignal,
  deadline: number,
  report: (entry: Omit<AttemptReport, 'operationId'>) => void,
  random: () => number,
  idempotencyKey: string | undefined,
): Promise<SettledResult> {
  const { policy, recovery } = plan;
  const successStatus = policy.idempotency?.successStatus ?? 200;
  const keyed = idempotencyKey ? { idempotencyKey } : {};
  let cause: unknown;
  for (let number = 1; recovery; number++) {
    const started = Date.now();
    const looked = await attempt(recovery.lookup, attemptTimeoutMs, callSignal);
    const durationMs = Date.now() - started;
    if (looked.kind === 'answer' && looked.outcome.response.ok) {
      const body = parseJson(looked.outcome.data);
      const candidates = Array.isArray(body) ? body : [body];
      const found = candidates.find((candidate) => sameRequest(recovery.request, candidate));
      if (found !== undefined) {
        report({
          attempt: number,
          kind: 'recovery',
          ...keyed,
          status: looked.outcome.response.status,
          timedOut: false,
          durationMs,
          next: 'done',
        });
        const { response } = looked.outcome;
        return { ok: true, status: successStatus, data: found, headers: {}, response, recovered: true };
      }
      cause = new Error('the lookup answered, and nothing in it equals the request');
    } else if (looked.kind === 'answer') cause = new Error(`the lookup answered ${looked.outcome.response.status}`);
    else cause = looked.error;
    // Not found yet: the first request may still be under way (the service answers the replay for a key whose
    // request is being executed), so look again.
    const again = number < retry.maxAttempts;
    const delayMs = again ? backoffMs(retry, number, random) : undefined;
    report({
      attempt: number,
      kind: 'recovery',
      ...keyed,
      ...(looked.kind === 'answer' ? { status: looked.outcome.response.status } : { error: looked.error }),
      timedOut: looked.kind === 'failure' && looked.timedOut,
      durationMs,
      next: again ? 'retry' : 'done',
      ...(delayMs === undefined ? {} : { delayMs }),
    });
    if (!again || Date.now() + (delayMs ?? 0) >= deadline) break;
    await sleep(delayMs ?? 0, callSignal);
  }
  throw new OutcomeUnknownError(
    policy.operationId,
    retry.maxAttempts,
    idempotencyKey,
    'the service says the request was carried out, and its lookup did not find it',
    { cause },
  );
}

/** Runs one call of an operation (what each generated method does) and types its result. */
export async function callOperation<Operation>(
  plan: CallPlan,
  options: CallOptions,
): Promise<OperationResult<Operation>> {
  // The one unchecked step, as in `settle`: `classify` (or the recovery, with the success status) has matched
  // the runtime status against the contract's list, which is what OperationResult<Operation> states.
  return (await runCall(plan, options)) as OperationResult<Operation>;
}
