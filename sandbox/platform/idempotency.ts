// Idempotency keys (decision `idempotency-key-reuse`): per merchant, mode and operation, kept 24 hours of
// sandbox time after first use. The first request with a key runs; a later one with the same fingerprint is
// a replay, with another fingerprint a mismatch. The claim is a record with a unique field written in the
// caller's transaction: if that transaction fails (a 5xx), the claim goes with it and the key can be used
// again, as the decision says.
import type { Clock, Idempotency, Ids } from '../context.js';
import type { CollectionDefinition } from '../store/store.js';

export const IDEMPOTENCY_COLLECTION = 'sandbox_idempotency_keys';
export const idempotencyCollections: CollectionDefinition[] = [{ name: IDEMPOTENCY_COLLECTION, unique: ['claim'] }];

/** Decision `idempotency-key-reuse`: "kept for 24 hours after first use". */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

type KeyRecord = {
  id: string;
  claim: string;
  operation_id: string;
  key: string;
  fingerprint: string;
  resource_id: string | null;
  created: string;
  expires_at: string;
};

export function createIdempotency(clock: Clock, ids: Ids): Idempotency {
  return {
    run: async (tx, scope, operationId, key, fingerprint, create, idOf) => {
      const claim = `${operationId}\n${key}`;
      const now = clock.now(scope);
      const [existing] = await tx.findBy<KeyRecord>(IDEMPOTENCY_COLLECTION, scope, 'claim', claim, { limit: 1 });
      if (existing && Date.parse(existing.expires_at) > now.getTime()) {
        return existing.fingerprint === fingerprint
          ? { kind: 'replay', originalId: existing.resource_id }
          : { kind: 'mismatch' };
      }
      // Recorded after `create`, in the same transaction: the store runs the transactions of one scope one at
      // a time (across processes on PostgreSQL), so no other request with this key can run between the look
      // above and this write. An expired key's record is taken over (the store has no delete).
      const result = await create();
      const record: KeyRecord = {
        id: existing?.id ?? ids.next(),
        claim,
        operation_id: operationId,
        key,
        fingerprint,
        resource_id: idOf(result),
        created: now.toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_KEY_LIFETIME_MS).toISOString(),
      };
      // A DuplicateKeyError here would mean the store broke that promise: it fails the request and rolls back
      // what `create` wrote, rather than keep a second resource for one key.
      if (existing) await tx.update(IDEMPOTENCY_COLLECTION, scope, record);
      else await tx.insert(IDEMPOTENCY_COLLECTION, scope, record);
      return { kind: 'first', result };
    },
  };
}
