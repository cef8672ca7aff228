// Timestamps: what `x-timestamps` says of each resource's date-time fields, judged on objects the check
// creates, reads, sends a refused request and changes (update, test-mode confirmation, the sandbox control
// API's simulation of an event), with a step of the target's time between each (its clock moved where the
// control API has one, else real time waited): a creation time never moves, an update time moves forward
// with every change and with nothing else, a transition's time moves when its state is entered, and none
// lies before the creation or after the target's time. Cases are planned in workflows/timestamp-cases.ts.
import { probeSandbox } from '../callbacks/sandbox.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { runCases } from '../workflows/case-results.js';
import { UniqueValues } from '../workflows/data.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from '../workflows/steps.js';
import { targetTime } from '../workflows/target-time.js';
import { timestampCases } from '../workflows/timestamp-cases.js';

export function createTimestamps(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'timestamps',
    description:
      'Every timestamp x-timestamps describes moves as it says: a creation time never, an update time forward with every change and never with a read or a refused request, a transition time when its state is entered; none before the creation or after the target’s time.',
    run: async (context: CheckContext): Promise<CheckResult[]> => {
      if (Object.keys(context.contract.model.timestamps).length === 0) return [];
      const sandbox = await probeSandbox(context.http);
      const control = sandbox.control;
      const env = { unique: new UniqueValues(context.contract), settings };
      const { cases, unavailable } = timestampCases(
        context.contract,
        env,
        targetTime(context.contract, control?.clock),
        control && control.simulations.length > 0 ? control : undefined,
      );
      return runCases(context, 'timestamps', cases, unavailable);
    },
  };
}

export const timestamps: Check = createTimestamps();
