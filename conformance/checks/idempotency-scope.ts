// Check idempotency_scope: what an idempotency key belongs to and which answers use it up, from the
// operation's `x-idempotency` (decision idempotency-key-reuse). After a first request that succeeded: the
// same key under another merchant and in the other mode (the run's isolation keys) is another key, there
// alone and when both send it at once; a first request refused for its own content leaves the key unused
// (the valid retry is executed), one the contract remembers uses it up (the retry gets the mismatch code);
// keys of every shape the header's schema allows are honoured, and keys that differ in their last
// character or only in letter case are different keys; distinct keys sent at once create distinct objects.
import { mapPool } from '../pool.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { UniqueValues } from '../workflows/data.js';
import type { Subject } from '../workflows/idempotency-cases.js';
import {
  acrossKeys,
  afterRefusal,
  atOnceStep,
  distinctKeysAtOnce,
  DISTINCT_STEP,
  keyShapes,
  otherKeyStep,
  refusals,
  refusedStep,
  SHAPE_STEPS,
  type ScopeGround,
} from '../workflows/idempotency-scope-cases.js';
import { bodyExamples } from '../data/requests.js';
import { runScenario } from '../workflows/scenario.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowSettings } from '../workflows/steps.js';
import { firstRequestOf, setupOf, subjects } from './idempotency.js';
import { foreignSides, OPTION_HINT } from './isolation.js';

interface ScopeSubject extends Subject {
  idempotency: NonNullable<Subject['operation']['idempotency']>;
}

/** The idempotency check's subjects whose key the contract describes (`x-idempotency` naming that header). */
function scopeSubjects(context: CheckContext): ScopeSubject[] {
  return subjects(context).flatMap((subject) => {
    const idempotency = subject.operation.idempotency;
    return idempotency && idempotency.header.toLowerCase() === subject.header.name.toLowerCase()
      ? [{ ...subject, idempotency }]
      : [];
  });
}

export function createIdempotencyScope(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'idempotency_scope',
    description:
      'Idempotency keys per x-idempotency: the same key under another merchant or in the other mode is another key (alone and at once); a first request refused for its content leaves the key unused, a remembered refusal uses it up; keys of every allowed shape are honoured and compared exactly; distinct keys at once create distinct objects.',
    run: async (context): Promise<CheckResult[]> => {
      const unique = new UniqueValues(context.contract);
      const sides = foreignSides(context);
      const missing = (['merchant', 'mode'] as const).filter(
        (relation) => !sides.some((side) => side.relation === relation),
      );
      // A key not given leaves those cases undone: the run is incomplete, never passed for them.
      const unchecked = missing.map(
        (relation) =>
          `same key across ${relation === 'merchant' ? 'merchants' : 'modes'}: not tried, give ${OPTION_HINT[relation]}`,
      );
      const described = scopeSubjects(context);
      const selected = described.filter((subject) =>
        context.selected('idempotency_scope', subject.operation.operationId),
      );
      if (described.length === 0)
        return !context.selected('idempotency_scope', '(contract)')
          ? []
          : [
              {
                check: 'idempotency_scope',
                subject: '(contract)',
                outcome: 'skipped',
                cases: 0,
                findings: [],
                notApplicable: true,
                skippedReason: 'no operation states how its idempotency key works (x-idempotency)',
              },
            ];
      return mapPool(selected, context.options.concurrency, async (subject) => {
        const setup = setupOf(context, subject);
        const example = bodyExamples(context.contract, subject.operation)[0]?.value;
        const refused = example === undefined ? [] : refusals(context.contract, subject.operation, example);
        const steps = [
          ...(typeof setup === 'string' ? [] : setup.map((action) => action.step)),
          'first request',
          ...sides.flatMap((side) => [otherKeyStep(side), atOnceStep(side)]),
          ...refused.map(refusedStep),
          ...SHAPE_STEPS,
          DISTINCT_STEP,
        ];
        const result = await runScenario(
          context,
          'idempotency_scope',
          subject.operation.operationId,
          steps,
          async (s) => {
            if (typeof setup === 'string') return s.skip(setup);
            const env = { unique, settings };
            const ground = await firstRequestOf(s, env, subject, setup);
            const g: ScopeGround = {
              ...ground,
              idempotency: subject.idempotency,
              env,
              setup,
              ...(subject.mismatch ? { mismatch: subject.mismatch } : {}),
            };
            // The cases use keys of their own, so they run side by side; the refusals are built from a fresh
            // body, with this run's references in it.
            await Promise.all([
              ...sides.map((side) => acrossKeys(g, side)),
              ...refusals(context.contract, subject.operation, g.body()).map((refusal) => afterRefusal(g, refusal)),
              keyShapes(g),
              distinctKeysAtOnce(g),
            ]);
          },
        );
        return unchecked.length > 0 && result.outcome !== 'skipped' ? { ...result, unchecked } : result;
      });
    },
  };
}

export const idempotencyScope: Check = createIdempotencyScope();
