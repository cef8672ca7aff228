// Being written.
import type { Check } from '../types.js';

export const statefulWorkflows: Check = {
  name: 'stateful_workflows',
  description: 'Not written yet.',
  run: async () => [],
};
