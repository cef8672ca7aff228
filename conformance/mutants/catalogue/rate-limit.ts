// Mutants of the rate limit: a limit never enforced, a count that does not go down, a window that never
// starts again, a 429 that states another limit.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'rate-limit-never-enforced',
    family: 'rate_limit',
    caught: { result: 'rate_limit:getBalance', alone: true },
    mistake: 'the limit is compared with the count a thousand times over, so no key is ever refused',
    edits: [
      {
        file: 'limits/rate-limits.ts',
        within: 'createRateLimiter.take',
        find: 'if (window.used >= group.limit) return',
        replace: 'if (window.used >= group.limit * 1000) return',
      },
    ],
  },
  {
    name: 'rate-limit-remaining-not-counted',
    family: 'rate_limit',
    caught: { result: 'rate_limit:getBalance', alone: true },
    mistake: 'RateLimit-Remaining always says one request was used, whatever the count',
    edits: [
      {
        file: 'limits/rate-limits.ts',
        within: 'createRateLimiter.take',
        find: 'return { allowed: true, limit: group.limit, remaining: group.limit - window.used, resetSeconds };',
        replace: 'return { allowed: true, limit: group.limit, remaining: group.limit - 1, resetSeconds };',
      },
    ],
  },
  {
    name: 'rate-limit-window-never-resets',
    family: 'rate_limit',
    caught: { result: 'rate_limit:getBalance', alone: true },
    mistake:
      "a key's window is made once and never started again, so a refused key stays refused after its Retry-After",
    edits: [
      {
        file: 'limits/rate-limits.ts',
        within: 'createRateLimiter.take',
        find: 'if (!window || window.start !== start)',
        replace: 'if (!window)',
      },
    ],
  },
  {
    name: 'rate-limit-429-states-another-limit',
    family: 'rate_limit',
    caught: { result: 'rate_limit:getBalance', alone: true },
    mistake: "the 429 states the requests left (none) as RateLimit-Limit instead of the window's limit",
    edits: [
      {
        file: 'limits/enforce.ts',
        within: 'enforceRateLimits',
        find: 'return rateLimitedAnswer({ ...verdict, retryAfterSeconds',
        replace: 'return rateLimitedAnswer({ ...verdict, limit: verdict.remaining, retryAfterSeconds',
      },
    ],
  },
];
