// The contract's rate limits (`x-rate-limits` at its root: each group's limit per window; `x-rate-limit` on
// each operation: its group), counted per key (a merchant in a mode) in fixed windows of real time, as the
// service counts them. Real time, not the sandbox clock: moving a merchant's clock forward is not waiting.
//
// Each sandbox counts its own requests: several sandboxes behind one address let a key make that many
// times the limit. Sharing the counts would cost a database round trip on every request, for a limit
// whose purpose in test mode is to show the client the answer it will meet, not to protect the sandbox.
import type { OperationModel, RateLimitModel } from '@payments-contract/contract/model/types';
import type { Scope } from '../store/store.js';
import { scopedKey } from '../store/scope-key.js';

/** By operationId, the group whose limit applies to it. */
export type RateLimitTable = ReadonlyMap<string, RateLimitModel>;

/** The limits of a contract's operations (read by the contract model); the sandbox holds every operation to one. */
export function rateLimitTable(operations: readonly OperationModel[]): RateLimitTable {
  const unlimited = operations.filter((operation) => !operation.rateLimit).map((operation) => operation.operationId);
  if (unlimited.length > 0) throw new Error(`the contract gives no x-rate-limit to ${unlimited.join(', ')}`);
  return new Map(operations.map((operation) => [operation.operationId, operation.rateLimit!]));
}

/** Where a key stands in its group's current window, after counting one more request (or refusing it). */
export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts a request of `scope` to an operation of `group`, unless the window's limit is already reached. */
  take(scope: Scope, group: RateLimitModel): RateLimitVerdict;
}

/**
 * Fixed windows aligned to multiples of their length: a key's count starts again at each window's start.
 * A refused request does not count, so a client that waits for Retry-After gets the whole next window.
 */
export function createRateLimiter(realTime: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { start: number; used: number }>();
  return {
    take: (scope, group) => {
      const now = realTime();
      const length = group.windowSeconds * 1000;
      const start = now - (now % length);
      const key = scopedKey(scope, group.group);
      let window = windows.get(key);
      if (!window || window.start !== start) windows.set(key, (window = { start, used: 0 }));
      const resetSeconds = Math.max(1, Math.ceil((start + length - now) / 1000));
      if (window.used >= group.limit) return { allowed: false, limit: group.limit, remaining: 0, resetSeconds };
      window.used += 1;
      return { allowed: true, limit: group.limit, remaining: group.limit - window.used, resetSeconds };
    },
  };
}
