// Ids as the contract shows them: 24 lower-case hex digits (like the seed's ids), after a prefix where the
// resource has one (`lat-`, `la-`, `pm-`, `ddpy-`). Random, so ids from a restarted sandbox never collide.
import { randomFillSync } from 'node:crypto';
import type { Ids } from '../context.js';

const ID_BYTES = 12;
/** Random bytes are drawn from the system in batches: one call per id cost more than the rest of an insert. */
const POOL_IDS = 256;

export function createIds(): Ids {
  const pool = Buffer.alloc(ID_BYTES * POOL_IDS);
  let offset = pool.length;
  return {
    next: (prefix = '') => {
      if (offset === pool.length) {
        randomFillSync(pool);
        offset = 0;
      }
      const id = pool.toString('hex', offset, offset + ID_BYTES);
      offset += ID_BYTES;
      return `${prefix}${id}`;
    },
  };
}
