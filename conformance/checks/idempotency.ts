// Being written.
import type { Check } from '../types.js';

export const idempotency: Check = {
  name: 'idempotency',
  description: 'Not written yet.',
  run: async () => [],
};
