// Check 6, idempotency: for every operation with an idempotency header, the behaviour its error triggers
// document (kinds `idempotency_replay` and `idempotency_mismatch`): a first request succeeds; the same key
// and body get the replay code and create nothing new; the same key with another body gets the mismatch
// code and creates nothing, and so does the same key with the same identifiers and another amount;
// concurrent requests with one key create exactly one resource; the header's own schema (required, length
// limits) is enforced. What a request refers to is provided first.
import { mapPool } from '../pool.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import {
  concurrentRequests,
  firstRequest,
  keyLimits,
  otherBody,
  otherValuesBody,
  sameKeyAndBody,
  type Case,
  type Ground,
  type Subject,
} from '../workflows/idempotency-cases.js';
import { isIdempotencyHeader } from '../data/requests.js';
import { UniqueValues } from '../workflows/data.js';
import { CannotProvide, planReferences, type Action, type Provided } from '../workflows/provision.js';
import { triggersOf } from '../workflows/resources.js';
import { runScenario, type Scenario } from '../workflows/scenario.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowEnv, type WorkflowSettings } from '../workflows/steps.js';

const CASES = [
  'first request',
  'same key and body',
  'same key, other body',
  'same key, other values',
  'concurrent requests',
  'no key',
  'key too long',
  'key at the longest',
  'key too short',
];
const CASES_IN_ORDER: Case[] = [sameKeyAndBody, otherBody, otherValuesBody, concurrentRequests, keyLimits];

export function subjects(context: CheckContext): Subject[] {
  return context.contract.model.operations.flatMap((operation) => {
    const header = operation.parameters.find(isIdempotencyHeader);
    if (!header) return [];
    const forHeader = (when: 'idempotency_replay' | 'idempotency_mismatch'): string | undefined =>
      triggersOf(operation, when).find(
        ([, trigger]) => trigger.header.toLowerCase() === header.name.toLowerCase(),
      )?.[0];
    const replay = forHeader('idempotency_replay');
    const mismatch = forHeader('idempotency_mismatch');
    return [{ operation, header, ...(replay ? { replay } : {}), ...(mismatch ? { mismatch } : {}) }];
  });
}

export function setupOf(context: CheckContext, subject: Subject): Action[] | string {
  try {
    return planReferences(context.contract, subject.operation);
  } catch (error) {
    if (error instanceof CannotProvide) return error.message;
    throw error;
  }
}

/**
 * Provides what the subject's request refers to, then sends its first request with a key. It must succeed
 * (and the operation must document its replay answer), or nothing else can be judged.
 */
export async function firstRequestOf(
  s: Scenario,
  env: WorkflowEnv,
  subject: Subject,
  setup: Action[],
): Promise<Ground> {
  const replay =
    subject.replay ??
    s.skip(
      `${subject.operation.operationId} documents no replay answer (x-error-triggers kind idempotency_replay) for ${subject.header.name}`,
    );
  const provided: Provided = new Map();
  for (const action of setup) await action.run(s, env, provided);
  return firstRequest(s, env, subject, replay, provided);
}

export function createIdempotency(settings: WorkflowSettings = DEFAULT_WORKFLOW_SETTINGS): Check {
  return {
    name: 'idempotency',
    description:
      "Operations with an idempotency header: the same key and body get the documented replay answer and create nothing; the same key with another body gets the mismatch code; concurrent requests with one key create one resource; the key's schema holds.",
    run: async (context): Promise<CheckResult[]> => {
      const unique = new UniqueValues(context.contract);
      const selected = subjects(context).filter((subject) =>
        context.selected('idempotency', subject.operation.operationId),
      );
      return mapPool(selected, context.options.concurrency, async (subject) => {
        const setup = setupOf(context, subject);
        const steps = [...(typeof setup === 'string' ? [] : setup.map((action) => action.step)), ...CASES];
        return runScenario(context, 'idempotency', subject.operation.operationId, steps, async (s) => {
          if (typeof setup === 'string') return s.skip(setup);
          const ground = await firstRequestOf(s, { unique, settings }, subject, setup);
          for (const run of CASES_IN_ORDER) await run(ground);
        });
      });
    },
  };
}

export const idempotency: Check = createIdempotency();
