// The commands of `payments-sandbox` beside starting a sandbox: `listen`, `trigger` and `events resend` talk to a
// running sandbox through its two APIs, with the key from PAYMENTS_API_KEY as the conformance command reads it.
// Exit status as every command here: 0 done, 1 the sandbox refused or could not be reached, 2 bad usage.
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
  type Writable,
} from '@payments-contract/server/runtime/command-line';
import {
  CallTimeoutError,
  createSandboxControlClient,
  OutcomeUnknownError,
} from '@payments-contract/client/sandbox/client';
import { onStopSignal } from '@payments-contract/server/runtime/stop-signals';
import { isTriggerKind, readOverrides, TRIGGER_KINDS, trigger, TriggerError } from './trigger.js';
import { listen } from './listen.js';

/** Where `npm start` / `payments-sandbox` listens by default. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
const KEY_VARIABLE = 'PAYMENTS_API_KEY';

const CONNECTION_LINES = `  --base-url URL             the running sandbox (default ${DEFAULT_BASE_URL}).
  --api-key KEY              its secret key; better given as ${KEY_VARIABLE} (the flag wins over it).`;

const TRIGGER = {
  name: 'payments-sandbox trigger',
  module: import.meta.url,
  allowPositionals: true,
  options: {
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    set: { type: 'string', multiple: true },
    fail: { type: 'string' },
  },
  usage: `Usage: ${KEY_VARIABLE}=KEY payments-sandbox trigger KIND [--set field=value ...] [--fail CODE]

Creates what a callback of KIND needs through the API and the control API, drives it to the event, and
prints the objects it made; the callback goes where the merchant's callbacks go.

Kinds: ${Object.keys(TRIGGER_KINDS).join(', ')}.

Options:
${CONNECTION_LINES}
  --set field=value          a field of the request that creates the object (repeatable), e.g.
                             --set amount=250000 --set bank_code=BRI
  --fail CODE                end in this failure (disbursement.finished, ewallet.payment and
                             direct_debit.payment; the codes of the contract's test values).
${STANDARD_USAGE_LINES}`,
} as const;

const LISTEN = {
  name: 'payments-sandbox listen',
  module: import.meta.url,
  allowPositionals: false,
  options: { 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'forward-to': { type: 'string' } },
  usage: `Usage: ${KEY_VARIABLE}=KEY payments-sandbox listen --forward-to URL

Brings the key's callbacks to a receiver the sandbox cannot reach (on this machine, behind a router): asks
the sandbox for them over a connection it opens itself, makes each one, as the sandbox would have sent it
(body, x-callback-token and the other headers), to URL, prints a line per callback with the receiver's
answer, and reports the answer back: the sandbox records it as the attempt's outcome and retries as usual.
While it runs, the sandbox sends the key's callbacks here instead of to the configured URL; several may run,
each gets every callback. Ctrl-C stops it.

Options:
  --forward-to URL           the local receiver, e.g. http://127.0.0.1:8787/callbacks (required).
${CONNECTION_LINES}
${STANDARD_USAGE_LINES}`,
} as const;

const EVENTS = {
  name: 'payments-sandbox events',
  module: import.meta.url,
  allowPositionals: true,
  options: { 'base-url': { type: 'string' }, 'api-key': { type: 'string' } },
  usage: `Usage: ${KEY_VARIABLE}=KEY payments-sandbox events resend ID

Sends a recorded callback (its id in GET /sandbox/callbacks, the dashboard's Callbacks tab) again, as a
new delivery with its own attempts.

Options:
${CONNECTION_LINES}
${STANDARD_USAGE_LINES}`,
} as const;

export interface Streams {
  stdout: Writable;
  stderr: Writable;
}

type Env = Readonly<Record<string, string | undefined>>;

function connection(values: { 'base-url'?: string; 'api-key'?: string }, env: Env) {
  const secretKey = values['api-key'] ?? (env[KEY_VARIABLE] || undefined);
  if (secretKey === undefined) throw new UsageError(`no key: set ${KEY_VARIABLE} (or --api-key)`);
  const baseUrl = values['base-url'] ?? DEFAULT_BASE_URL;
  if (!URL.canParse(baseUrl)) throw new UsageError(`--base-url ${baseUrl}: not a URL`);
  return { baseUrl, secretKey };
}

/** Runs `argv` when it names one of these commands, resolving to the exit status; else undefined. */
export async function runCommand(
  argv: readonly string[],
  env: Env,
  streams: Streams = process,
  fetch?: (request: Request) => Promise<Response>,
): Promise<number | undefined> {
  const [name, ...rest] = argv;
  const command = name === 'trigger' ? TRIGGER : name === 'events' ? EVENTS : name === 'listen' ? LISTEN : undefined;
  if (command === undefined) return undefined;
  try {
    if (command === LISTEN) {
      const line = readCommandLine(LISTEN, rest, streams);
      if (typeof line === 'number') return line;
      const forwardTo = line.values['forward-to'];
      if (forwardTo === undefined) throw new UsageError('--forward-to URL is required: where to bring the callbacks');
      if (!URL.canParse(forwardTo) || !/^https?:$/.test(new URL(forwardTo).protocol))
        throw new UsageError(`--forward-to ${forwardTo}: not an http or https URL`);
      const stopping = new AbortController();
      const undo = onStopSignal(() => stopping.abort());
      try {
        return await listen({
          ...connection(line.values, env),
          forwardTo,
          signal: stopping.signal,
          stdout: streams.stdout,
          stderr: streams.stderr,
          ...(fetch ? { fetch } : {}),
        });
      } finally {
        undo();
      }
    }
    if (command === TRIGGER) {
      const line = readCommandLine(TRIGGER, rest, streams);
      if (typeof line === 'number') return line;
      const [kind, ...stray] = line.positionals;
      if (kind === undefined || !isTriggerKind(kind) || stray.length > 0)
        throw new UsageError(
          `${kind === undefined ? 'no KIND given' : `${[kind, ...stray].join(' ')}: not one kind`}; the kinds: ${Object.keys(TRIGGER_KINDS).join(', ')}`,
        );
      const made = await trigger({
        ...connection(line.values, env),
        kind,
        overrides: readOverrides(kind, line.values.set ?? []),
        ...(line.values.fail === undefined ? {} : { fail: line.values.fail }),
        ...(fetch ? { fetch } : {}),
      });
      for (const { what, object } of made) streams.stdout.write(`${what}: ${JSON.stringify(object)}\n`);
      streams.stdout.write(`triggered ${kind}\n`);
      return 0;
    }
    const line = readCommandLine(EVENTS, rest, streams);
    if (typeof line === 'number') return line;
    const [verb, id, ...stray] = line.positionals;
    if (verb !== 'resend' || id === undefined || stray.length > 0)
      throw new UsageError('expected: events resend ID', true);
    const control = createSandboxControlClient({ ...connection(line.values, env), ...(fetch ? { fetch } : {}) });
    const result = await control.resendCallbackDelivery({ path: { id } });
    if (!result.ok) {
      const error = result.error as { error_code?: string; message?: string } | undefined;
      throw new TriggerError(
        `resend ${id}: ${result.status} ${error?.error_code ?? ''} ${error?.message ?? ''}`.trim(),
      );
    }
    streams.stdout.write(`resent ${id}: ${JSON.stringify(result.data)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return refuse(command, error, streams.stderr);
    // A refused request, or no answer (the client's own retries spent; a TypeError is fetch's own): one line, exit 1.
    const unanswered =
      error instanceof OutcomeUnknownError || error instanceof CallTimeoutError || error instanceof TypeError;
    if (error instanceof TriggerError || unanswered) {
      const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
      const prefix = error instanceof TypeError ? 'no answer from the sandbox: ' : '';
      streams.stderr.write(`${command.name}: ${prefix}${error.message}${cause}\n`);
      return 1;
    }
    throw error;
  }
}
