// Objects a triggering request must reference: a direct debit names a payment method, which names a
// customer and a linked account. The contract names these fields (the `not_found` error triggers with a
// body parameter); the objects are provided the way the stateful workflows provide them
// (workflows/provision.ts), a chain derived from the contract's own operations, so it is written once.
import type { Contract } from '../contract.js';
import type { CheckContext } from '../types.js';
import { UniqueValues } from '../workflows/data.js';
import { CannotProvide, planProvision, type Action, type Provided } from '../workflows/provision.js';
import { bodyReferences, referencedKind, type Reference } from '../workflows/resources.js';
import { runScenario } from '../workflows/scenario.js';
import { DEFAULT_WORKFLOW_SETTINGS } from '../workflows/steps.js';

export type Supplied = { value: string } | { reason: string };

/** Body fields that must name an existing object, per the operation's `not_found` triggers. */
export function referenceFields(contract: Contract, operationId: string): string[] {
  return bodyReferences(contract, contract.operation(operationId)).map((reference) => reference.field);
}

/** Provides one object of `kind` with the workflows' steps; its id, or why there is none. */
async function provide(context: CheckContext, kind: string): Promise<Supplied> {
  let actions: Action[];
  try {
    actions = planProvision(context.contract, kind);
  } catch (error) {
    if (error instanceof CannotProvide) return { reason: error.message };
    throw error;
  }
  const env = { unique: new UniqueValues(context.contract), settings: DEFAULT_WORKFLOW_SETTINGS };
  const provided: Provided = new Map();
  const result = await runScenario(
    context,
    'callbacks',
    `a ${kind} to refer to`,
    actions.map((action) => action.step),
    async (scenario) => {
      for (const action of actions) await action.run(scenario, env, provided);
    },
  );
  if (result.outcome === 'failed' || result.outcome === 'skipped')
    return { reason: result.skippedReason ?? result.findings.map((finding) => finding.message).join('; ') };
  const id = provided.get(kind)?.id;
  return typeof id === 'string' ? { value: id } : { reason: `the ${kind} provided has no id` };
}

/** Supplies each kind of referenced object once per run (one payment method serves every direct debit event). */
export function createSupply(context: CheckContext): (reference: Reference) => Promise<Supplied> {
  const cache = new Map<string, Promise<Supplied>>();
  return (reference) => {
    const kind = referencedKind(context.contract, reference);
    if (kind === undefined)
      return Promise.resolve({ reason: `the suite cannot tell which kind of object ${reference.field} names` });
    const existing = cache.get(kind);
    if (existing) return existing;
    const made = provide(context, kind).catch((error: unknown) => ({
      reason: `${kind}: ${error instanceof Error ? error.message : String(error)}`,
    }));
    cache.set(kind, made);
    return made;
  };
}
