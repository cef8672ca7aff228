// Being written.
import type { Check } from '../types.js';

export const auth: Check = {
  name: 'auth',
  description: 'Not written yet.',
  run: async () => [],
};
