// Check `balance_rules`, part one: money on more than one amount. Every case of the money check (a
// transition the state machines say moves money, caused as that check causes it) runs again with amounts
// other than the example's: for each balance effect's amount (`resource.<field>`: the creation body's field
// of that name; `payload.<field>`: the simulation body's), the schema's smallest and an odd one, each kept
// only when the whole body with it is valid and selects no test-mode outcome. The balance must move by
// exactly the amount sent and the object must record it. A refusal of such a request is a failure, not a
// "cannot run": the balance covers these amounts.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { ControlApi } from '../callbacks/sandbox.js';
import { firstExample } from '../callbacks/steps.js';
import { bodyExamples } from '../data/requests.js';
import { accountKey, accountLabel, type Account } from '../data/balance-effects.js';
import { otherAmounts } from '../data/balance-rules.js';
import type { Contract } from '../contract.js';
import { propertySchema } from '../workflows/resources.js';
import type { CheckContext, CheckResult } from '../types.js';
import { runScenario, ScenarioSkipped, type Scenario } from '../workflows/scenario.js';
import type { WorkflowEnv } from '../workflows/steps.js';
import { readBalance } from './balance-rules-edge.js';
import { MONEY_STEPS, runCase, type CaseValues, type MoneyCase } from './money.js';

export const CHECK = 'balance_rules';

/** The fields whose amounts the case's effects move: `resource.x` in the creation body, `payload.x` in the simulation body. */
function amountFields(c: MoneyCase): { creation: string[]; simulation: string[] } {
  const transitions = c.simulation
    ? c.simulated
    : [...c.effects.keys()].filter((t) => t.from === null && t.trigger.operation === c.create.operationId);
  const paths = [...new Set(transitions.flatMap((t) => c.effects.get(t) ?? []).map((effect) => effect.amount))];
  const named = (source: string): string[] =>
    paths.filter((path) => path.startsWith(`${source}.`)).map((path) => path.slice(source.length + 1));
  return { creation: named('resource'), simulation: c.simulation ? named('payload') : [] };
}

function variantsFor(
  contract: Contract,
  schema: Json | undefined,
  body: Json | undefined,
  fields: string[],
  operation?: OperationModel,
): JsonObject[] {
  if (!isObject(body ?? null)) return [];
  const values = body as JsonObject;
  return fields.flatMap((field) =>
    otherAmounts(contract, schema, values, field, operation).map((amount) => ({ [field]: amount })),
  );
}

/**
 * A simulation body field the example leaves out, whose value then comes from a field of the object
 * (`x-default-from`): that field of the creation body carries the amount instead.
 */
function defaultedFrom(control: ControlApi, c: MoneyCase, body: JsonObject, field: string): string | undefined {
  if (body[field] !== undefined || !c.simulation) return undefined;
  const property = propertySchema(control.contract, c.simulation.operation.body?.schema, field);
  const from = isObject(property) ? property['x-default-from'] : undefined;
  return typeof from === 'string' ? from : undefined;
}

/** The other amounts a case runs with, each as the body fields it sends instead of the example's. */
export function amountVariants(contract: Contract, control: ControlApi | undefined, c: MoneyCase): CaseValues[] {
  const fields = amountFields(c);
  const creationBody = bodyExamples(contract, c.create)[0]?.value;
  const simulationBody: JsonObject | undefined =
    c.simulation?.operation.body && control
      ? { ...firstExample(control.contract, c.simulation.operation.operationId), ...c.given }
      : undefined;
  const sent =
    simulationBody && control
      ? fields.simulation.filter((field) => defaultedFrom(control, c, simulationBody, field) === undefined)
      : [];
  const defaulted =
    simulationBody && control
      ? fields.simulation.flatMap((field) => defaultedFrom(control, c, simulationBody, field) ?? [])
      : [];
  const creation = variantsFor(
    contract,
    c.create.body?.schema,
    creationBody,
    [...fields.creation, ...defaulted],
    c.create,
  ).map((values): CaseValues => ({ creation: values, simulation: {} }));
  if (!c.simulation || !control) return creation;
  const simulation = variantsFor(control.contract, c.simulation.operation.body?.schema, simulationBody, sent).map(
    (values): CaseValues => ({ creation: {}, simulation: values }),
  );
  return [...creation, ...simulation];
}

/** Whether the case moves money at all (else it has no amount to vary and is not this check's). */
export const movesMoney = (c: MoneyCase): boolean => {
  const fields = amountFields(c);
  return fields.creation.length + fields.simulation.length > 0;
};

/** The balances the case debits, when each covers the amount sent ("CASH 100"); undefined when one does not. */
async function coveringBalances(s: Scenario, c: MoneyCase, values: CaseValues): Promise<string | undefined> {
  const amount = Object.values({ ...values.creation, ...values.simulation }).find(
    (value): value is number => typeof value === 'number',
  );
  const debited = [
    ...new Map(
      [...c.effects.values()]
        .flat()
        .filter((effect) => effect.change === 'debit')
        .map((effect) => [accountKey(effect.account), effect.account]),
    ).values(),
  ];
  if (amount === undefined || debited.length === 0) return undefined;
  const read: string[] = [];
  for (const account of debited) {
    const { balance } = await readBalance(s, account, 'balance before');
    if (balance < amount) return undefined;
    read.push(`${accountLabel(account)} ${balance}`);
  }
  return read.join(', ');
}

/** One result per case and amount; a refusal for the balance, where the balance covers the amount, is a failure here. */
export async function runAmountCases(
  context: CheckContext,
  cases: MoneyCase[],
  control: ControlApi | undefined,
  env: WorkflowEnv,
  accounts: Account[],
  entered: { ok: true } | { ok: false; reason: string },
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const moving = cases.filter(movesMoney);
  // A subject caused several ways (a payment settled and settling) tries each way with one amount, in turn,
  // so that the subject still sees every amount once: the run stays short.
  const ways = (subject: string): number => moving.filter((c) => c.subject === subject).length;
  const taken = new Map<string, number>();
  for (const c of moving) {
    const all = amountVariants(context.contract, control, c);
    const turn = taken.get(c.subject) ?? 0;
    taken.set(c.subject, turn + 1);
    const variants = ways(c.subject) > 1 && all.length > 0 ? [all[turn % all.length] as CaseValues] : all;
    if (variants.length === 0) {
      results.push({
        check: CHECK,
        subject: c.subject,
        outcome: 'skipped',
        cases: 0,
        findings: [],
        skippedReason: `${c.what}: no amount other than the example's is valid for its fields`,
        notApplicable: true,
      });
      continue;
    }
    for (const values of variants) {
      const sent = JSON.stringify({ ...values.creation, ...values.simulation });
      results.push(
        await runScenario(
          context,
          CHECK,
          c.subject,
          [...new Set([c.create.operationId, ...MONEY_STEPS])],
          async (s) => {
            if (!entered.ok) s.skip(entered.reason);
            s.notes.push(`${c.what} with ${sent}`);
            try {
              await runCase(s, c, control, env, accounts, values);
            } catch (error) {
              // The money check skips on a balance refusal; with these small amounts against the balance it
              // reads, the refusal is the verdict.
              if (!(error instanceof ScenarioSkipped) || !/insufficient_balance/.test(error.reason)) throw error;
              const covering = await coveringBalances(s, c, values);
              if (covering === undefined) throw error;
              s.findings.push({
                severity: 'failure',
                message: `${c.what} with ${sent}: refused for the balance (${error.reason}), though ${covering} covers the amount`,
              });
            }
          },
        ),
      );
    }
  }
  return results;
}
