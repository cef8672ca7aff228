// Transitions: the effect of every state-machine transition the suite can cause, read back from the
// service (a single-use account is INACTIVE after its payment, a failed disbursement reads FAILED), and the
// exact error code of every transition the contract answers with one (a completed OTP validated again, an
// inactive code updated, an invalidated payment method charged), from every way into the state it leaves.
// Cases are planned in workflows/transition-cases.ts; results are per operation.
import { probeSandbox } from '../callbacks/sandbox.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { runCases } from '../workflows/case-results.js';
import { UniqueValues } from '../workflows/data.js';
import { stateMachines } from '../workflows/machines.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from '../workflows/steps.js';
import { transitionCases } from '../workflows/transition-cases.js';

export function createTransitions(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'transitions',
    description:
      'Every state-machine transition the suite can cause (operation, sandbox simulation) leaves the resource in the state it names when read back; every transition answered with an error gets exactly that code, after every way into its state.',
    run: async (context: CheckContext): Promise<CheckResult[]> => {
      // Events are caused through the sandbox control API only when some machine has one.
      const events = [...stateMachines(context.contract).values()].some((m) =>
        m.transitions.some((t) => t.trigger.event !== undefined),
      );
      const sandbox = events ? await probeSandbox(context.http) : undefined;
      const env = { unique: new UniqueValues(context.contract), settings };
      const { cases, unavailable } = transitionCases(context.contract, sandbox?.control, env);
      return runCases(context, 'transitions', cases, unavailable);
    },
  };
}

export const transitions: Check = createTransitions();
