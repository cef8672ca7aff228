// One OTP judgement for both objects that have one (a linked account token, a direct debit payment), so
// the two OTP operations cannot drift apart. Decision `otp-rules`: an OTP lives 5 minutes after it was
// sent and 3 wrong codes are allowed in total; the contract states both only in prose, hence constants.
// Decision `test-mode-otp-codes`: the code itself selects the outcome, per the operation's x-test-mode.
import type { OtpErrorCode, OtpTestTable } from './contract.js';

export const OTP_LIFETIME_MS = 5 * 60 * 1000;
export const OTP_MAX_WRONG_ATTEMPTS = 3;

/** The OTP bookkeeping an object carries while its OTP is outstanding. */
export type OtpState = {
  /** When the OTP was sent (ISO 8601). */
  otp_sent_at: string;
  /** Wrong codes so far. */
  otp_wrong_attempts: number;
};

export type OtpVerdict =
  | { kind: 'accepted' }
  /** A wrong code with attempts left: the object stays as it is, with the attempt counted. */
  | { kind: 'wrong'; wrongAttempts: number; remaining: number }
  /** The object fails for good with this error. */
  | { kind: 'failed'; errorCode: Exclude<OtpErrorCode, 'INVALID_OTP_ERROR'> };

export const otpExpiresAt = (sentAt: string): Date => new Date(Date.parse(sentAt) + OTP_LIFETIME_MS);

export function judgeOtp(table: OtpTestTable, state: OtpState, code: string, now: Date): OtpVerdict {
  // Expiry wins over the code: after 5 minutes even the success code fails (decision `otp-rules`: "a
  // validation after the 5 minutes answers EXPIRED_OTP_ERROR").
  if (now.getTime() > otpExpiresAt(state.otp_sent_at).getTime())
    return { kind: 'failed', errorCode: 'EXPIRED_OTP_ERROR' };
  const outcome = table.outcomeOf(code);
  if (outcome.kind === 'success') return { kind: 'accepted' };
  if (outcome.errorCode !== 'INVALID_OTP_ERROR') return { kind: 'failed', errorCode: outcome.errorCode };
  const wrongAttempts = state.otp_wrong_attempts + 1;
  if (wrongAttempts >= OTP_MAX_WRONG_ATTEMPTS) return { kind: 'failed', errorCode: 'MAX_OTP_ATTEMPTS_ERROR' };
  return { kind: 'wrong', wrongAttempts, remaining: OTP_MAX_WRONG_ATTEMPTS - wrongAttempts };
}

export const otpMessages = {
  wrong: (remaining: number): string =>
    `The OTP is incorrect. ${remaining} ${remaining === 1 ? 'attempt remains' : 'attempts remain'}.`,
  EXPIRED_OTP_ERROR: (what: string): string => `The OTP has expired. The ${what} has failed.`,
  MAX_OTP_ATTEMPTS_ERROR: (what: string): string => `Too many incorrect OTP attempts. The ${what} has failed.`,
};
