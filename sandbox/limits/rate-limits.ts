// The contract's rate limits (`x-rate-limits` at its root: each group's limit per window; `x-rate-limit` on
// each operation: its group), counted per key (a merchant in a mode) in fixed windows of real time, as the
// service counts them. Real time, not the sandbox clock: moving a merchant's clock forward is not waiting.
//
// Each sandbox counts its own requests: several sandboxes behind one address let a key make that many
// times the limit. Sharing the counts would cost a database round trip on every request, for a limit
// whose purpose in test mode is to show the client the answer it will meet, not to protect the sandbox.
import type { Scope } from '../store/store.js';

export interface RateLimitGroup {
  name: string;
  /** Requests a key may make in one window. */
  limit: number;
  windowSeconds: number;
}

/** By operationId, the group whose limit applies to it. */
export type RateLimitTable = ReadonlyMap<string, RateLimitGroup>;

type JsonObject = { [key: string]: unknown };
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Reads a contract's limits; a group an operation names that the root does not define is the contract's error. */
export function readRateLimits(document: JsonObject): RateLimitTable {
  const declared = document['x-rate-limits'];
  if (!isObject(declared)) throw new Error('the contract declares no x-rate-limits');
  const groups = new Map<string, RateLimitGroup>();
  for (const [name, group] of Object.entries(declared)) {
    const limit = isObject(group) ? group.limit : undefined;
    const windowSeconds = isObject(group) ? group.window_seconds : undefined;
    if (!Number.isInteger(limit) || !Number.isInteger(windowSeconds) || (limit as number) < 1 || (windowSeconds as number) < 1) throw new Error(`x-rate-limits.${name} needs a whole limit and window_seconds of at least 1`);
    groups.set(name, { name, limit: limit as number, windowSeconds: windowSeconds as number });
  }
  const table = new Map<string, RateLimitGroup>();
  for (const pathItem of Object.values(isObject(document.paths) ? document.paths : {})) {
    if (!isObject(pathItem)) continue;
    for (const [method, operation] of Object.entries(pathItem)) {
      if (!HTTP_METHODS.has(method) || !isObject(operation) || typeof operation.operationId !== 'string') continue;
      const named = operation['x-rate-limit'];
      const group = typeof named === 'string' ? groups.get(named) : undefined;
      if (!group) throw new Error(`${operation.operationId}: x-rate-limit ${String(named)} is not a group of x-rate-limits`);
      table.set(operation.operationId, group);
    }
  }
  return table;
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
  take(scope: Scope, group: RateLimitGroup): RateLimitVerdict;
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
      const key = `${scope.mode}\u0000${scope.merchantId}\u0000${group.name}`;
      let window = windows.get(key);
      if (!window || window.start !== start) windows.set(key, (window = { start, used: 0 }));
      const resetSeconds = Math.max(1, Math.ceil((start + length - now) / 1000));
      if (window.used >= group.limit) return { allowed: false, limit: group.limit, remaining: 0, resetSeconds };
      window.used += 1;
      return { allowed: true, limit: group.limit, remaining: group.limit - window.used, resetSeconds };
    },
  };
}
