// Ids as the contract shows them: 24 lower-case hex digits (like the seed's ids), after a prefix where the
// resource has one (`lat-`, `la-`, `pm-`, `ddpy-`). Built as MongoDB ObjectIds are, which the seed's ids are
// (`5ed75086...` starts with a 2020 timestamp): 4 bytes of Unix seconds, 5 random bytes drawn once per
// sandbox process, and a 3-byte counter from a random start. So ids never collide, also across restarts, and
// ids made one after another sort one after another, which keeps the store's id index appending at its end
// instead of writing a random page of it for every new record.
import { randomBytes } from 'node:crypto';
import type { Ids } from '../context.js';

const COUNTER_LIMIT = 0x1000000;

export function createIds(seconds: () => number = () => Math.floor(Date.now() / 1000)): Ids {
  const processPart = randomBytes(5).toString('hex');
  let counter = randomBytes(3).readUIntBE(0, 3);
  return {
    next: (prefix = '') => {
      counter = (counter + 1) % COUNTER_LIMIT;
      const time = (seconds() >>> 0).toString(16).padStart(8, '0');
      return `${prefix}${time}${processPart}${counter.toString(16).padStart(6, '0')}`;
    },
  };
}
