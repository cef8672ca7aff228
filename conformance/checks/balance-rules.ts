// Check `balance_rules`: money beyond the example's happy path, from the contract's data. Every transition
// that moves money, on amounts other than the example's (balance-rules-amounts.ts); the equality edge of
// every balance rule (`insufficient_balance` triggers) and concurrent distinct writes against one balance
// (balance-rules-edge.ts). Cases run one after another, with what the target would finish by itself held
// (a disbursement failing by itself would move the balances compared).
import { holdPhase } from '../callbacks/simulations.js';
import { probeSandbox } from '../callbacks/sandbox.js';
import { accountsOf } from '../data/balance-effects.js';
import { balanceRules, balanceTopUp } from '../data/balance-rules.js';
import { mergeBySubject } from '../results.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { UniqueValues } from '../workflows/data.js';
import { stateMachines } from '../workflows/machines.js';
import { runScenario } from '../workflows/scenario.js';
import { DEFAULT_WORKFLOW_SETTINGS, type WorkflowEnv } from '../workflows/steps.js';
import { CHECK, runAmountCases } from './balance-rules-amounts.js';
import { runConcurrent, runEdge } from './balance-rules-edge.js';
import { casesOf } from './money.js';

const EDGE_STEPS = [
  'balance before',
  'the whole balance',
  'balance after the whole balance',
  'balance after the top-up',
  'one unit more',
  'balance after the refusal',
  'nothing created',
  'exactly what it covers',
  'balance after exactly what it covers',
  'balance restored',
];
const CONCURRENT_STEPS = [
  'balance before',
  'the whole balance',
  'balance after the whole balance',
  'balance after the top-up',
  'writes at once',
  'balance after the writes',
  'balance restored',
];

export const balanceRulesCheck: Check = {
  name: CHECK,
  description:
    "Money on amounts other than the example's (the balance moves by exactly the amount sent, the object records it); the equality edge of every balance rule (exactly the balance accepted, one unit more refused with the documented answer, changing nothing); concurrent distinct writes against a balance covering only some of them.",
  run: async (context: CheckContext): Promise<CheckResult[]> => {
    const rules = balanceRules(context.contract);
    const accounts = accountsOf(context.contract);
    if (accounts.length === 0 && rules.length === 0) return [];
    const sandbox = await probeSandbox(context.http);
    const control = sandbox.control;
    const simulating = control && control.simulations.length > 0 ? control : undefined;
    const env: WorkflowEnv = { unique: new UniqueValues(context.contract), settings: DEFAULT_WORKFLOW_SETTINGS };
    const cases = casesOf(context, simulating).cases.filter((c) => context.selected(CHECK, c.subject));
    const held = control ? holdPhase(control, [...stateMachines(context.contract).keys()]) : undefined;
    const entered = held ? await held.enter() : { ok: true as const };
    const results: CheckResult[] = [];
    try {
      results.push(...mergeBySubject(await runAmountCases(context, cases, simulating, env, accounts, entered)));
      const topUp = control ? balanceTopUp(control.contract) : undefined;
      for (const rule of rules) {
        const base = `${rule.operation.operationId} ${rule.code}`;
        for (const [subject, steps, run] of [
          [`${base} equality edge`, EDGE_STEPS, runEdge],
          [`${base} concurrent writes`, CONCURRENT_STEPS, runConcurrent],
        ] as const) {
          if (!context.selected(CHECK, subject)) continue;
          results.push(
            await runScenario(context, CHECK, subject, steps, async (s) => {
              if (!entered.ok) s.skip(entered.reason);
              const api =
                control ??
                s.skip(
                  sandbox.reason ?? 'the target offers no sandbox control API to bring the balance to a known value',
                );
              const adds =
                topUp ??
                s.skip(
                  `the control contract (${api.source}) names no operation that adds money to a balance (x-balance-top-up)`,
                );
              await run({ s, rule, control: api, topUp: adds, env });
            }),
          );
        }
      }
    } finally {
      if (held && entered.ok) await held.leave();
    }
    return results;
  },
};
