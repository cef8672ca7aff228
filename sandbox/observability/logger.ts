// The sandbox's log on stdout: one line per request and one per callback attempt, as JSON lines
// (LOG_FORMAT=json, for log shippers) or as short human lines (the default, coloured on a terminal).
// One pino logger decides what is written (LOG_LEVEL means the same in either format) and writes the JSON
// lines. Human lines are made by a small formatter of our own rather than pino-pretty: it knows the two
// kinds of line ("attempt 2 of 3"), runs in the same thread with no transport worker, keeps the sandbox's
// dependencies to pino alone, and formats the per-request and per-callback lines straight from their fields
// (no JSON written and parsed again on the hot path). Nothing logged carries a header; the fields a line takes are listed below, and
// paths and URLs are masked by the caller before they get here.
import { pino, type DestinationStream, type Logger } from 'pino';
import { formatPrettyFields, formatPrettyLine, formatPrettyRequest } from './pretty.js';

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
/** pino's levels; `silent` writes nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One answered request. */
export interface RequestLine {
  request_id: string;
  method: string;
  /** The path and query as sent, secrets masked. */
  path: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
}

/** One attempt to deliver a callback. */
export interface CallbackAttemptLine {
  delivery_id: string;
  /** The webhook's operationId in the service contract. */
  webhook: string;
  /** The merchant's URL, credentials masked. */
  url: string;
  /** The merchant's answer, or null when none came (then `error` says why). */
  status: number | null;
  error: string | null;
  attempt: number;
  max_attempts: number;
  duration_ms: number;
}

export interface SandboxLogger {
  request(line: RequestLine): void;
  callbackAttempt(line: CallbackAttemptLine): void;
  /** A notice about the sandbox itself (start-up in JSON format, say). */
  info(message: string, fields?: Record<string, string | number | boolean | null>): void;
  /** Writes out what is buffered (before the process exits). */
  flush(): void;
}

export interface LoggerOptions {
  format: LogFormat;
  level: LogLevel;
  /** Where lines go; default stdout, written asynchronously in batches. */
  destination?: DestinationStream;
  /** Colour the human lines; default: when stdout is a terminal and NO_COLOR is unset. */
  color?: boolean;
}

/** A 2xx answer acknowledges; a 5xx is the sandbox's own failure and is worth seeing at any level above info. */
const requestLevel = (status: number): 'info' | 'error' => (status >= 500 ? 'error' : 'info');

/**
 * The held lines of every logger, handed over if the process exits before their time (a crash). One set and one
 * exit listener per process, kept on the process under a registered symbol: a process that loads several
 * copies of the sandbox (the mutant catalogue's workers) would otherwise add a listener per copy.
 */
const HOLDING = Symbol.for('@payments-contract/sandbox: held log lines');
const holding: Set<() => void> = ((process as unknown as Record<symbol, Set<() => void> | undefined>)[HOLDING] ??=
  holdingSet());

function holdingSet(): Set<() => void> {
  const set = new Set<() => void>();
  process.once('exit', () => {
    for (const writeHeld of set) writeHeld();
  });
  return set;
}

/** A destination that can write out what it holds at once (before the process exits). */
type FlushableStream = DestinationStream & { flushSync?: () => void };

/**
 * How long a line waits for others to share its write: short enough that a person reading the log does not
 * notice. Each write hands the lines to libuv's thread pool, which on this project's 2-core VM cost about
 * 0.3 ms of the event loop's time per write whatever its size: every 20 ms, the writes were 2.0% of the
 * sandbox's busy time under the bench's mix; every 100 ms, 0.9%.
 */
export const LOG_WINDOW_MS = 100;
/** Held lines are written at once past this many characters, so a burst never holds much memory. */
const HELD_CHARS = 64 * 1024;

/**
 * The lines written within `windowMs` of the first, handed to `destination` as one write. Under load that
 * is dozens of requests' lines in one write of the pipe or terminal, instead of a write (a system call, and
 * a job of libuv's thread pool) each: measured, one write per turn of the event loop still cost 4% of the
 * sandbox's CPU under the bench's mix. `flushSync` hands over what is held at once.
 */
export function linesHeldBriefly(
  destination: FlushableStream,
  windowMs = LOG_WINDOW_MS,
): FlushableStream & { flushSync(): void } {
  let held: string[] = [];
  let heldChars = 0;
  let timer: NodeJS.Timeout | undefined;
  const writeHeld = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (held.length === 0) return;
    const lines = held.join('');
    held = [];
    heldChars = 0;
    holding.delete(writeHeld);
    destination.write(lines);
  };
  return {
    write: (line: string) => {
      if (held.length === 0) {
        timer = setTimeout(writeHeld, windowMs);
        holding.add(writeHeld);
      }
      held.push(line);
      heldChars += line.length;
      if (heldChars >= HELD_CHARS) writeHeld();
    },
    flushSync: () => {
      writeHeld();
      destination.flushSync?.();
    },
  };
}

/**
 * The time now in ISO form, made once per millisecond: several lines are written in most milliseconds under
 * load, and making the text was most of a human line's cost.
 */
function isoClock(): () => string {
  let madeAtMs = Number.NaN;
  let made = '';
  return () => {
    const nowMs = Date.now();
    if (nowMs !== madeAtMs) {
      madeAtMs = nowMs;
      made = new Date(nowMs).toISOString();
    }
    return made;
  };
}

export function createLogger(options: LoggerOptions): SandboxLogger {
  const isoNow = isoClock();
  // Asynchronous: lines are held briefly, then copied into a buffer written out as soon as the previous write
  // is done (lines arriving meanwhile go out together), so the request that logs one never waits on the
  // terminal or the pipe. pino flushes the buffer when the process exits.
  const stdout: FlushableStream =
    options.destination ?? linesHeldBriefly(pino.destination({ dest: 1, sync: false }) as FlushableStream);
  const color = options.color ?? (process.stdout.isTTY === true && !process.env.NO_COLOR);
  const destination: DestinationStream =
    options.format === 'json' ? stdout : { write: (line: string) => void stdout.write(formatPrettyLine(line, color)) };
  const logger: Logger = pino(
    {
      level: options.level,
      // No pid or hostname: a local tool's lines are read by people and by tests.
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  /** Writes one line of a kind at a level: human lines straight from the fields, JSON lines through pino. */
  const write = (
    level: 'info' | 'warn' | 'error',
    fields: { kind: string } & (RequestLine | CallbackAttemptLine),
    message: string,
  ): void => {
    // Checked first so a quieted logger costs the hot path one comparison.
    if (!logger.isLevelEnabled(level)) return;
    if (options.format === 'json') logger[level](fields, message);
    else stdout.write(formatPrettyFields({ time: isoNow(), level, ...fields }, color));
  };
  return {
    request: (line) => {
      const level = requestLevel(line.status);
      if (!logger.isLevelEnabled(level)) return;
      // The human line straight from the request's fields, as `write` would make it from a copy of them.
      if (options.format !== 'json') stdout.write(formatPrettyRequest(isoNow(), line, color));
      else write(level, { kind: 'request', ...line }, `${line.method} ${line.path} ${line.status}`);
    },
    // A refused or unanswered callback is something to fix on the merchant's side: shown at warn too.
    callbackAttempt: (line) =>
      write(
        line.status !== null && line.status >= 200 && line.status < 300 ? 'info' : 'warn',
        { kind: 'callback', ...line },
        `callback ${line.webhook} attempt ${line.attempt} of ${line.max_attempts}`,
      ),
    info: (message, fields = {}) => logger.info(fields, message),
    flush: () => {
      try {
        stdout.flushSync?.();
      } catch {
        // Not open yet (nothing written) or already closed: nothing to flush.
      }
    },
  };
}

/** A logger that writes nothing (tests and tools that build an app without a log). */
export const silentLogger: SandboxLogger = {
  request: () => undefined,
  callbackAttempt: () => undefined,
  info: () => undefined,
  flush: () => undefined,
};
