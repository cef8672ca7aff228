// Being written.
import type { Check } from '../types.js';

export const callbacks: Check = {
  name: 'callbacks',
  description: 'Not written yet.',
  run: async () => [],
};
