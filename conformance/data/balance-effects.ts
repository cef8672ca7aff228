// The money the contract says a transition moves: `balance` effects of `x-state-machines` transitions
// (spec/x-extensions.yaml, balanceEffect). Each names the operation that reads the balance, the query that
// names the account, the answer's field, the direction, and where the amount is: a field of the machine's
// resource or of the event's payload (the body of the callback the transition sends), optionally only for
// given values (`when`). Read here as data; the money check causes the transitions and compares.
import { readStateMachines } from '@payments-contract/contract/model';
import type { Json, JsonObject } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { stateMachines, type StateMachine, type Transition } from '../workflows/machines.js';

/** A balance as the service reports it: which operation, which query, which field of its answer. */
export interface Account {
  operation: string;
  field: string;
  query: Record<string, string>;
}

export interface BalanceEffect {
  account: Account;
  change: 'credit' | 'debit';
  /** `resource.<field>` or `payload.<field>`. */
  amount: string;
  /** Values (by `resource.<field>` / `payload.<field>`) that must hold for the effect to apply. */
  when: Record<string, Json>;
}

/** Where a transition's values come from: the resource as last answered, and the event's payload. */
export interface TransitionValues {
  resource: JsonObject;
  payload: JsonObject;
}

export const accountKey = (account: Account): string =>
  JSON.stringify([account.operation, account.field, Object.entries(account.query).sort()]);
export const accountLabel = (account: Account): string =>
  `${account.operation}?${new URLSearchParams(account.query).toString()}`;

/** The balance effects of each transition of a machine, in the machine's order (the same order as `machine.transitions`). */
export function balanceEffectsOf(contract: Contract, machine: StateMachine): BalanceEffect[][] {
  const definition = readStateMachines(contract.doc, (value) => contract.deref(value))[machine.key];
  return machine.transitions.map((_transition, index) =>
    (definition?.transitions[index]?.effects ?? []).flatMap(({ balance }) =>
      balance
        ? [
            {
              account: { operation: balance.operation, field: balance.field, query: balance.query },
              change: balance.change,
              amount: balance.amount,
              when: balance.when ?? {},
            },
          ]
        : [],
    ),
  );
}

/** The machines with at least one transition that moves money, each with its transitions' effects. */
export function moneyMachines(
  contract: Contract,
): { machine: StateMachine; effects: Map<Transition, BalanceEffect[]> }[] {
  return [...stateMachines(contract).values()].flatMap((machine) => {
    const effects = balanceEffectsOf(contract, machine);
    if (!effects.some((list) => list.length > 0)) return [];
    return [
      { machine, effects: new Map(machine.transitions.map((transition, index) => [transition, effects[index] ?? []])) },
    ];
  });
}

/** Every account any balance effect of the contract names, once each. */
export function accountsOf(contract: Contract): Account[] {
  const accounts = new Map<string, Account>();
  for (const { effects } of moneyMachines(contract))
    for (const list of effects.values())
      for (const effect of list) accounts.set(accountKey(effect.account), effect.account);
  return [...accounts.values()];
}

/** The value a `resource.x` / `payload.x` path names. */
export function valueAt(values: TransitionValues, path: string): Json | undefined {
  const [source, ...rest] = path.split('.');
  const field = rest.join('.');
  const from = source === 'payload' ? values.payload : source === 'resource' ? values.resource : undefined;
  return from?.[field];
}

export const applies = (effect: BalanceEffect, values: TransitionValues): boolean =>
  Object.entries(effect.when).every(([path, wanted]) => valueAt(values, path) === wanted);

/** How much each account should change (by account key) when these effects happen with these values; why not, when an amount is missing. */
export function expectedChanges(
  effects: readonly BalanceEffect[],
  values: TransitionValues,
): { changes: Map<string, number> } | { reason: string } {
  const changes = new Map<string, number>();
  for (const effect of effects.filter((e) => applies(e, values))) {
    const amount = valueAt(values, effect.amount);
    if (typeof amount !== 'number')
      return {
        reason: `the transition's ${effect.amount} is ${amount === undefined ? 'not in any answer' : JSON.stringify(amount)}, not an amount`,
      };
    const key = accountKey(effect.account);
    changes.set(key, (changes.get(key) ?? 0) + (effect.change === 'credit' ? amount : -amount));
  }
  return { changes };
}
