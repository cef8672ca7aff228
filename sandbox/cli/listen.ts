// `payments-sandbox listen --forward-to URL`: brings the key's callbacks to a receiver the sandbox cannot reach.
// It asks the sandbox for them over requests of its own (the control API's long poll, nextCallbackForwards),
// so it needs no address the sandbox could call; makes each request, as the sandbox would have made it, to
// the local URL; prints a line per callback with the receiver's answer; and reports that answer back
// (answerCallbackForward), which the sandbox records as the attempt's outcome (decision
// sandbox-callback-listeners).
import { randomBytes } from 'node:crypto';
import type { Writable } from '@payments-contract/server/runtime/command-line';
import { createSandboxControlClient, type SandboxControlClient } from '@payments-contract/client/sandbox/client';
import type { components } from '@payments-contract/client/sandbox/types';
import { boundAttemptError, describeAttemptError } from '../callbacks/attempt-error.js';
import { ANSWER_READ_LIMIT, readAnswer } from '../callbacks/read-answer.js';
import { TriggerError } from './trigger.js';

type CallbackForward = components['schemas']['CallbackForward'];
type ForwardAnswer = components['schemas']['CallbackForwardAnswer'];

export interface ListenOptions {
  baseUrl: string;
  secretKey: string;
  /** The local receiver each callback is made to. */
  forwardTo: string;
  /** Ends listening: the open poll is abandoned, callbacks under way are finished and reported. */
  signal: AbortSignal;
  stdout: Writable;
  stderr: Writable;
  /** How long a poll waits for a callback (ms); default the contract's default. */
  waitMs?: number;
  /** The first pause after a poll found no sandbox (ms), doubled each time up to `maxBackoffMs`. Default 1 s. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Reaches the sandbox (tests pass a router). Default: the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Reaches the local receiver. Default: the global fetch. */
  forwardFetch?: typeof fetch;
  /** The real clock, for the printed times. */
  now?: () => Date;
}

/** Callbacks forwarded at once at most; the poll waits for one to end beyond that. */
const IN_FLIGHT = 32;
/** Headers the receiver's connection sets itself. */
const CONNECTION_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive']);

const errorText = (result: { status: number; error?: unknown }): string => {
  const error = (result.error ?? {}) as { error_code?: string; message?: string };
  return `${result.status} ${error.error_code ?? ''} ${error.message ?? ''}`.trim();
};

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** What went wrong at the bottom of a failed call (the client's note on top of fetch's TypeError on top of the socket's error). */
function rootCause(error: unknown): string {
  const messages: string[] = [];
  for (let at: unknown = error; at instanceof Error; at = at.cause) messages.push(at.message);
  return boundAttemptError(messages.length === 0 ? String(error) : messages.slice(-2).join(': '));
}

/** Why listening could not start: the sandbox's refusal, or that none answered. */
const describeFailure = (error: unknown, baseUrl: string): string =>
  error instanceof TriggerError ? error.message : `no answer from the sandbox at ${baseUrl} (${rootCause(error)})`;

/** Makes the forwarded request to the receiver; its answer as the sandbox records an attempt's. */
export async function forwardOnce(
  forward: CallbackForward,
  forwardTo: string,
  send: typeof fetch = fetch,
): Promise<ForwardAnswer> {
  const headers = Object.entries(forward.http_headers).filter(([name]) => !CONNECTION_HEADERS.has(name));
  try {
    const response = await send(forwardTo, {
      method: 'POST',
      headers,
      body: forward.body,
      redirect: 'manual',
      // Within the time the sandbox waits for the report, less a margin for sending it.
      signal: AbortSignal.timeout(Math.max(1, forward.timeout_ms - 500)),
    });
    const read = await readAnswer(response, ANSWER_READ_LIMIT);
    return { status: response.status, error: null, answer_bytes: read.bytes, answer_cut: read.cut };
  } catch (error) {
    return { status: null, error: describeAttemptError(error) };
  }
}

/** Listens until `signal` aborts (resolving to 0), or the sandbox refuses the key or cannot be reached at first (1). */
export async function listen(options: ListenOptions): Promise<number> {
  const { signal, stdout, stderr, forwardTo } = options;
  const control: SandboxControlClient = createSandboxControlClient({
    baseUrl: options.baseUrl,
    secretKey: options.secretKey,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const now = options.now ?? (() => new Date());
  const backoffMs = options.backoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const listenerId = `lst_${randomBytes(12).toString('hex')}`;
  const waitMs = options.waitMs;

  // Who the key is, and whether the sandbox is there at all: a wrong address or key is said at once.
  let sandbox: components['schemas']['SandboxInfo'];
  try {
    const info = await control.getSandbox({ retries: false, signal });
    if (!info.ok) throw new TriggerError(`the sandbox at ${options.baseUrl} refused the key: ${errorText(info)}`);
    sandbox = info.data;
  } catch (error) {
    if (signal.aborted) return 0;
    stderr.write(`payments-sandbox listen: ${describeFailure(error, options.baseUrl)}\n`);
    return 1;
  }
  // The first poll makes the listener live before it says it is ready: a callback made after this line is ours.
  try {
    const first = await control.nextCallbackForwards(
      { body: { listener_id: listenerId, wait_ms: 0 } },
      { retries: false, signal },
    );
    if (!first.ok) throw new TriggerError(`the sandbox at ${options.baseUrl} refused to listen: ${errorText(first)}`);
  } catch (error) {
    if (signal.aborted) return 0;
    stderr.write(`payments-sandbox listen: ${describeFailure(error, options.baseUrl)}\n`);
    return 1;
  }
  stdout.write(
    `Ready: forwarding the callbacks of merchant ${sandbox.merchant_id} (${sandbox.mode} mode) from ${options.baseUrl} to ${forwardTo}. Ctrl-C stops.\n`,
  );

  const inFlight = new Set<Promise<void>>();
  const handle = (forward: CallbackForward): void => {
    const work = (async () => {
      const started = performance.now();
      const answer = await forwardOnce(forward, forwardTo, options.forwardFetch);
      const took = Math.round(performance.now() - started);
      const outcome = answer.status === null ? `no answer: ${answer.error}` : `${answer.status}`;
      // Reported whatever the signal: the sandbox waits for it to record the attempt.
      const reported = await control
        .answerCallbackForward({ path: { id: forward.id }, body: answer })
        .catch((error: unknown) => ({
          ok: false as const,
          status: 0,
          error: { message: describeAttemptError(error) },
        }));
      const late = reported.ok ? '' : `  (not recorded: ${errorText(reported)})`;
      stdout.write(
        `${now().toISOString()}  ${forward.event}  delivery ${forward.delivery_id}  attempt ${forward.attempt}  -> ${outcome}  (${took} ms)${late}\n`,
      );
    })();
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  };

  let pause = backoffMs;
  let lost = false;
  while (!signal.aborted) {
    if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    let result: Awaited<ReturnType<SandboxControlClient['nextCallbackForwards']>>;
    try {
      result = await control.nextCallbackForwards(
        { body: { listener_id: listenerId, ...(waitMs === undefined ? {} : { wait_ms: waitMs }) } },
        // The poll is held open by the sandbox: the attempt may take its wait and more.
        { retries: false, attemptTimeoutMs: (waitMs ?? 25_000) + 15_000, signal },
      );
    } catch (error) {
      if (signal.aborted) break;
      stderr.write(
        `payments-sandbox listen: no answer from the sandbox (${rootCause(error)}); trying again in ${pause / 1000} s\n`,
      );
      lost = true;
      await sleep(pause, signal);
      pause = Math.min(pause * 2, maxBackoffMs);
      continue;
    }
    if (!result.ok) {
      // A key refused now (the sandbox restarted with other keys) ends listening; anything else is retried.
      if (result.status === 401) {
        stderr.write(`payments-sandbox listen: the sandbox refused the key: ${errorText(result)}\n`);
        await Promise.all(inFlight);
        return 1;
      }
      stderr.write(`payments-sandbox listen: ${errorText(result)}; trying again in ${pause / 1000} s\n`);
      await sleep(pause, signal);
      pause = Math.min(pause * 2, maxBackoffMs);
      continue;
    }
    if (lost) stdout.write(`${now().toISOString()}  connected to the sandbox again\n`);
    lost = false;
    pause = backoffMs;
    for (const forward of result.data.forwards) handle(forward);
  }
  await Promise.all(inFlight);
  // Said so that the sandbox sends what follows elsewhere at once, instead of waiting for this listener.
  await control
    .nextCallbackForwards({ body: { listener_id: listenerId, stop: true } }, { retries: false, attemptTimeoutMs: 2000 })
    .catch(() => undefined);
  stdout.write('Stopped listening.\n');
  return 0;
}
