// The rate limits as the sandbox answers them: around every request of a known key, count it in its
// operation's group; over the limit, the contract's 429 instead of the operation; otherwise the operation's
// own answer with the RateLimit-* fields added, whatever its status.
import type { AroundOperation } from '@payments-contract/server';
import type { Caller } from '../context.js';
import { rateLimitedAnswer, rateLimitHeaders } from './limit-answers.js';
import type { RateLimiter, RateLimitTable } from './rate-limits.js';

export interface RateLimitEnforcement {
  table: RateLimitTable;
  limiter: RateLimiter;
  /** Whether the key's limits apply now (the sandbox's configuration and the merchant's setting). */
  enabled: (caller: Caller) => boolean | Promise<boolean>;
}

export function enforceRateLimits({ table, limiter, enabled }: RateLimitEnforcement): AroundOperation<Caller> {
  return async ({ principal, operationId }, next) => {
    const group = table.get(operationId);
    const on = group !== undefined && enabled(principal);
    if (!group || !(on instanceof Promise ? await on : on)) return next();
    const verdict = limiter.take(principal, group);
    if (!verdict.allowed) {
      return rateLimitedAnswer({
        ...verdict,
        retryAfterSeconds: verdict.resetSeconds,
        message: `Too many requests: this key may make ${group.limit} ${group.group} requests every ${group.windowSeconds} s. Send this request again in ${verdict.resetSeconds} s.`,
      });
    }
    const answer = await next();
    return { ...answer, headers: { ...answer.headers, ...rateLimitHeaders(verdict) } };
  };
}
