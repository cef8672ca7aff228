// Forbidden transitions: the negative space of the state machines. Every action on an existing object (an
// operation a machine names, a sandbox simulation of one of its events) is tried in every state its machine
// does not allow it in, final and expired states included, and must get the documented refusal and change
// nothing (the object read back, the balances, the callbacks sent about it); each expiry is also tried just
// before its instant, where the same actions must still succeed. Cases are planned in
// workflows/forbidden-cases.ts; results are per operation.
import { probeSandbox } from '../callbacks/sandbox.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { runCases } from '../workflows/case-results.js';
import { UniqueValues } from '../workflows/data.js';
import { forbiddenCases } from '../workflows/forbidden-cases.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from '../workflows/steps.js';

export function createForbiddenTransitions(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'forbidden_transitions',
    description:
      'Every action on an existing object is tried in every state its state machine does not allow it in (final and expired included): it must get the documented refusal and change nothing (state and fields read back, balances, callbacks); just before an expiry the same actions still succeed.',
    run: async (context: CheckContext): Promise<CheckResult[]> => {
      const sandbox = await probeSandbox(context.http);
      const env = { unique: new UniqueValues(context.contract), settings };
      const { cases, unavailable } = forbiddenCases(context.contract, sandbox.control, env);
      return runCases(context, 'forbidden_transitions', cases, unavailable);
    },
  };
}

export const forbiddenTransitions: Check = createForbiddenTransitions();
