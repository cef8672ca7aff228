// The cases of the transitions check, planned from the contract's state machines. For every transition out
// of a state (creation is every case's set-up), a fresh resource is created, driven along the shortest path
// of transitions the suite can cause into the transition's `from` state, checked to be there, then the
// transition is caused and the resource read back in the state it names. A transition is caused by an
// operation of the service (on the resource by its id, the creation again, or the creation of a resource
// that names it) or by the sandbox control API's simulation of its event (`x-simulates`). Which of several
// transitions with one trigger happens is chosen from data only: the operation's `x-test-mode` value per
// error code, the machine's expiry field (in the past for the transition into a final state), the
// simulation's `to`, or the transition's `when` fields; a transition none of them singles out is reported
// as not run, with its prose condition. A transition out of a final state answered with an error is tried
// once per way into that state, since an implementation may refuse after one way and not after another.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { bodyExamples, buildRequest } from '../data/requests.js';
import type { Exchange, RequestSpec } from '../http.js';
import type { ControlApi, Simulation } from '../callbacks/sandbox.js';
import { holdPhase, simulationBody } from '../callbacks/simulations.js';
import { onlyPathParameter, type StepResult } from '../callbacks/steps.js';
import { futureTimestamp, getPath, pastTimestamp, setPath, testModeOutcomes, testModeValue } from './data.js';
import { creationOperation, expiryField, stateMachines, type StateMachine, type Transition } from './machines.js';
import {
  CannotProvide,
  planReferences,
  succeedingTestValue,
  withReferences,
  type Action,
  type Provided,
} from './provision.js';
import {
  bodyReferences,
  identifierField,
  propertySchema,
  referencedKind,
  resourceOperations,
  statusesOf,
} from './resources.js';
import type { Answer, Scenario } from './scenario.js';
import type { SubjectCase, UnavailableCase } from './case-results.js';
import { freshBody, itemRequest, lookupRequest, stateOf, type WorkflowEnv } from './steps.js';

export type Cause =
  /** An operation on the resource, by its id. */
  | { kind: 'item'; operation: OperationModel }
  /** The resource's creation again, with the same references. */
  | { kind: 'again'; operation: OperationModel }
  /** The creation of another resource that names this one. */
  | { kind: 'referencing'; operation: OperationModel }
  | { kind: 'simulation'; simulation: Simulation }
  /** The target's clock moved past the time the resource's field holds (the sandbox control API's clock). */
  | { kind: 'time'; field: string };

/** How far ahead of the target's time a resource a time case ends is set to expire, and how far past it the clock is moved. */
const EXPIRY_LEAD_MS = 10 * 60_000;
const PAST_EXPIRY_MS = 60_000;

export interface Planned {
  machine: StateMachine;
  create: OperationModel;
  setup: Action[];
}

/** A resource made for one case. */
export interface Instance {
  id: string | undefined;
  created: JsonObject;
  body: Json;
  provided: Provided;
}

const hasError = (t: Transition): boolean => t.effects.some((e) => e.error !== undefined);
const errorOf = (t: Transition): string | undefined => t.effects.find((e) => e.error !== undefined)?.error;
const triggerKey = (t: Transition): string => JSON.stringify(t.trigger);
const arrow = (t: Transition): string =>
  `${t.from ?? 'none'} → ${t.to} by ${t.trigger.operation ?? t.trigger.event ?? `time ${t.trigger.time ?? ''}`}`;
const resourceWhen = (t: Transition): [string, Json][] =>
  Object.entries(t.when ?? {})
    .filter(([path]) => path.startsWith('resource.'))
    .map(([path, value]) => [path.slice('resource.'.length), value]);

export function causeOf(
  contract: Contract,
  machine: StateMachine,
  control: ControlApi | undefined,
  t: Transition,
): Cause | string {
  const { operation: operationId, event } = t.trigger;
  if (operationId !== undefined) {
    const operation = contract.model.operations.find((o) => o.operationId === operationId);
    if (!operation) return `the contract has no operation ${operationId}`;
    if (operationId === creationOperation(machine)) return { kind: 'again', operation };
    if (operation.parameters.filter((p) => p.in === 'path').length === 1) return { kind: 'item', operation };
    if (bodyReferences(contract, operation).some((r) => referencedKind(contract, r) === machine.resource))
      return { kind: 'referencing', operation };
    return `the suite cannot tell which ${machine.resource} ${operationId} acts on`;
  }
  if (event !== undefined) {
    if (!control)
      return `the event ${event} happens outside the API and the target offers no sandbox control API to simulate it`;
    const simulation = control.simulations.find(
      (s) => s.machine === machine.key && s.event === event && (s.to.length === 0 || s.to.includes(t.to)),
    );
    return simulation
      ? { kind: 'simulation', simulation }
      : `the control contract (${control.source}) simulates no ${machine.key} ${event} leading to ${t.to} (x-simulates)`;
  }
  const time = t.trigger.time ?? 'a time';
  if (!control?.clock)
    return `the target offers no clock the suite can move (x-clock-advance in a sandbox control contract) to reach ${time}`;
  const create = contract.model.operations.find((o) => o.operationId === creationOperation(machine));
  const schema = contract.deref(propertySchema(contract, create?.body?.schema, time));
  if (!isObject(schema) || schema.format !== 'date-time')
    return `the suite moves the clock past a date-time its creation sets; ${time} is not one`;
  return { kind: 'time', field: time };
}

/** Why the data cannot single the transition out among those with the same state and trigger, if it cannot. */
export function ambiguity(
  contract: Contract,
  machine: StateMachine,
  t: Transition,
  cause: Cause,
  expiry: string | undefined,
): string | undefined {
  const siblings = machine.transitions.filter((o) => o !== t && o.from === t.from && triggerKey(o) === triggerKey(t));
  if (siblings.length === 0 || resourceWhen(t).length > 0) return undefined;
  const final = (o: Transition): boolean => machine.final.includes(o.to);
  const differs = (o: Transition): boolean => {
    if (cause.kind === 'simulation') return cause.simulation.to.includes(t.to) && o.to !== t.to;
    if (cause.kind === 'item' && cause.operation.testMode) return errorOf(o) !== errorOf(t);
    if (hasError(o) !== hasError(t)) return true;
    // An expiry the request sets decides between staying alive and ending.
    const setsExpiry =
      cause.kind === 'item' &&
      expiry !== undefined &&
      propertySchema(contract, cause.operation.body?.schema, expiry) !== undefined;
    return setsExpiry && final(o) !== final(t);
  };
  if (siblings.every(differs)) return undefined;
  return `the contract says only in prose which condition selects it ("${t.condition}"); no x-test-mode value, expiry field, simulation target or when fields single it out`;
}

/** The value of an operation's test-mode field that leads to the transition: the succeeding value, an outcome's value for its error, or an unlisted valid value for the default outcome. */
function testValueFor(contract: Contract, operation: OperationModel, t: Transition): Json | undefined {
  const testMode = operation.testMode;
  if (!testMode || typeof testMode.field !== 'string') return undefined;
  const error = errorOf(t);
  if (error === undefined) return succeedingTestValue(operation);
  const listed = testModeOutcomes(operation).find((o) => o.error_code === error);
  if (listed) return testModeValue(testMode, listed);
  const fallback = testMode.default_outcome;
  if (!isObject(fallback) || fallback.error_code !== error) return undefined;
  const schema = propertySchema(contract, operation.body?.schema, testMode.field);
  const taken = new Set(testModeOutcomes(operation).map((o) => JSON.stringify(testModeValue(testMode, o))));
  const base = String(succeedingTestValue(operation) ?? '000000');
  // The listed values shifted digit by digit: same length and alphabet, so valid where the listed ones are.
  const candidates = Array.from({ length: 9 }, (_, k) => base.replace(/\d/g, (d) => String((Number(d) + k + 1) % 10)));
  return candidates.find((c) => !taken.has(JSON.stringify(c)) && contract.validate(schema ?? {}, c).length === 0);
}

/** The body of an operation's request that takes the transition: its test-mode value, else a fresh body whose expiry says whether the resource ends. */
export function requestBody(
  s: Scenario,
  env: WorkflowEnv,
  machine: StateMachine,
  operation: OperationModel,
  t: Transition,
): Json | undefined {
  if (!operation.body) return undefined;
  const testValue = testValueFor(s.contract, operation, t);
  const field = operation.testMode?.field;
  if (testValue !== undefined && typeof field === 'string')
    return setPath(bodyExamples(s.contract, operation)[0]?.value ?? {}, field, testValue);
  const expiry = expiryField(machine);
  const body = freshBody(s, env, operation);
  if (!expiry || propertySchema(s.contract, operation.body.schema, expiry) === undefined) return body;
  // Into a final state from a live one is an expiry in the past; anything else keeps the resource alive.
  const ends = machine.final.includes(t.to) && !machine.final.includes(t.from ?? '');
  return setPath(body, expiry, ends ? pastTimestamp() : futureTimestamp());
}

/** Requires the answer to be exactly the error code at a status the operation documents for it (documented 5xx included). */
function requireCode(s: Scenario, step: string, operation: OperationModel, exchange: Exchange, code: string): void {
  const got = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
  const statuses = statusesOf(operation, code);
  const shown = `${exchange.status} ${typeof got === 'string' ? got : 'without error_code'}`;
  s.require(
    statuses.includes(exchange.status) && got === code,
    step,
    exchange,
    `${operation.operationId} should answer ${code} (status ${statuses.join(' or ')}), answered ${shown}`,
  );
}

export class TransitionRunner {
  constructor(
    private readonly s: Scenario,
    private readonly env: WorkflowEnv,
    private readonly plan: Planned,
    private readonly control: ControlApi | undefined,
    /** How far past a resource's time a time transition moves the clock (0: to the instant itself). */
    private readonly pastExpiryMs = PAST_EXPIRY_MS,
  ) {}

  private get contract(): Contract {
    return this.s.contract;
  }

  /** Creates the resource with the fields the case's `when` conditions name, after what it refers to; it must start in `start`. */
  async create(conditions: Transition[], start: string): Promise<Instance> {
    const { create, machine, setup } = this.plan;
    const provided: Provided = new Map();
    for (const action of setup) await action.run(this.s, this.env, provided);
    let body = withReferences(
      this.contract,
      create,
      freshBody(this.s, this.env, create, expiryField(machine)),
      provided,
    );
    // A case that lets the resource expire sets its expiry a little ahead of the target's time, which may run ahead of real time.
    for (const field of new Set(conditions.flatMap((t) => (t.trigger.time === undefined ? [] : [t.trigger.time])))) {
      const now = await this.clockNow();
      body = setPath(body, field, new Date(now + EXPIRY_LEAD_MS).toISOString());
    }
    for (const [field, value] of conditions.flatMap(resourceWhen)) {
      if (propertySchema(this.contract, create.body?.schema, field) === undefined)
        this.s.skip(`${create.operationId} cannot set ${field}, which the transition's when names`);
      body = setPath(body, field, value);
    }
    const answer = await this.s.succeed('create', create, buildRequest(this.contract, create, { body }));
    const created = this.s.object('create', answer);
    const starts = machine.transitions
      .filter((t) => t.from === null && t.trigger.operation === create.operationId && !hasError(t))
      .map((t) => t.to);
    const state = stateOf(machine, created);
    if (state !== undefined && !starts.includes(state))
      this.s.fail(
        'create',
        answer.exchange,
        `create: ${machine.field ?? 'state'} is ${state}; the state machine ${machine.key} creates ${starts.join(' or ')}`,
      );
    // Creation may lead to several states; the target chose another than this case starts from.
    if (state !== undefined && state !== start)
      this.s.skip(`the target created the ${machine.resource} ${state}; this case starts from ${start}`);
    const id = created[identifierField(this.contract, create, resourceOperations(this.contract, create).read)];
    const instance = { id: typeof id === 'string' ? id : undefined, created, body, provided };
    provided.set(machine.resource, created);
    return instance;
  }

  private idOf(instance: Instance, step: string, exchange?: Exchange): string {
    if (instance.id !== undefined) return instance.id;
    if (exchange) this.s.fail(step, exchange, `${step}: the created resource has no identifier to act on`);
    return this.s.skip(`the created ${this.plan.machine.resource} has no identifier to act on`);
  }

  /** Causes a transition and requires the answer the machine gives it (success, or exactly its error). */
  async cause(instance: Instance, t: Transition, cause: Cause, step: string): Promise<void> {
    const { machine } = this.plan;
    if (cause.kind === 'simulation') {
      await this.confirm(instance, t.from ?? machine.initial, step);
      return this.simulate(instance, cause.simulation, step);
    }
    if (cause.kind === 'time') return this.moveClock(instance, cause.field, step, this.pastExpiryMs);
    const { operation } = cause;
    const code = errorOf(t);
    if (code === undefined) {
      await this.s.succeed(step, operation, this.operationRequest(instance, t, cause, step));
      return;
    }
    requireCode(
      this.s,
      step,
      operation,
      await this.s.send(step, operation, this.operationRequest(instance, t, cause, step)),
      code,
    );
  }

  /** The request of an operation cause, with the values that take the transition `t`. */
  operationRequest(
    instance: Instance,
    t: Transition,
    cause: Extract<Cause, { operation: OperationModel }>,
    step: string,
  ): RequestSpec {
    const { operation } = cause;
    const body =
      cause.kind === 'item'
        ? requestBody(this.s, this.env, this.plan.machine, operation, t)
        : withReferences(this.contract, operation, freshBody(this.s, this.env, operation), instance.provided);
    return cause.kind === 'item'
      ? itemRequest(this.s, operation, this.idOf(instance, step), body)
      : buildRequest(this.contract, operation, { ...(body === undefined ? {} : { body }) });
  }

  async clockNow(): Promise<number> {
    const clock = this.control?.clock ?? this.s.skip('the target offers no clock the suite can move');
    const now = await clock.now();
    if (!('ms' in now)) return this.s.skip(`the target's time cannot be read: ${now.reason}`);
    // Later examples are re-dated to the time read, which the suite's own moves put ahead of real time.
    this.contract.clock.observe(now.ms, `the clock of the sandbox control API (${clock.operation.operationId})`);
    return now.ms;
  }

  /** Moves the target's clock to `relativeMs` after the time the resource's field holds (negative: before it). */
  async moveClock(instance: Instance, field: string, step: string, relativeMs: number): Promise<void> {
    const clock = this.control?.clock ?? this.s.skip('the target offers no clock the suite can move');
    const at = Date.parse(String(getPath(instance.body, field)));
    if (Number.isNaN(at))
      this.s.skip(`${step}: the ${this.plan.machine.resource} was created without a time in ${field}`);
    const now = await this.clockNow();
    this.s.cases++;
    const by = Math.max(0, at - now + relativeMs);
    const moved = await clock.advance(by);
    if (!moved.ok) this.s.skip(`${step}: the clock could not be moved: ${moved.reason}`);
    this.contract.clock.observe(now + by, `the clock of the sandbox control API (${clock.operation.operationId})`);
  }

  /** Before an event, the test-mode confirmation the state accepts (a direct debit's OTP), as the bank waits for it. */
  private async confirm(instance: Instance, state: string, step: string): Promise<void> {
    const { machine } = this.plan;
    const confirmation = machine.transitions.find(
      (t) =>
        t.from === state &&
        t.to === state &&
        !hasError(t) &&
        t.trigger.operation !== undefined &&
        t.trigger.operation !== creationOperation(machine),
    );
    const operation = confirmation
      ? this.contract.model.operations.find((o) => o.operationId === confirmation.trigger.operation)
      : undefined;
    if (!confirmation || !operation || succeedingTestValue(operation) === undefined) return;
    await this.s.succeed(
      `${step}: confirm`,
      operation,
      itemRequest(
        this.s,
        operation,
        this.idOf(instance, step),
        requestBody(this.s, this.env, machine, operation, confirmation),
      ),
    );
  }

  private async simulate(instance: Instance, simulation: Simulation, step: string): Promise<void> {
    const result = await this.callSimulation(instance, simulation, step);
    // The control API is not the service under test: its refusal means the case cannot run here.
    if (!result.ok) this.s.skip(`${step}: the simulation was refused: ${result.reason}`);
  }

  /** Calls the simulation on the resource, with the values of the resource it accepts; the answer is the caller's to judge. */
  async callSimulation(instance: Instance, simulation: Simulation, step: string): Promise<StepResult> {
    const control = this.control ?? this.s.skip('the target offers no sandbox control API');
    const operationId = simulation.operation.operationId;
    const parameter = onlyPathParameter(control.contract, operationId);
    const body = simulationBody(control.contract, simulation.operation, instance.created);
    this.s.cases++;
    return control.call(operationId, {
      ...(parameter === undefined ? {} : { parameters: { [parameter]: this.idOf(instance, step) } }),
      ...(body ? { body } : {}),
    });
  }

  /** Requires the resource to be in `expected`, read back through its read or lookup, else through an operation whose answer in that state the machine fixes. */
  async expectState(instance: Instance, expected: string, step: string, setup: boolean): Promise<void> {
    const { machine } = this.plan;
    const read = machine.field ? await this.read(instance, step) : undefined;
    if (read) {
      const { answer, item } = read;
      const state = stateOf(machine, item);
      if (state === expected) return;
      // A resource that moved on by an event of its own (a test-mode outcome) cannot show this case.
      const movedOn = machine.transitions.some(
        (t) => t.from === expected && t.to === state && t.trigger.event !== undefined,
      );
      if (setup && movedOn)
        this.s.skip(
          `the ${machine.resource} was ${state ?? 'missing'} instead of ${expected} before the transition (it moved on by itself)`,
        );
      this.s.fail(
        step,
        answer.exchange,
        `${step}: ${machine.field} is ${state ?? 'missing'}; the state machine ${machine.key} says ${expected}`,
      );
    }
    const probe = this.probe(expected);
    if (!probe)
      return void this.s.notes.push(
        `the ${machine.resource} state cannot be read back (no state field with a read, and no operation whose answer tells ${expected})`,
      );
    const operation = this.contract.operation(probe.trigger.operation ?? '');
    await this.cause(
      instance,
      probe,
      { kind: 'item', operation },
      `${step} (${operation.operationId} tells the state)`,
    );
  }

  /** The resource as its read or lookup answers it now; undefined when the contract has neither. */
  async read(instance: Instance, step: string): Promise<{ answer: Answer; item: Json } | undefined> {
    const { read, lookup } = resourceOperations(this.contract, this.plan.create);
    const reader = read && instance.id !== undefined ? read : lookup;
    if (!reader) return undefined;
    const answer = await this.s.succeed(
      step,
      reader,
      reader === read
        ? itemRequest(this.s, reader, instance.id ?? '')
        : lookupRequest(this.s, reader, instance.body).request,
    );
    return { answer, item: this.itemOf(answer, instance) };
  }

  /** A transition from the state back to it by an item operation: an error one leaves everything as it was. */
  private probe(state: string): Transition | undefined {
    const loops = this.plan.machine.transitions.filter(
      (t) =>
        t.from === state &&
        t.to === state &&
        t.trigger.operation !== undefined &&
        t.trigger.operation !== creationOperation(this.plan.machine),
    );
    const usable = loops.filter(
      (t) => this.contract.operation(t.trigger.operation ?? '').parameters.filter((p) => p.in === 'path').length === 1,
    );
    return usable.find(hasError) ?? usable.find((t) => !this.contract.operation(t.trigger.operation ?? '').testMode);
  }

  private itemOf(answer: Answer, instance: Instance): Json {
    if (!Array.isArray(answer.value)) return answer.value;
    const field = identifierField(
      this.contract,
      this.plan.create,
      resourceOperations(this.contract, this.plan.create).read,
    );
    return (
      answer.value.find((item) => isObject(item) && instance.id !== undefined && item[field] === instance.id) ?? null
    );
  }
}

/** The shortest path of causable transitions from a state creation reaches into `state` (empty when creation reaches it). */
export function pathsInto(machine: StateMachine, state: string, causable: (t: Transition) => boolean): Transition[][] {
  const starts = machine.transitions.filter((t) => t.from === null && !hasError(t)).map((t) => t.to);
  if (starts.includes(state)) return [[]];
  const shortest = new Map<string, Transition[]>(starts.map((s) => [s, []]));
  const queue = [...new Set(starts)];
  while (queue.length > 0) {
    const at = queue.shift() ?? '';
    for (const t of machine.transitions.filter((o) => o.from === at && o.to !== at && causable(o))) {
      if (shortest.has(t.to)) continue;
      shortest.set(t.to, [...(shortest.get(at) ?? []), t]);
      queue.push(t.to);
    }
  }
  // A final state is entered every way the suite can cause; each way is a case of its own.
  if (machine.final.includes(state)) {
    return machine.transitions
      .filter((t) => t.to === state && t.from !== null && t.from !== state && causable(t) && shortest.has(t.from))
      .map((t) => [...(shortest.get(t.from ?? '') ?? []), t]);
  }
  const path = shortest.get(state);
  return path ? [path] : [];
}

export interface TransitionPlan {
  cases: SubjectCase[];
  unavailable: UnavailableCase[];
}

/** Every case of the transitions check: one per transition out of a state (and per way into a final state it leaves with an error). */
export function transitionCases(contract: Contract, control: ControlApi | undefined, env: WorkflowEnv): TransitionPlan {
  const cases: SubjectCase[] = [];
  const unavailable: UnavailableCase[] = [];
  for (const machine of stateMachines(contract).values()) {
    const createId = creationOperation(machine);
    const create = contract.model.operations.find((o) => o.operationId === createId);
    if (!create) continue;
    const { read, lookup } = resourceOperations(contract, create);
    let setup: Action[];
    try {
      setup = planReferences(contract, create);
    } catch (error) {
      if (!(error instanceof CannotProvide)) throw error;
      unavailable.push({ subject: create.operationId, label: `${machine.key} transitions`, reason: error.message });
      continue;
    }
    const plan: Planned = { machine, create, setup };
    // What the target would finish by itself (the control contract's `x-resolves`) is held, so that each
    // transition the case causes is the one it judges and the state it reads back stays where it left it.
    const hold = control ? holdPhase(control, [machine.key]) : undefined;
    const expiry = expiryField(machine);
    const causeFor = new Map(machine.transitions.map((t) => [t, causeOf(contract, machine, control, t)]));
    const causable = (t: Transition): boolean =>
      typeof causeFor.get(t) !== 'string' &&
      ambiguity(contract, machine, t, causeFor.get(t) as Cause, expiry) === undefined;
    // Read back through the read or lookup; without one, the operation that tells the state is what shows the effect.
    const observer = read ?? lookup;
    for (const t of machine.transitions.filter((o) => o.from !== null)) {
      const cause = causeFor.get(t) ?? 'no cause';
      // An operation's transition is that operation's behaviour; an event or time is no operation of the
      // service, so the operation through which its effect is read back is what the case judges.
      const subject = t.trigger.operation ?? observer?.operationId ?? create.operationId;
      const label = `${machine.key} ${arrow(t)}`;
      const why = typeof cause === 'string' ? cause : ambiguity(contract, machine, t, cause, expiry);
      if (typeof cause === 'string' || why !== undefined) {
        unavailable.push({ subject, label, reason: why ?? String(cause) });
        continue;
      }
      const paths = pathsInto(machine, t.from ?? '', causable);
      if (paths.length === 0)
        unavailable.push({ subject, label, reason: `no transition the suite can cause leads to ${t.from ?? ''}` });
      // Leaving a final state with an error is tried after every way in; anything else after the shortest.
      const tried = machine.final.includes(t.from ?? '') && hasError(t) ? paths : paths.slice(0, 1);
      for (const path of tried) {
        const via = path.length > 0 ? ` (reached by ${path.map(arrow).join(', then ')})` : '';
        const steps = ['create', ...path.map(arrow), `in ${t.from ?? ''}`, arrow(t), `then ${t.to}`];
        cases.push({
          subject,
          label: `${label}${via}`,
          steps,
          ...(hold ? { phase: hold } : {}),
          // Moving the clock expires what every other case of the merchant holds (OTPs, expiries): alone.
          ...([...path, t].some((p) => causeFor.get(p) !== undefined && (causeFor.get(p) as Cause).kind === 'time')
            ? { alone: true }
            : {}),
          script: async (s) => {
            const runner = new TransitionRunner(s, env, plan, control);
            const instance = await runner.create([...path, t], path[0]?.from ?? t.from ?? '');
            for (const p of path) await runner.cause(instance, p, causeFor.get(p) as Cause, arrow(p));
            // Creation's own answer showed the state; a state reached by transitions is read back first.
            if (path.length > 0) await runner.expectState(instance, t.from ?? '', `in ${t.from ?? ''}`, true);
            await runner.cause(instance, t, cause, arrow(t));
            await runner.expectState(instance, t.to, `then ${t.to}`, false);
          },
        });
      }
    }
  }
  return { cases, unavailable };
}
