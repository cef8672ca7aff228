// The cases of the forbidden_transitions check: a state machine's silence means "forbidden". For every
// machine, what acts on an existing object of its resource is read from the contract: the operations its
// transitions name (other than the creation; an item operation on the object, or the creation of another
// resource that names it) and the sandbox control API's simulations of its events (`x-simulates`). Each is
// allowed in the states from which the machine has a transition by it that answers no error, and forbidden
// in every other state. In each forbidden state, reached every way the suite can cause (a final state: each
// way in, the clock moved to the instant of an expiry included), the action is sent with the values that
// would take its allowed transition and must get the documented refusal (the machine's error effect for the
// state, else the operation's `state` error trigger naming the machine and state) and change nothing: the
// object read back, the balances the machines' effects name, the callbacks sent about it.
// Each time-triggered transition (`trigger.time`) is also tried on its near side: the clock moved to just
// before the instant, every action the transition's end state forbids must still succeed. Its far side is
// the forbidden case reached by that transition, with the clock moved to the instant itself when the
// machine says the instant already counts (`boundary: inclusive`, decision `expiry-instant`), else just past it.
import type { OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import type { ControlApi, Simulation } from '../callbacks/sandbox.js';
import { holdPhase } from '../callbacks/simulations.js';
import { accountKey, balanceEffectsOf, type Account } from '../data/balance-effects.js';
import type { Exchange } from '../http.js';
import type { SubjectCase, UnavailableCase } from './case-results.js';
import { getPath, identifierFields } from './data.js';
import {
  balanceSnapshot,
  compareSnapshots,
  objectMarkers,
  objectSnapshot,
  SharedExclusive,
  type SnapshotSources,
} from './forbidden-effects.js';
import { creationOperation, errorInState, stateMachines, type StateMachine, type Transition } from './machines.js';
import { CannotProvide, planReferences } from './provision.js';
import { resourceOperations, statusesOf, triggersOf } from './resources.js';
import type { Scenario } from './scenario.js';
import { stateOf, type WorkflowEnv } from './steps.js';
import {
  ambiguity,
  causeOf,
  pathsInto,
  TransitionRunner,
  type Cause,
  type Instance,
  type Planned,
} from './transition-cases.js';

/** How far before an expiry the near-side cases move the clock: more than the few requests that follow take. */
export const BEFORE_INSTANT_MS = 2_000;

type OperationCause = Extract<Cause, { operation: OperationModel }>;

/** Something that acts on an existing object, and the states its machine allows it in. */
export type Actor =
  | {
      kind: 'operation';
      name: string;
      operation: OperationModel;
      cause: OperationCause;
      accepted: Transition;
      allowed: string[];
    }
  | { kind: 'simulation'; name: string; simulation: Simulation; allowed: string[] };

const hasError = (t: Transition): boolean => t.effects.some((e) => e.error !== undefined);
const arrow = (t: Transition): string =>
  `${t.from ?? 'none'} → ${t.to} by ${t.trigger.operation ?? t.trigger.event ?? `time ${t.trigger.time ?? ''}`}`;

/** The code of an operation's `state` error trigger naming the machine and state. */
function stateTriggerCode(operation: OperationModel, machine: string, state: string): string | undefined {
  return triggersOf(operation, 'state').find(
    ([, trigger]) => trigger.machine === machine && Array.isArray(trigger.states) && trigger.states.includes(state),
  )?.[0];
}

/** The answer the contract documents for the actor in a state it forbids, or undefined when it documents none. */
export function documentedRefusal(
  machine: StateMachine,
  actor: Actor,
  state: string,
): { operation: OperationModel; code: string } | undefined {
  const operation = actor.kind === 'operation' ? actor.operation : actor.simulation.operation;
  const code =
    (actor.kind === 'operation' ? errorInState(machine, state, operation.operationId) : undefined) ??
    stateTriggerCode(operation, machine.key, state);
  return code === undefined ? undefined : { operation, code };
}

/** Every actor on the machine's objects, or why one cannot be used. */
export function actorsOf(
  contract: Contract,
  machine: StateMachine,
  control: ControlApi | undefined,
): { actors: Actor[]; unusable: { name: string; reason: string }[] } {
  const actors: Actor[] = [];
  const unusable: { name: string; reason: string }[] = [];
  const creation = creationOperation(machine);
  const operationIds = [
    ...new Set(
      machine.transitions.flatMap((t) =>
        t.trigger.operation !== undefined && t.trigger.operation !== creation ? [t.trigger.operation] : [],
      ),
    ),
  ];
  for (const operationId of operationIds) {
    const accepted = machine.transitions.filter(
      (t) => t.trigger.operation === operationId && t.from !== null && !hasError(t),
    );
    const template = accepted.find((t) => t.to === t.from) ?? accepted[0];
    if (!template) {
      unusable.push({
        name: operationId,
        reason: `the state machine ${machine.key} names ${operationId} only with errors, so no state allows it and no values would otherwise succeed`,
      });
      continue;
    }
    const cause = causeOf(contract, machine, control, template);
    if (typeof cause === 'string' || (cause.kind !== 'item' && cause.kind !== 'referencing')) {
      unusable.push({
        name: operationId,
        reason: typeof cause === 'string' ? cause : `${operationId} does not act on an existing ${machine.resource}`,
      });
      continue;
    }
    actors.push({
      kind: 'operation',
      name: operationId,
      operation: cause.operation,
      cause,
      accepted: template,
      allowed: [...new Set(accepted.map((t) => t.from ?? ''))],
    });
  }
  for (const simulation of control?.simulations.filter((s) => s.machine === machine.key) ?? []) {
    const allowed = machine.transitions
      .filter((t) => t.trigger.event === simulation.event && t.from !== null && !hasError(t))
      .map((t) => t.from ?? '');
    actors.push({
      kind: 'simulation',
      name: `${simulation.operation.operationId} (sandbox control API)`,
      simulation,
      allowed: [...new Set(allowed)],
    });
  }
  return { actors, unusable };
}

/** Records whether the answer is exactly the code, at a status the operation documents for it (a documented 5xx included). */
function judgeRefusal(s: Scenario, step: string, operation: OperationModel, exchange: Exchange, code: string): void {
  const got = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
  const statuses = statusesOf(operation, code);
  const shown = `${exchange.status} ${typeof got === 'string' ? got : 'without error_code'}`;
  s.flag(
    statuses.includes(exchange.status) && got === code,
    step,
    exchange,
    `${operation.operationId} should refuse with ${code} (status ${statuses.join(' or ')}), answered ${shown}`,
  );
}

/** Where the outcome of an actor is judged: an operation's own result, a simulation's on the operation that reads the object. */
const subjectOf = (actor: Actor, observer: string): string =>
  actor.kind === 'operation' ? actor.operation.operationId : observer;

interface MachinePlan {
  plan: Planned;
  runnerFor: (s: Scenario, pastExpiryMs?: number) => TransitionRunner;
  sources: (runner: TransitionRunner, instance: Instance, actor: Actor) => SnapshotSources;
}

/**
 * The ways into a state an actor is tried after: every way that ends by the clock (an expired object, the
 * case the issue names), and of the others one per actor in turn, so that the actors of the state together
 * go through every way in without trying each on all of them.
 */
export function waysToTry<T>(
  paths: T[][],
  isTime: (step: T) => boolean,
  actorIndex: number,
  actorCount: number,
): T[][] {
  const timed = paths.filter((path) => path.some(isTime));
  const others = paths.filter((path) => !path.some(isTime));
  const mine = others.filter((_path, at) => at % actorCount === actorIndex);
  // Every actor gets at least one way that is not the clock's, when there is one.
  const untimed = mine.length > 0 || others.length === 0 ? mine : [others[actorIndex % others.length] as T[]];
  return [...untimed, ...timed];
}

/** Sends the actor with the values of its allowed transition; a simulation's control answer is returned as its exchange. */
async function attempt(
  runner: TransitionRunner,
  s: Scenario,
  actor: Actor,
  instance: Instance,
  step: string,
): Promise<Exchange | { accepted: false; reason: string }> {
  if (actor.kind === 'operation')
    return s.send(step, actor.operation, runner.operationRequest(instance, actor.accepted, actor.cause, step));
  const result = await runner.callSimulation(instance, actor.simulation, step);
  return result.exchange ?? { accepted: false, reason: result.ok ? 'no answer' : result.reason };
}

export interface ForbiddenPlan {
  cases: SubjectCase[];
  unavailable: UnavailableCase[];
}

export function forbiddenCases(contract: Contract, control: ControlApi | undefined, env: WorkflowEnv): ForbiddenPlan {
  const cases: SubjectCase[] = [];
  const unavailable: UnavailableCase[] = [];
  const lock = new SharedExclusive();
  const machines = [...stateMachines(contract).values()];
  // Every case runs with what the target would finish by itself held, for every machine: an object of an
  // earlier case finishing inside a window would move the balances the window compares.
  const hold = control
    ? holdPhase(
        control,
        machines.map((m) => m.key),
      )
    : undefined;
  /** The balances the machine's effects move, and those of the machine whose resource the actor would create. */
  const concerned = (machine: StateMachine, actor: Actor): StateMachine[] => {
    const created =
      actor.kind === 'operation'
        ? machines.find((m) => creationOperation(m) === actor.operation.operationId)
        : undefined;
    return [machine, ...(created ? [created] : [])];
  };
  const accountsFor = (machine: StateMachine, actor: Actor): Account[] => {
    const effects = concerned(machine, actor).flatMap((m) => balanceEffectsOf(contract, m).flat());
    return [...new Map(effects.map((effect) => [accountKey(effect.account), effect.account])).values()];
  };
  /** The webhooks the machine's callbacks (and those of the machine the actor creates) are sent by. */
  const webhooksFor = (machine: StateMachine, actor: Actor): string[] => [
    ...new Set(
      concerned(machine, actor).flatMap((m) =>
        m.transitions.flatMap((t) => t.effects.flatMap((e) => (e.callback === undefined ? [] : [e.callback]))),
      ),
    ),
  ];
  for (const machine of machines) {
    const createId = creationOperation(machine);
    const create = contract.model.operations.find((o) => o.operationId === createId);
    if (!create) continue;
    const reader = resourceOperations(contract, create).read ?? resourceOperations(contract, create).lookup;
    const observer = (reader ?? create).operationId;
    const { actors, unusable } = actorsOf(contract, machine, control);
    for (const u of unusable)
      unavailable.push({ subject: u.name, label: `${machine.key} ${u.name}`, reason: u.reason });
    // An event is tried where the machine forbids it only through a simulation of it: without one, not run.
    const simulated = new Set(actors.flatMap((a) => (a.kind === 'simulation' ? [a.simulation.event] : [])));
    for (const event of new Set(
      machine.transitions.flatMap((t) => (t.trigger.event === undefined ? [] : [t.trigger.event])),
    )) {
      if (simulated.has(event)) continue;
      const reason = control
        ? `the control contract (${control.source}) simulates no ${machine.key} ${event} (x-simulates)`
        : `the event ${event} happens outside the API and the target offers no sandbox control API to try it where ${machine.key} forbids it`;
      unavailable.push({ subject: observer, label: `${machine.key} ${event} where it is forbidden`, reason });
    }
    let setup;
    try {
      setup = planReferences(contract, create);
    } catch (error) {
      if (!(error instanceof CannotProvide)) throw error;
      for (const actor of actors)
        unavailable.push({
          subject: subjectOf(actor, observer),
          label: `${machine.key} ${actor.name}`,
          reason: error.message,
        });
      continue;
    }
    const plan: Planned = { machine, create, setup };
    const causeFor = new Map(machine.transitions.map((t) => [t, causeOf(contract, machine, control, t)]));
    const expiryField = machine.transitions.find((t) => t.trigger.time !== undefined)?.trigger.time;
    const causable = (t: Transition): boolean => {
      const cause = causeFor.get(t);
      return (
        cause !== undefined &&
        typeof cause !== 'string' &&
        ambiguity(contract, machine, t, cause, expiryField) === undefined
      );
    };
    // Creation may lead to several states on a condition only prose names: a case then starts only from the
    // machine's initial state, the one creation is documented to lead to by default.
    const creationTargets = [
      ...new Set(machine.transitions.filter((t) => t.from === null && !hasError(t)).map((t) => t.to)),
    ];
    const startsFrom = (path: Transition[], state: string): string => path[0]?.from ?? state;
    const startable = (path: Transition[], state: string): boolean =>
      creationTargets.length === 1 || startsFrom(path, state) === machine.initial;
    const isTime = (t: Transition): boolean => {
      const cause = causeFor.get(t);
      return cause !== undefined && typeof cause !== 'string' && cause.kind === 'time';
    };
    const machinePlan: MachinePlan = {
      plan,
      runnerFor: (s, pastExpiryMs) => new TransitionRunner(s, env, plan, control, pastExpiryMs),
      sources: (runner, instance, actor) => ({
        readObject: async () => (await runner.read(instance, 'read back'))?.item,
        accounts: accountsFor(machine, actor),
        webhooks: webhooksFor(machine, actor),
        control,
        markers: objectMarkers(
          instance.id,
          identifierFields(contract, create).map((field) => getPath(instance.body, field)),
          env.unique,
        ),
      }),
    };
    actors.forEach((actor, index) => {
      const subject = subjectOf(actor, observer);
      for (const state of machine.states.filter((st) => !actor.allowed.includes(st))) {
        const label = `${machine.key} ${actor.name} in ${state}`;
        const expected = documentedRefusal(machine, actor, state);
        if (!expected) {
          unavailable.push({
            subject,
            label,
            reason: `the contract documents no answer for ${actor.name} in ${state} (no error effect of ${machine.key} and no state error trigger naming it)`,
          });
          continue;
        }
        const all = pathsInto(machine, state, causable);
        const paths = all.filter((path) => startable(path, state));
        for (const path of all.filter((p) => !startable(p, state))) {
          unavailable.push({
            subject,
            label: `${label} (from ${startsFrom(path, state)})`,
            reason: `creation leads to ${startsFrom(path, state)} only on a condition the contract states in prose; the suite starts from ${machine.initial}`,
          });
        }
        if (all.length === 0)
          unavailable.push({ subject, label, reason: `no transition the suite can cause leads to ${state}` });
        for (const path of waysToTry(paths, isTime, index, actors.length)) {
          const timed = path.find(isTime);
          // The far side of an expiry: at its instant when the instant already counts, else just past it.
          const pastMs = timed?.trigger.boundary === 'inclusive' ? 0 : 1;
          const via =
            path.length > 0
              ? ` (reached by ${path.map(arrow).join(', then ')}${timed ? (pastMs === 0 ? ', at its instant' : ', just past it') : ''})`
              : '';
          cases.push({
            subject,
            label: `${label}${via}`,
            steps: ['create', ...path.map(arrow), `in ${state}`, 'before', actor.name, 'after'],
            ...(hold ? { phase: hold } : {}),
            ...(timed ? { alone: true } : {}),
            script: async (s) => {
              const runner = machinePlan.runnerFor(s, pastMs);
              const instance = await lock.withShared(() => runner.create(path, path[0]?.from ?? state));
              for (const p of path)
                await lock.withShared(() => runner.cause(instance, p, causeFor.get(p) as Cause, arrow(p)));
              // A state field is read in the snapshot before the action; an implicit state is told by an operation first.
              const readable = machine.field !== null && reader !== undefined;
              if (!readable) await runner.expectState(instance, state, `in ${state}`, true);
              const sources = machinePlan.sources(runner, instance, actor);
              const objectBefore = await objectSnapshot(sources);
              const was = stateOf(machine, objectBefore.object ?? null);
              // A resource that moved on by itself (an event of its own) cannot show this case.
              if (readable && was !== state)
                s.skip(`the ${machine.resource} was ${was ?? 'missing'} instead of ${state} before ${actor.name}`);
              // Only the balances need a window no other case's step moves them in; without any, none is taken.
              const window =
                sources.accounts.length > 0
                  ? <T>(work: () => Promise<T>) => lock.withExclusive(work)
                  : <T>(work: () => Promise<T>) => work();
              const { sent, balancesBefore, balancesAfter } = await window(async () => {
                const balancesBefore = await balanceSnapshot(s, sources.accounts, 'before');
                const sent = await attempt(runner, s, actor, instance, actor.name);
                return { sent, balancesBefore, balancesAfter: await balanceSnapshot(s, sources.accounts, 'after') };
              });
              if ('accepted' in sent)
                return void s.findings.push({
                  severity: 'failure',
                  message: `${label}: ${actor.name} got no answer to judge: ${sent.reason}`,
                });
              judgeRefusal(s, actor.name, expected.operation, sent, expected.code);
              const objectAfter = await objectSnapshot(sources);
              compareSnapshots(
                s,
                'after',
                sent,
                { ...objectBefore, balances: balancesBefore },
                { ...objectAfter, balances: balancesAfter },
                sources.accounts,
              );
              // Without a read of the state, the state is told by the machine's answer in it, asked again.
              if (!readable) await runner.expectState(instance, state, 'after', false);
            },
          });
        }
      }
    });
    // The near side of every expiry: just before its instant, what its end state forbids still succeeds.
    for (const t of machine.transitions.filter((o) => isTime(o) && causable(o))) {
      const field = t.trigger.time ?? '';
      for (const actor of actors.filter((a) => a.allowed.includes(t.from ?? '') && !a.allowed.includes(t.to))) {
        const subject = subjectOf(actor, observer);
        const label = `${machine.key} ${actor.name} ${BEFORE_INSTANT_MS} ms before ${field} is reached (${arrow(t)} not yet due)`;
        const paths = pathsInto(machine, t.from ?? '', causable).filter(
          (p) => !p.some(isTime) && startable(p, t.from ?? ''),
        );
        const path = paths[0];
        if (!path) {
          unavailable.push({
            subject,
            label,
            reason: `no transition the suite can cause leads to ${t.from ?? ''} without the clock`,
          });
          continue;
        }
        cases.push({
          subject,
          label,
          steps: ['create', ...path.map(arrow), 'clock', actor.name],
          ...(hold ? { phase: hold } : {}),
          alone: true,
          script: async (s) => {
            const runner = machinePlan.runnerFor(s);
            const instance = await runner.create([...path, t], path[0]?.from ?? t.from ?? '');
            for (const p of path) await runner.cause(instance, p, causeFor.get(p) as Cause, arrow(p));
            await runner.moveClock(instance, field, 'clock', -BEFORE_INSTANT_MS);
            if (machine.field) await runner.expectState(instance, t.from ?? '', 'clock', false);
            const sent = await attempt(runner, s, actor, instance, actor.name);
            if ('accepted' in sent) return s.skip(`${actor.name}: ${sent.reason}`);
            const operation = actor.kind === 'operation' ? actor.operation : actor.simulation.operation;
            const success = operation.responses.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.status);
            s.verify(actor.name, operation, sent, { status: success }, `${label}: ${actor.name} should still succeed`);
          },
        });
      }
    }
  }
  return { cases, unavailable };
}
