// Merchants and their keys: a key names one merchant in one mode, and that pair scopes everything the
// request sees (test objects never exist in live mode, one merchant's objects never exist for another).
import type { BasicCredentials } from '@payments-contract/server/runtime/basic-auth';
import { digestsEqual, secretDigest } from '@payments-contract/server/runtime/constant-time';
import type { MerchantConfig } from './config.js';
import type { Caller, Mode, Scope } from './context.js';

export interface Merchants {
  /** The caller a key belongs to, or null (the router answers 401 INVALID_API_KEY). */
  authenticate(credentials: BasicCredentials | null): Caller | null;
  /** The token the merchant checks on callbacks of this mode. */
  callbackToken(scope: Scope): string;
  list(): readonly MerchantConfig[];
}

interface KeyEntry {
  /** The key's digest, made once: each request then costs one digest, of the key it presents. */
  digest: Buffer;
  caller: Caller;
}

export function createMerchants(merchants: readonly MerchantConfig[]): Merchants {
  const entries: KeyEntry[] = merchants.flatMap((merchant) =>
    (['test', 'live'] as const).map((mode: Mode) => ({
      digest: secretDigest(merchant.keys[mode]),
      caller: Object.freeze({ merchantId: merchant.id, mode, ownerId: merchant.ownerId }),
    })),
  );
  const byId = new Map(merchants.map((merchant) => [merchant.id, merchant]));
  // Decision: a key that authenticated is known by its text afterwards, so each request of a valid key costs a
  // Map lookup rather than a SHA-256 digest (3-4% of the sandbox's CPU under the bench's mix). Safe because:
  // only a presented key equal to a configured one is ever put, so the map holds at most one entry per
  // configured key, whatever is sent; a lookup hashes the whole presented text (in time set by its length) with
  // V8's per-process random seed and compares text only with an entry of the same hash, which a caller cannot
  // aim at without knowing the key; and whether a key is valid, the one thing a hit's shorter time could say,
  // the answer says anyway. A key not yet known (every invalid one) is still compared with every key by digest.
  const known = new Map<string, Caller>();
  return {
    authenticate(credentials) {
      // The contract's scheme: the key is the user name and the password is empty.
      if (credentials === null || credentials.password !== '') return null;
      const knownCaller = known.get(credentials.username);
      if (knownCaller !== undefined) return knownCaller;
      // Every key is compared, even after a match, so the time taken says nothing about which key (or how
      // much of one) matched; digests are compared in constant time.
      const presented = secretDigest(credentials.username);
      let found: Caller | null = null;
      for (const entry of entries) {
        if (digestsEqual(presented, entry.digest)) found = entry.caller;
      }
      if (found !== null) known.set(credentials.username, found);
      return found;
    },
    callbackToken(scope) {
      const merchant = byId.get(scope.merchantId);
      if (!merchant) throw new Error(`no merchant ${scope.merchantId}`);
      return merchant.callbackTokens[scope.mode];
    },
    list: () => merchants,
  };
}
