// The human form of a log line: pino's JSON line turned into one short line for a terminal,
//   09:30:01.123  POST /disbursements  400 API_VALIDATION_ERROR  2.1 ms  req_5f2c…
//   09:30:01.456  callback disbursement → https://merchant.example/cb  200  attempt 1 of 3  12 ms
// Only the fields the logger writes are read; anything else (a line of another shape) is shown as its
// message with its fields, so nothing logged is ever dropped by the formatter.

const ANSI = {
  dim: '\u001b[2m',
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  cyan: '\u001b[36m',
  reset: '\u001b[0m',
} as const;
type Colour = Exclude<keyof typeof ANSI, 'reset'>;

type Fields = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** Milliseconds as people read them: one decimal below 10 ms, whole above. */
function duration(value: unknown): string {
  const ms = typeof value === 'number' ? value : Number.NaN;
  if (!Number.isFinite(ms)) return '';
  return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
}

function statusColour(status: unknown): Colour {
  if (typeof status !== 'number') return 'red';
  if (status >= 500) return 'red';
  if (status >= 400) return 'yellow';
  return 'green';
}

/** A line pino wrote (JSON) in human form. */
export function formatPrettyLine(jsonLine: string, color: boolean): string {
  let fields: Fields;
  try {
    fields = JSON.parse(jsonLine) as Fields;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  return formatPrettyFields(fields, color);
}

/**
 * `value` in `colour` when colour is on. This and `isPresent` are functions of the module, not closures made
 * per line: under tsx each closure made is also named at run time (0.6% of the sandbox's CPU under the bench).
 */
const paint = (color: boolean, colour: Colour, value: string): string =>
  color ? `${ANSI[colour]}${value}${ANSI.reset}` : value;

const isPresent = (part: unknown): boolean => part !== null && part !== undefined;

/** ISO time in UTC, as the sandbox's clocks and records show it: the time of day is enough on a terminal. */
const clockOf = (color: boolean, time: unknown): string =>
  paint(color, 'dim', typeof time === 'string' ? time.slice(11, 23) : '');

/** The fields of a request's line (the logger's RequestLine, or those read back from a JSON line). */
export interface PrettyRequestFields {
  method: unknown;
  path: unknown;
  status: unknown;
  error_code: unknown;
  duration_ms: unknown;
  request_id: unknown;
}

/**
 * A request's line in human form, made straight from its fields: the logger's line per request, with no
 * copy of its fields made for it (three object copies per request were 2-3% of the sandbox's CPU on reads).
 */
export function formatPrettyRequest(time: unknown, fields: PrettyRequestFields, color: boolean): string {
  const { status, error_code } = fields;
  const outcome = isPresent(status)
    ? isPresent(error_code)
      ? `${text(status)} ${text(error_code)}`
      : text(status)
    : isPresent(error_code)
      ? text(error_code)
      : '';
  return `${clockOf(color, time)}  ${text(fields.method)} ${text(fields.path)}  ${paint(color, statusColour(status), outcome)}  ${duration(fields.duration_ms)}  ${paint(color, 'dim', text(fields.request_id))}\n`;
}

/** A line's fields (time, level, kind, msg and the kind's own) in human form. */
export function formatPrettyFields(fields: Fields, color: boolean): string {
  if (fields.kind === 'request') return formatPrettyRequest(fields.time, fields as Fields & PrettyRequestFields, color);
  const { time, level, kind, msg, ...rest } = fields;
  const clock = clockOf(color, time);
  if (kind === 'callback') {
    const answer = rest.status === null ? `no answer (${text(rest.error)})` : text(rest.status);
    return `${clock}  ${paint(color, 'cyan', 'callback')} ${text(rest.webhook)} → ${text(rest.url)}  ${paint(color, statusColour(rest.status), answer)}  attempt ${text(rest.attempt)} of ${text(rest.max_attempts)}  ${duration(rest.duration_ms)}\n`;
  }
  const extra = Object.entries(rest).map(([name, value]) => `${name}=${text(value)}`);
  const label =
    typeof level === 'string' && level !== 'info'
      ? `${paint(color, level === 'warn' ? 'yellow' : 'red', level.toUpperCase())} `
      : '';
  return `${clock}  ${label}${text(msg ?? '')}${extra.length > 0 ? `  ${extra.join(' ')}` : ''}\n`;
}
