// Check 5, stateful workflows: sequences of requests that follow the contract's state machines (create ->
// read -> update -> end -> refused; create -> find; a direct debit's whole chain; test-mode outcomes;
// unknown identifiers) against a target that keeps state. Each workflow is a subject; a step that fails
// stops its workflow and names the steps not reached; every answer is also judged by check 1.
import { mapPool } from '../pool.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { UniqueValues } from '../workflows/data.js';
import { workflows } from '../workflows/index.js';
import { runScenario } from '../workflows/scenario.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from '../workflows/steps.js';

export function createStatefulWorkflows(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'stateful_workflows',
    description:
      'Workflows derived from the state machines (create, read, update, expire, refusal; lookups; the direct debit chain; test-mode outcomes; unknown ids) behave as the contract says.',
    run: async (context: CheckContext): Promise<CheckResult[]> => {
      const unique = new UniqueValues(context.contract);
      const selected = workflows(context.contract).filter((w) => context.selected('stateful_workflows', w.subject));
      return mapPool(selected, context.options.concurrency, (workflow) => {
        const steps = typeof workflow.steps === 'function' ? workflow.steps(context.contract) : workflow.steps;
        return runScenario(context, 'stateful_workflows', workflow.subject, steps, (scenario) =>
          workflow.script(scenario, { unique, settings }),
        );
      });
    },
  };
}

export const statefulWorkflows: Check = createStatefulWorkflows();
