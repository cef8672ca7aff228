// The rate limits as the sandbox answers them: around every request of a known key, count it in its
// operation's group; over the limit, the contract's 429 instead of the operation; otherwise the operation's
// own answer with the RateLimit-* fields added, whatever its status.
import type { AroundOperation } from '@payments-contract/server';
import type { RateLimitModel } from '@payments-contract/contract/model/types';
import type { NativeAnswer } from '@payments-contract/server/runtime/native-request';
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
  const limited = async (principal: Caller, group: RateLimitModel, next: () => Promise<NativeAnswer>) => {
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
  // Not an async function: with the limits off (the bench, most local use) the operation's own promise is
  // handed back as it is, without a promise and two turns of the microtask queue of its own per request.
  return ({ principal, operationId }, next) => {
    const group = table.get(operationId);
    if (group === undefined) return next();
    const on = enabled(principal);
    if (on === false) return next();
    if (on === true) return limited(principal, group, next);
    return on.then((yes) => (yes ? limited(principal, group, next) : next()));
  };
}
