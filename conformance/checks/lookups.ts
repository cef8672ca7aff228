// Lookups: every list or lookup operation whose `x-matches` states the order of what it answers is asked
// about several objects that share what it looks for (three made one after another with the same reference
// id, external id or customer): a list holds all of them, in that order; a lookup answering one object
// answers the one that order puts first. Cases are planned in workflows/lookup-cases.ts; results are per
// operation. Where the sandbox control API has a clock, it is moved between the creations, so a target
// that orders by `created` is judged on distinct times.
import { probeSandbox } from '../callbacks/sandbox.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { runCases } from '../workflows/case-results.js';
import { UniqueValues } from '../workflows/data.js';
import { lookupCases } from '../workflows/lookup-cases.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from '../workflows/steps.js';
import { targetTime } from '../workflows/target-time.js';

export function createLookups(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'lookups',
    description:
      'Every list or lookup with a stated order of matches (x-matches), asked about three objects sharing its query fields, holds all of them in that order, or answers the one that order puts first.',
    run: async (context: CheckContext): Promise<CheckResult[]> => {
      if (!context.contract.model.operations.some((o) => o.matches !== undefined)) return [];
      const sandbox = await probeSandbox(context.http);
      const env = { unique: new UniqueValues(context.contract), settings };
      const { cases, unavailable, notApplicable } = lookupCases(
        context,
        env,
        targetTime(context.contract, sandbox.control?.clock),
      );
      const results = await runCases(context, 'lookups', cases, unavailable);
      const ran = new Set(results.map((r) => r.subject));
      for (const { subject, label, reason } of notApplicable) {
        if (ran.has(subject) || !context.selected('lookups', subject)) continue;
        results.push({
          check: 'lookups',
          subject,
          outcome: 'skipped',
          cases: 0,
          findings: [],
          skippedReason: `${label}: ${reason}`,
          notApplicable: true,
        });
      }
      return results;
    },
  };
}

export const lookups: Check = createLookups();
