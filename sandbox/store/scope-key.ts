// The text a scope's entries are kept under in memory (the journal store's records, clocks, settings, armed
// faults, the scheduler's slots and jobs, the local claims, the callbacks' listeners and retention, the rate
// limits' windows). Made once per merchant and mode rather than on every read: a key built per read is a new
// string to flatten and hash, about 0.4 us a lookup on this project's VM, and scopes are looked up several
// times per request; a key made once is hashed once. Bounded by the scopes there are (a scope comes from a
// valid key or from the store's records).
import type { Scope } from './store.js';

const keys = new Map<string, Map<string, string>>();

/** The same text (the same string) for every scope of one merchant and mode, and another for any other. */
export function scopeKeyOf(merchantId: string, mode: string): string {
  let ofMode = keys.get(mode);
  if (ofMode === undefined) keys.set(mode, (ofMode = new Map()));
  let key = ofMode.get(merchantId);
  if (key === undefined) ofMode.set(merchantId, (key = `${mode}\u0000${merchantId}`));
  return key;
}

export const scopeKey = (scope: Scope): string => scopeKeyOf(scope.merchantId, scope.mode);

/** The text one entry of a scope is kept under (a job, a forward, a rate limit's window): the scope's key and `name`. */
export const scopedKey = (scope: Scope, name: string): string => `${scopeKey(scope)}\u0000${name}`;
