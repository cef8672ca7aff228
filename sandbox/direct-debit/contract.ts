// What the direct debit module takes from the contract rather than restating it: the OTP test codes
// (`x-test-mode` of both OTP operations), the card value that simulates an unavailable channel (the
// `test_mode` of initializeLinkedAccountTokenization's CHANNEL_UNAVAILABLE trigger) and the webhook the
// outcomes are sent by. Read once from the bundled document when the module loads, so a contract that
// no longer has the shape this code relies on fails at start-up, not on the first request.
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import { contractOperation } from '../contract.js';
import { webhookMetadata } from '@payments-contract/client/webhooks';

/** The OTP errors the state machines give a meaning to (they are the codes the OTP operations document). */
export type OtpErrorCode = 'INVALID_OTP_ERROR' | 'EXPIRED_OTP_ERROR' | 'MAX_OTP_ATTEMPTS_ERROR';
const OTP_ERROR_CODES: readonly OtpErrorCode[] = ['INVALID_OTP_ERROR', 'EXPIRED_OTP_ERROR', 'MAX_OTP_ATTEMPTS_ERROR'];

export type OtpTestOutcome = { kind: 'success' } | { kind: 'error'; errorCode: OtpErrorCode };

/** What an OTP operation's test mode says a code does: listed codes, and the outcome of every other code. */
export interface OtpTestTable {
  outcomeOf(code: string): OtpTestOutcome;
}

/** A request value that selects an outcome in test mode (`x-error-triggers.<code>.test_mode`). */
export interface TestModeTrigger {
  /** Dotted path into the request body, e.g. `properties.card_last_four`. */
  field: string;
  value: Json;
  /** True when `body` carries the value at `field`. */
  matches(body: unknown): boolean;
}

function otpOutcome(raw: Json | undefined, where: string): OtpTestOutcome {
  if (!isObject(raw)) throw new Error(`${where}: expected an object`);
  if (raw.result === 'success') return { kind: 'success' };
  const code = OTP_ERROR_CODES.find((c) => c === raw.error_code);
  if (!code) throw new Error(`${where}: error_code ${String(raw.error_code)} is not an OTP error this module knows`);
  return { kind: 'error', errorCode: code };
}

/** Reads `x-test-mode` of an OTP operation: `{ field: otp_code, outcomes: [{value, result|error_code}], default_outcome }`. */
export function readOtpTestTable(operation: OperationModel): OtpTestTable {
  const testMode = operation.testMode;
  const where = `${operation.operationId} x-test-mode`;
  if (!testMode || testMode.field !== 'otp_code' || !Array.isArray(testMode.outcomes))
    throw new Error(`${where}: expected otp_code outcomes`);
  const listed = new Map<string, OtpTestOutcome>();
  testMode.outcomes.forEach((outcome, index) => {
    if (!isObject(outcome) || typeof outcome.value !== 'string')
      throw new Error(`${where}.outcomes[${index}]: expected a string value`);
    listed.set(outcome.value, otpOutcome(outcome, `${where}.outcomes[${index}]`));
  });
  const fallback = otpOutcome(testMode.default_outcome, `${where}.default_outcome`);
  return { outcomeOf: (code) => listed.get(code) ?? fallback };
}

function valueAt(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) =>
        typeof node === 'object' && node !== null && !Array.isArray(node)
          ? (node as Record<string, unknown>)[key]
          : undefined,
      value,
    );
}

/** Reads the `test_mode: { field, value }` of one error trigger of an operation. */
export function readTestModeTrigger(operation: OperationModel, errorCode: string): TestModeTrigger {
  const testMode = operation.errorTriggers[errorCode]?.test_mode;
  if (!testMode)
    throw new Error(`${operation.operationId} x-error-triggers.${errorCode}: expected test_mode { field, value }`);
  const { field, value } = testMode;
  return { field, value, matches: (body) => valueAt(body, field) === value };
}

export const contract = {
  tokenOtp: readOtpTestTable(contractOperation('validateLinkedAccountTokenOtp')),
  paymentOtp: readOtpTestTable(contractOperation('validateDirectDebitPaymentOtp')),
  channelUnavailable: readTestModeTrigger(
    contractOperation('initializeLinkedAccountTokenization'),
    'CHANNEL_UNAVAILABLE',
  ),
  /** The webhook a direct debit payment's outcome is sent by (destination: the request's callback_url). */
  paymentWebhook: webhookMetadata.directDebitPayment.operationId,
};
