// Check `money`: every transition the contract says moves money (`balance` effects in `x-state-machines`)
// changes the balance the service's own operation reports by exactly the amount, and in that account only;
// every other transition of the same machines the suite can cause changes no balance. Each case creates a
// fresh resource with the machine's creation operation (its references provided, unique identifiers),
// reads every account the contract names before and after, and, for event-triggered transitions, causes the
// event with the sandbox control API's simulation of it (`x-simulates`), once per value its effects depend
// on (`when`: a fixed payment code paid COMPLETED credits CASH, paid SETTLING credits HOLDING). Cases run one
// after another: two at once would move the same balance.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { confirmation, holdPhase, simulationBody } from '../callbacks/simulations.js';
import { probeSandbox, type ControlApi, type Simulation } from '../callbacks/sandbox.js';
import { onlyPathParameter } from '../callbacks/steps.js';
import {
  accountKey,
  accountLabel,
  accountsOf,
  expectedChanges,
  moneyMachines,
  type Account,
  type BalanceEffect,
  type TransitionValues,
} from '../data/balance-effects.js';
import { buildRequest } from '../data/requests.js';
import type { Exchange } from '../http.js';
import { mergeBySubject } from '../results.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { UniqueValues } from '../workflows/data.js';
import {
  acceptedTransitions,
  creationOperation,
  expiryField,
  stateMachines,
  type StateMachine,
  type Transition,
} from '../workflows/machines.js';
import { planReferences, withReferences, type Provided } from '../workflows/provision.js';
import { runScenario, type Scenario } from '../workflows/scenario.js';
import { createdId, DEFAULT_WORKFLOW_SETTINGS, freshBody, stateOf, type WorkflowEnv } from '../workflows/steps.js';

/** Amounts are IDR with at most two decimals. */
const SAME_AMOUNT = 0.005;

export interface MoneyCase {
  subject: string;
  machine: StateMachine;
  create: OperationModel;
  effects: Map<Transition, BalanceEffect[]>;
  /** The simulated event, when the case goes past creation. */
  simulation?: Simulation;
  /** The transitions the simulation may take (from a state creation reaches, into a state `x-simulates` allows). */
  simulated: Transition[];
  /** Simulation body fields set so that a `when` holds (`payload.status: SETTLING`). */
  given: JsonObject;
  what: string;
}

type Balances = Map<string, number>;

/** The `payload.x` values the simulated transitions' effects depend on, as simulation body values: one variant per distinct set. */
function variants(control: ControlApi, simulation: Simulation, effects: BalanceEffect[]): JsonObject[] {
  const schema = simulation.operation.body?.schema;
  const declared = (name: string, value: Json): boolean => {
    const resolved = control.contract.deref(schema);
    const properties = isObject(resolved) ? control.contract.deref(resolved.properties) : undefined;
    const property = isObject(properties) ? properties[name] : undefined;
    return property !== undefined && control.contract.validate(property, value).length === 0;
  };
  const sets = effects.map((effect) =>
    Object.fromEntries(
      Object.entries(effect.when).flatMap(([path, value]) => {
        const [source, field] = path.split('.');
        return source === 'payload' && field !== undefined && declared(field, value) ? [[field, value]] : [];
      }),
    ),
  );
  const distinct = [
    ...new Map(sets.filter((set) => Object.keys(set).length > 0).map((set) => [JSON.stringify(set), set])).values(),
  ];
  return distinct.length > 0 ? distinct : [{}];
}

export function casesOf(
  context: CheckContext,
  control: ControlApi | undefined,
): { cases: MoneyCase[]; unavailable: { subject: string; reason: string }[] } {
  const { contract } = context;
  const cases: MoneyCase[] = [];
  const unavailable: { subject: string; reason: string }[] = [];
  for (const { machine, effects } of moneyMachines(contract)) {
    const creation = creationOperation(machine);
    const create = contract.model.operations.find((o) => o.operationId === creation);
    if (!create) continue;
    cases.push({
      subject: create.operationId,
      machine,
      create,
      effects,
      simulated: [],
      given: {},
      what: `${create.operationId} (${machine.key} created)`,
    });
    const starts = new Set(acceptedTransitions(machine, null, create.operationId).map((t) => t.to));
    const events = [
      ...new Set(
        machine.transitions
          .filter((t) => t.trigger.event !== undefined && t.from !== null && starts.has(t.from))
          .map((t) => t.trigger.event as string),
      ),
    ];
    for (const event of events) {
      const simulations = control?.simulations.filter((s) => s.machine === machine.key && s.event === event) ?? [];
      const moves = machine.transitions.some((t) => t.trigger.event === event && (effects.get(t)?.length ?? 0) > 0);
      if (simulations.length === 0 && moves) {
        unavailable.push({
          subject: `${machine.key}:${event}`,
          reason: control
            ? `the control contract (${control.source}) simulates no ${machine.key} ${event}`
            : 'the target offers no sandbox control API to cause this event',
        });
      }
      for (const simulation of simulations) {
        const simulated = machine.transitions.filter(
          (t) =>
            t.trigger.event === event &&
            t.from !== null &&
            starts.has(t.from) &&
            (simulation.to.length === 0 || simulation.to.includes(t.to)),
        );
        if (!control) continue;
        for (const given of variants(
          control,
          simulation,
          simulated.flatMap((t) => effects.get(t) ?? []),
        )) {
          const values = Object.keys(given).length > 0 ? ` with ${JSON.stringify(given)}` : '';
          cases.push({
            subject: simulation.operation.operationId,
            machine,
            create,
            effects,
            simulation,
            simulated,
            given,
            what: `${create.operationId}, then ${simulation.operation.operationId}${values} (${machine.key} ${event})`,
          });
        }
      }
    }
  }
  return { cases, unavailable };
}

async function readBalances(
  s: Scenario,
  accounts: readonly Account[],
  step: string,
): Promise<{ balances: Balances; last?: Exchange }> {
  const balances: Balances = new Map();
  let last: Exchange | undefined;
  for (const account of accounts) {
    const operation = s.contract.operation(account.operation);
    const answer = await s.succeed(step, operation, buildRequest(s.contract, operation, { parameters: account.query }));
    const value = isObject(answer.value) ? answer.value[account.field] : undefined;
    if (typeof value !== 'number')
      s.fail(step, answer.exchange, `${step}: ${accountLabel(account)} answered no number in ${account.field}`);
    balances.set(accountKey(account), value);
    last = answer.exchange;
  }
  return { balances, ...(last ? { last } : {}) };
}

/** Flags every account whose change is not the expected one (0 when no effect names it). */
function compare(
  s: Scenario,
  step: string,
  accounts: readonly Account[],
  before: Balances,
  after: Balances,
  expected: Map<string, number>,
  cause: Exchange,
  why: string,
): void {
  for (const account of accounts) {
    const key = accountKey(account);
    const change = (after.get(key) ?? 0) - (before.get(key) ?? 0);
    const wanted = expected.get(key) ?? 0;
    s.flag(
      Math.abs(change - wanted) < SAME_AMOUNT,
      step,
      cause,
      `${accountLabel(account)} changed by ${round(change)}, the contract says ${round(wanted)} (${why}); before ${before.get(key)}, after ${after.get(key)}`,
    );
  }
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** The effects of the transitions taken: those leading to the state answered, when the answer shows one. */
function takenEffects(c: MoneyCase, transitions: Transition[], answer: Json): BalanceEffect[] {
  const state = stateOf(c.machine, answer);
  const taken = state === undefined ? transitions : transitions.filter((t) => t.to === state);
  const first = taken[0] ?? transitions[0];
  return first ? (c.effects.get(first) ?? []) : [];
}

function describeEffects(effects: BalanceEffect[], values: TransitionValues): string {
  const applied = effects.filter((effect) =>
    Object.entries(effect.when).every(
      ([path, wanted]) =>
        (path.startsWith('payload.') ? values.payload : values.resource)[path.split('.')[1] ?? ''] === wanted,
    ),
  );
  if (applied.length === 0) return 'no balance effect';
  return applied.map((e) => `${e.change} ${accountLabel(e.account)} by ${e.amount}`).join(', ');
}

/** Body fields a case sends instead of the example's (another amount), in the creation and in the simulation. */
export interface CaseValues {
  creation: JsonObject;
  simulation: JsonObject;
}

const NO_VALUES: CaseValues = { creation: {}, simulation: {} };

export async function runCase(
  s: Scenario,
  c: MoneyCase,
  control: ControlApi | undefined,
  env: WorkflowEnv,
  accounts: Account[],
  sentValues: CaseValues = NO_VALUES,
): Promise<void> {
  const { contract } = s;
  const provided: Provided = new Map();
  for (const action of planReferences(contract, c.create)) await action.run(s, env, provided);
  const example = withReferences(contract, c.create, freshBody(s, env, c.create, expiryField(c.machine)), provided);
  const body = isObject(example) ? { ...example, ...sentValues.creation } : example;

  const before = await readBalances(s, accounts, 'balance before');
  const created = await s.succeed(c.create.operationId, c.create, buildRequest(contract, c.create, { body }));
  const resource = s.object(c.create.operationId, created);
  for (const [field, sent] of Object.entries(sentValues.creation)) {
    if (field in resource)
      s.flag(
        resource[field] === sent,
        c.create.operationId,
        created.exchange,
        `${field} was sent as ${JSON.stringify(sent)}, the object records ${JSON.stringify(resource[field])}`,
      );
  }
  const creationTransitions = acceptedTransitions(c.machine, null, c.create.operationId);
  const atCreation: TransitionValues = { resource, payload: {} };
  const creationEffects = takenEffects(c, creationTransitions, resource);
  const afterCreation = await readBalances(s, accounts, 'balance after creation');
  const creationChanges = expectedChanges(creationEffects, atCreation);
  if ('reason' in creationChanges)
    return s.fail(c.create.operationId, created.exchange, `${c.create.operationId}: ${creationChanges.reason}`);
  compare(
    s,
    'balance after creation',
    accounts,
    before.balances,
    afterCreation.balances,
    creationChanges.changes,
    created.exchange,
    `${c.create.operationId}: ${describeEffects(creationEffects, atCreation)}`,
  );
  if (!c.simulation || !control) return;

  const simulation = c.simulation.operation.operationId;
  // Only an operation that acts on the resource by path needs its id (an e-wallet approval names it in its body).
  const idOf = (): string => createdId(s, c.create.operationId, created, c.create);
  const from = c.simulated[0]?.from ?? c.machine.initial;
  const confirm = confirmation(contract, c.machine, c.create.operationId, from);
  if (confirm) {
    const operation = contract.operation(confirm.operationId);
    const parameter = onlyPathParameter(contract, confirm.operationId);
    await s.succeed(
      confirm.operationId,
      operation,
      buildRequest(contract, operation, {
        parameters: parameter ? { [parameter]: idOf() } : {},
        ...(confirm.body ? { body: confirm.body } : {}),
      }),
    );
  }
  const beforeEvent = await readBalances(s, accounts, 'balance before the event');
  const parameter = onlyPathParameter(control.contract, simulation);
  const simulationRequest = simulationBody(control.contract, c.simulation.operation, resource);
  const given = { ...c.given, ...sentValues.simulation };
  const sent =
    simulationRequest === undefined && Object.keys(given).length === 0
      ? undefined
      : { ...(simulationRequest ?? {}), ...given };
  s.cases++;
  const caused = await control.call(simulation, {
    ...(parameter ? { parameters: { [parameter]: idOf() } } : {}),
    ...(sent ? { body: sent } : {}),
  });
  if (!caused.ok)
    return caused.exchange
      ? s.fail(simulation, caused.exchange, `${simulation}: ${caused.reason}`)
      : s.skip(caused.reason);
  const answer = isObject(caused.exchange.json as Json) ? (caused.exchange.json as JsonObject) : {};
  // The simulation answers with the resource or with the event's payload (the callback body); both
  // complete what creation answered.
  const values: TransitionValues = { resource: { ...resource, ...answer }, payload: { ...(sent ?? {}), ...answer } };
  const effects = takenEffects(c, c.simulated, answer);
  const changes = expectedChanges(effects, values);
  if ('reason' in changes) return s.fail(simulation, caused.exchange, `${simulation}: ${changes.reason}`);
  const afterEvent = await readBalances(s, accounts, 'balance after the event');
  compare(
    s,
    'balance after the event',
    accounts,
    beforeEvent.balances,
    afterEvent.balances,
    changes.changes,
    caused.exchange,
    `${c.machine.key} ${c.simulation.event}: ${describeEffects(effects, values)}`,
  );
}

export const MONEY_STEPS = [
  'balance before',
  'balance after creation',
  'balance before the event',
  'balance after the event',
];

export const money: Check = {
  name: 'money',
  description:
    'Every transition the state machines say moves money (balance effects) changes the balance the service reports by exactly the amount, in that account only; other transitions of those machines move nothing.',
  run: async (context: CheckContext): Promise<CheckResult[]> => {
    const accounts = accountsOf(context.contract);
    if (accounts.length === 0) return [];
    const sandbox = await probeSandbox(context.http);
    const control = sandbox.control && sandbox.control.simulations.length > 0 ? sandbox.control : undefined;
    const { cases, unavailable } = casesOf(context, control);
    const env: WorkflowEnv = { unique: new UniqueValues(context.contract), settings: DEFAULT_WORKFLOW_SETTINGS };
    const results: CheckResult[] = [];
    const selected = cases.filter((c) => context.selected('money', c.subject));
    // Whatever the target would finish by itself is held for the whole check: a case's event must be the
    // simulation's, and an object of an earlier check finishing mid-case (a direct debit crediting CASH)
    // would move the balances every case compares.
    const held = control ? holdPhase(control, [...stateMachines(context.contract).keys()]) : undefined;
    const entered = held ? await held.enter() : { ok: true as const };
    try {
      // One case at a time: each compares balances that every other case moves too.
      for (const c of selected) {
        const result = await runScenario(
          context,
          'money',
          c.subject,
          [...new Set([c.create.operationId, ...MONEY_STEPS])],
          async (s) => {
            if (!entered.ok) s.skip(entered.reason);
            s.notes.push(c.what);
            await runCase(s, c, control, env, accounts);
          },
        );
        results.push(result);
      }
    } finally {
      if (held && entered.ok) await held.leave();
    }
    // Several cases share a subject (a simulation run once per variant): one result per subject.
    const merged = mergeBySubject(results);
    for (const { subject, reason } of unavailable) {
      if (context.selected('money', subject))
        merged.push({ check: 'money', subject, outcome: 'skipped', cases: 0, findings: [], skippedReason: reason });
    }
    return merged;
  },
};
