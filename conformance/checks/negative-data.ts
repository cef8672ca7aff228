// Being written.
import type { Check } from '../types.js';

export const negativeData: Check = {
  name: 'negative_data',
  description: 'Not written yet.',
  run: async () => [],
};
