// How an attempt that got no answer says why, in the sandbox's records and in what a listener reports: one
// line, URL credentials masked, within the control contract's bound on an attempt's `error`.
import { clip, oneLine } from '@payments-contract/server/runtime/validation-errors';
import { maskUrlCredentials } from './mask-credentials.js';

/** The contract's bound on an attempt's `error` (control contract, CallbackDeliveryAttempt). */
const ATTEMPT_ERROR_LENGTH = 1024;

/** `text` as an attempt's error: one line, credentials masked, at most 1024 characters (decision sandbox-record-bounds). */
export const boundAttemptError = (text: string): string =>
  clip(oneLine(maskUrlCredentials(text)), ATTEMPT_ERROR_LENGTH);

/** Why an attempt got no answer (a timeout, a refused connection), as an attempt's error. */
export function describeAttemptError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer before the attempt timed out';
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return boundAttemptError(error instanceof Error ? `${error.message}${cause}` : String(error));
}
