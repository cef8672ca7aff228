// The service's answers about its rate limit, in the one shape the service contract gives them: the
// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers (on every answer of a limited
// operation) and the 429 refusal with its `Retry-After`. Both the fault simulation and the sandbox's own rate
// limiter answer through here, so a client sees one format whichever refused it.
import type { NativeAnswer } from '@payments-contract/server/runtime/native-request';

export const RATE_LIMIT_ERROR_CODE = 'RATE_LIMIT_EXCEEDED';
/** The service contract's 503: it cannot take the request now, nothing was done, retry after Retry-After. */
export const SERVICE_UNAVAILABLE_ERROR_CODE = 'SERVICE_UNAVAILABLE';

/** Where a key stands in its current window. */
export interface RateLimitState {
  /** Requests allowed per window. */
  limit: number;
  /** Requests still allowed in this window. */
  remaining: number;
  /** Whole seconds until the window starts again. */
  resetSeconds: number;
}

export interface RateLimitedOptions extends RateLimitState {
  /** Whole seconds the client should wait before it sends the request again (at least 1). */
  retryAfterSeconds: number;
  /** Told to the client; the default says when to retry. */
  message?: string;
}

/** Header values are whole, non-negative numbers; a retry is never asked for sooner than a second. */
const whole = (value: number, minimum = 0): string => String(Math.max(minimum, Math.ceil(value)));

/** The `RateLimit-*` headers (lower-case names, as answers carry them). */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'ratelimit-limit': whole(state.limit, 1),
    'ratelimit-remaining': whole(state.remaining),
    'ratelimit-reset': whole(state.resetSeconds),
  };
}

/** The 429 answer: `{ error_code: RATE_LIMIT_EXCEEDED, message }` with `Retry-After` and the `RateLimit-*` headers. */
export function rateLimitedAnswer(options: RateLimitedOptions): NativeAnswer {
  const retryAfter = whole(options.retryAfterSeconds, 1);
  const message =
    options.message ??
    `Too many requests. Send this request again in ${retryAfter} second${retryAfter === '1' ? '' : 's'}.`;
  return {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': retryAfter, ...rateLimitHeaders(options) },
    body: JSON.stringify({ error_code: RATE_LIMIT_ERROR_CODE, message }),
  };
}
