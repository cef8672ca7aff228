// Which failures of the PostgreSQL client mean "the database cannot be reached now" (a 503 the client may
// retry, and the store recovers by itself when the database is back), which mean "run the transaction
// again", and how a connection string is shown without its password.
import { StoreUnavailableError } from '../store.js';

/** Socket failures: nothing is listening, the connection was cut, the host is not reachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
]);

/**
 * SQLSTATEs of a database that is going away or overloaded: class 08 (connection exception), admin or crash
 * shutdown, starting up, too many connections, and a statement cancelled by statement_timeout (a database
 * too slow to answer is unavailable for this request, not broken).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25P03']);

/** The pg client's own messages for a connection it lost or could not get in time. */
const CLIENT_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed|not queryable/i;

/** Deadlock between two transactions (each locks the other's scope) or a serialization failure: run again. */
const RETRY_STATES = new Set(['40P01', '40001']);

export function codeOf(error: unknown): string | undefined {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error);
  if (code !== undefined && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')))
    return true;
  if (CLIENT_MESSAGES.test(error.message)) return true;
  // AggregateError (several addresses of a host refused) and errors wrapping the socket's.
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return error.cause !== undefined && error.cause !== error && isUnavailable(error.cause);
}

export const isRetryable = (error: unknown): boolean => RETRY_STATES.has(codeOf(error) ?? '');

/** A PostgreSQL unique violation and the index it names. */
export function uniqueViolation(error: unknown): string | undefined {
  if (codeOf(error) !== '23505') return undefined;
  const constraint = (error as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

/** A connection string with its password replaced, for messages and logs. */
export function maskConnectionString(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(a connection string that is not a URL)';
  }
}

export function unavailable(error: unknown, where: string): StoreUnavailableError {
  const reason = error instanceof Error ? error.message || codeOf(error) || error.name : String(error);
  return new StoreUnavailableError(`the database is unavailable (${where}: ${reason})`, { cause: error });
}

/** The database could not be reached when the store was opened. */
export class DatabaseUnreachableError extends Error {
  constructor(
    readonly target: string,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message || codeOf(cause) || cause.name : String(cause);
    super(`cannot reach the database at ${target} (${reason})`, { cause });
    this.name = 'DatabaseUnreachableError';
  }
}
