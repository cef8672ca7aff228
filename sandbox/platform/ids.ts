// Ids as the contract shows them: 24 lower-case hex digits (like the seed's ids), after a prefix where the
// resource has one (`lat-`, `la-`, `pm-`, `ddpy-`). Random, so ids from a restarted sandbox never collide.
import { randomBytes } from 'node:crypto';
import type { Ids } from '../context.js';

export function createIds(): Ids {
  return { next: (prefix = '') => `${prefix}${randomBytes(12).toString('hex')}` };
}
