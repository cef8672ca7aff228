// Uniqueness: every `duplicate` trigger of every operation's x-error-triggers, tried on its own operation.
// The repeat of exactly the trigger's fields gets its code at the documented status; a request that differs
// in one of those fields is accepted; the same fields for another merchant or in the other mode are
// accepted (with the isolation keys). Cases are planned in workflows/uniqueness-cases.ts.
import type { Check, CheckContext, CheckResult } from '../types.js';
import { runCases } from '../workflows/case-results.js';
import { UniqueValues } from '../workflows/data.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from '../workflows/steps.js';
import { uniquenessCases } from '../workflows/uniqueness-cases.js';

export function createUniqueness(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'uniqueness',
    description:
      'Every duplicate rule (x-error-triggers kind duplicate) refuses the repeat of exactly its fields with its code, accepts a request that differs in one of them, and holds within a merchant and mode only.',
    run: async (context: CheckContext): Promise<CheckResult[]> => {
      const { cases, unavailable } = uniquenessCases(context, { unique: new UniqueValues(context.contract), settings });
      return runCases(context, 'uniqueness', cases, unavailable);
    },
  };
}

export const uniqueness: Check = createUniqueness();
