// The cases of the timestamps check, one per operation that creates objects some of whose answers carry
// `x-timestamps` (the create answer, the read by id, the lookup by the fields it was created with). The
// case creates an object, reads it, sends it a refused request (a body that does not parse), changes it by
// its update operation, by the test-mode confirmation its state machine takes and by the sandbox control
// API's simulation of an event that changes its state, letting a step of the target's time pass before
// each (its clock moved where it has one), and reads every answer's timestamps against the rules: a
// `creation` time never moves; a `change` time moves forward with every change, to a time between the
// moments read around it, and not with a read or a refusal; a `transition` time moves when the object
// enters one of its states and with nothing else; none lies before the creation or after the target's now.
import { assertNever, isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel, TimestampRule } from '@payments-contract/contract/model/types';
import { confirmation, holdPhase, simulationBody } from '../callbacks/simulations.js';
import type { ControlApi, Simulation } from '../callbacks/sandbox.js';
import { onlyPathParameter } from '../callbacks/steps.js';
import type { Contract } from '../contract.js';
import { buildRequest } from '../data/requests.js';
import type { SubjectCase, UnavailableCase } from './case-results.js';
import { acceptedTransitions, creationOperation, expiryField, stateMachines, type StateMachine } from './machines.js';
import { CannotProvide, planReferences, withReferences, type Provided } from './provision.js';
import { identifierField, resourceKind, resourceOperations, successBody } from './resources.js';
import type { Answer, Scenario } from './scenario.js';
import { freshBody, itemRequest, lookupRequest, type WorkflowEnv } from './steps.js';
import type { TargetTime } from './target-time.js';

/** An answer that shows the object, and the timestamp rules of its schema. */
interface View {
  operation: OperationModel;
  kind: string;
  rules: TimestampRule[];
}

export interface TimestampPlan {
  create: OperationModel;
  machine?: StateMachine;
  /** Operations that show the object after creation: its read by id, its lookup. */
  reads: View[];
  createView?: View;
  update?: OperationModel;
}

/** The moments read just before and just after a request, in the target's time. */
interface Moment {
  before: number;
  after: number;
}

type Values = Map<string, Json | undefined>;
/** What each kind of answer last showed, and whether the object has changed since its creation. */
interface Seen {
  values: Map<string, Values>;
  changed: boolean;
  creation: Moment;
  state?: string;
}

function viewOf(contract: Contract, operation: OperationModel | undefined): View | undefined {
  const kind = operation ? resourceKind(contract, operation) : undefined;
  const rules = kind ? contract.model.timestamps[kind] : undefined;
  return operation && kind && rules && rules.length > 0 ? { operation, kind, rules } : undefined;
}

/** The plan of every creating operation whose object some answer shows with timestamps. */
export function timestampPlans(contract: Contract): TimestampPlan[] {
  const machines = [...stateMachines(contract).values()];
  const creators = contract.model.operations.filter(
    (o) =>
      o.method === 'post' &&
      !o.parameters.some((p) => p.in === 'path') &&
      resourceKind(contract, o) !== undefined &&
      !successBody(contract, o).list,
  );
  return creators.flatMap((create) => {
    const { read, lookup, update } = resourceOperations(contract, create);
    const reads = [viewOf(contract, read), viewOf(contract, lookup)].filter((view): view is View => view !== undefined);
    const createView = viewOf(contract, create);
    if (!createView && reads.length === 0) return [];
    const machine = machines.find((m) => creationOperation(m) === create.operationId);
    return [
      {
        create,
        reads,
        ...(createView ? { createView } : {}),
        ...(update ? { update } : {}),
        ...(machine ? { machine } : {}),
      },
    ];
  });
}

const shown = (value: Json | undefined): string => (value === undefined ? 'nothing' : JSON.stringify(value));

/** The object in an answer: the answer itself, or the item of a list with the object's id (the only item when it has no id). */
function objectIn(answer: Json, idField: string, id: string | undefined): JsonObject | undefined {
  if (!Array.isArray(answer)) return isObject(answer) ? answer : undefined;
  const items = answer.filter(isObject);
  return id === undefined ? (items.length === 1 ? items[0] : undefined) : items.find((item) => item[idField] === id);
}

class TimestampJudge {
  constructor(
    private readonly s: Scenario,
    private readonly time: TargetTime,
    private readonly seen: Seen,
  ) {}

  /** Requires every timestamp to lie between the object's creation and the target's time after the request. */
  private bounds(step: string, answer: Answer, view: View, rule: TimestampRule, ms: number, at: Moment): void {
    const tolerance = this.time.toleranceMs;
    const iso = (t: number): string => new Date(t).toISOString();
    this.s.flag(
      ms <= at.after + tolerance,
      step,
      answer.exchange,
      `${view.kind}.${rule.field} ${iso(ms)} is after the target's time ${iso(at.after)} (read from ${this.time.source})`,
    );
    this.s.flag(
      ms >= this.seen.creation.before - tolerance,
      step,
      answer.exchange,
      `${view.kind}.${rule.field} ${iso(ms)} is before the object was created (after ${iso(this.seen.creation.before)})`,
    );
  }

  /**
   * Judges what one answer shows. `moved` names the rules the step must move (a change: `change`, and
   * `transition` when the state entered is one of its states); every other rule must show what it showed
   * before, or, seen for the first time, a time within the creation's moments.
   */
  judge(
    step: string,
    answer: Answer,
    view: View,
    object: JsonObject,
    at: Moment,
    moved: (rule: TimestampRule) => boolean,
    why: string,
    baseline: Map<string, Values> = this.seen.values,
  ): void {
    const before = baseline.get(view.kind);
    const now: Values = new Map();
    for (const rule of view.rules) {
      const value = object[rule.field];
      now.set(rule.field, value);
      const label = `${view.kind}.${rule.field} (${rule.set}${rule.decision ? `, decision ${rule.decision}` : ''})`;
      if (value === null) {
        this.s.flag(
          rule.nullUntilChange && !this.seen.changed,
          step,
          answer.exchange,
          `${label} is null ${this.seen.changed ? 'after a change' : 'at creation'}`,
        );
        continue;
      }
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) continue;
      const ms = Date.parse(value);
      this.bounds(step, answer, view, rule, ms, at);
      const previous = before?.get(rule.field);
      const previousMs = typeof previous === 'string' ? Date.parse(previous) : undefined;
      if (before === undefined || previous === undefined) {
        // First seen: set at creation, or by the changes since, which all lie within `at`.
        const from = this.seen.creation.before;
        const to = this.seen.changed ? at.after : this.seen.creation.after;
        this.s.flag(
          ms >= from - this.time.toleranceMs && ms <= to + this.time.toleranceMs,
          step,
          answer.exchange,
          `${label} is ${value}, not a time between ${new Date(from).toISOString()} and ${new Date(to).toISOString()} when ${this.seen.changed ? 'the object was created and changed' : 'it was created'}`,
        );
      } else if (moved(rule)) {
        this.s.flag(
          (previousMs === undefined || ms > previousMs) && ms >= at.before - this.time.toleranceMs,
          step,
          answer.exchange,
          `${label} did not move forward with ${why}: ${shown(previous)} before, ${value} after (the step ran between ${new Date(at.before).toISOString()} and ${new Date(at.after).toISOString()})`,
        );
      } else {
        // The same moment, however written.
        this.s.flag(
          previous === value || previousMs === ms,
          step,
          answer.exchange,
          `${label} moved with ${why}: ${shown(previous)} before, ${value} after`,
        );
      }
    }
    this.seen.values.set(view.kind, now);
  }
}

const rulesMoved =
  (change: boolean, state: string | undefined) =>
  (rule: TimestampRule): boolean => {
    switch (rule.set) {
      case 'creation':
        return false;
      case 'change':
        return change;
      case 'transition':
        return state !== undefined && rule.states.includes(state);
      default:
        return assertNever(rule.set);
    }
  };

/** A simulation that changes the object's state from `state`, preferring one that enters a state a transition time names. */
function stateChangingSimulation(
  control: ControlApi | undefined,
  machine: StateMachine | undefined,
  state: string | undefined,
  plan: TimestampPlan,
): Simulation | undefined {
  if (!control || !machine || state === undefined) return undefined;
  const timed = [plan.createView, ...plan.reads].flatMap((view) => view?.rules ?? []).flatMap((rule) => rule.states);
  const candidates = control.simulations.filter((simulation) => {
    if (simulation.machine !== machine.key) return false;
    const taken = machine.transitions.filter(
      (t) =>
        t.trigger.event === simulation.event &&
        t.from === state &&
        (simulation.to.length === 0 || simulation.to.includes(t.to)),
    );
    return taken.length > 0 && taken.every((t) => t.to !== state);
  });
  return candidates.find((simulation) => simulation.to.some((to) => timed.includes(to))) ?? candidates[0];
}

export function timestampCase(
  env: WorkflowEnv,
  time: TargetTime,
  control: ControlApi | undefined,
  plan: TimestampPlan,
  machineKeys: readonly string[],
): SubjectCase {
  const { create, machine } = plan;
  const steps = ['create', 'read', 'refused request', 'update', 'confirm', 'simulate', 'read after'];
  // Nothing may finish by itself meanwhile (a change the case did not make): every machine is held, in one phase for all cases.
  const phase = control ? holdPhase(control, machineKeys) : undefined;
  return {
    subject: create.operationId,
    label: `timestamps of ${[plan.createView, ...plan.reads]
      .flatMap((v) => (v ? [v.kind] : []))
      .filter((k, i, all) => all.indexOf(k) === i)
      .join(', ')}`,
    steps,
    ...(phase ? { phase } : {}),
    // Moving the shared clock between readings: one case at a time, or another case's move would fall between them.
    ...(time.moved ? { alone: true } : {}),
    script: async (s) => {
      const { contract } = s;
      s.notes.push(`time: ${time.source}`);
      const provided: Provided = new Map();
      for (const action of planReferences(contract, create)) await action.run(s, env, provided);
      const body = withReferences(
        contract,
        create,
        freshBody(s, env, create, machine ? expiryField(machine) : undefined),
        provided,
      );
      const before = await time.now();
      const created = await s.succeed('create', create, buildRequest(contract, create, { body }));
      const creation = { before, after: await time.latest() };
      const idField = identifierField(contract, create, resourceOperations(contract, create).read);
      const createdObject = s.object('create', created);
      const id = typeof createdObject[idField] === 'string' ? createdObject[idField] : undefined;
      const seen: Seen = { values: new Map(), changed: false, creation };
      const judge = new TimestampJudge(s, time, seen);
      const stateOf = (object: JsonObject): void => {
        const value = machine?.field ? object[machine.field] : undefined;
        if (typeof value === 'string') seen.state = value;
      };
      const nothingMoves = () => false;
      if (plan.createView)
        judge.judge('create', created, plan.createView, createdObject, creation, nothingMoves, 'creation');
      if (machine)
        seen.state =
          machine.field && typeof createdObject[machine.field] === 'string'
            ? (createdObject[machine.field] as string)
            : acceptedTransitions(machine, null, create.operationId)[0]?.to;

      /** Reads the object through every view; `moved` says which rules the step before must have moved. */
      const readAll = async (
        step: string,
        at: Moment,
        moved: (rule: TimestampRule) => boolean,
        why: string,
        baseline?: Map<string, Values>,
      ): Promise<void> => {
        for (const view of plan.reads) {
          const request = view.operation.parameters.some((p) => p.in === 'path')
            ? id === undefined
              ? undefined
              : itemRequest(s, view.operation, id)
            : lookupRequest(s, view.operation, { ...(isObject(body) ? body : {}), ...createdObject }).request;
          if (!request) continue;
          const answer = await s.succeed(step, view.operation, request);
          const object =
            objectIn(answer.value, idField, id) ??
            s.fail(
              step,
              answer.exchange,
              `${step}: ${view.operation.operationId} does not show the object created (${id ?? 'no id'})`,
            );
          stateOf(object);
          judge.judge(
            step,
            answer,
            view,
            object,
            { before: at.before, after: await time.latest() },
            moved,
            why,
            baseline,
          );
        }
      };

      await time.pass('observation');
      await readAll('read', { before: creation.before, after: creation.after }, nothingMoves, 'a read');

      const { update } = plan;
      if (update?.malformedBodyError && id !== undefined) {
        await time.pass('observation');
        const valid = itemRequest(s, update, id, freshBody(s, env, update));
        const text = valid.body?.text ?? '{}';
        const answer = update.malformedBodyError;
        await s.expect(
          'refused request',
          update,
          { ...valid, body: { contentType: 'application/json', text: text.slice(0, -1) } },
          { status: [answer.status], errorCode: answer.error_code },
        );
        await readAll('read', creation, nothingMoves, `a refused ${update.operationId}`);
      } else
        s.notes.push(
          'refused request: not tried, the object has no update operation answering a body that does not parse (x-malformed-body-error)',
        );

      /** Lets time pass, runs one change, and judges its answer (when it shows the object) and every read after it. */
      const change = async (
        step: string,
        why: string,
        run: () => Promise<Answer | undefined>,
        view?: View,
      ): Promise<void> => {
        await time.pass('change');
        // Every answer after the change is compared with what was shown before it.
        const baseline = new Map(seen.values);
        const before = await time.now();
        const answer = await run();
        const at = { before, after: await time.latest() };
        seen.changed = true;
        if (answer && view) {
          const object = s.object(step, answer);
          stateOf(object);
          judge.judge(step, answer, view, object, at, rulesMoved(true, seen.state), why, baseline);
        }
        await readAll('read after', at, rulesMoved(true, seen.state), why, baseline);
      };

      if (update && id !== undefined) {
        const changeBody = freshBody(s, env, update, machine ? expiryField(machine) : undefined);
        await change(
          'update',
          `an accepted ${update.operationId}`,
          () => s.succeed('update', update, itemRequest(s, update, id, changeBody)),
          viewOf(contract, update),
        );
      }
      const confirm =
        machine && seen.state !== undefined
          ? confirmation(contract, machine, create.operationId, seen.state)
          : undefined;
      if (confirm && id !== undefined) {
        const operation = contract.operation(confirm.operationId);
        await change(
          'confirm',
          `an accepted ${confirm.operationId}`,
          () => s.succeed('confirm', operation, itemRequest(s, operation, id, confirm.body)),
          viewOf(contract, operation),
        );
      }
      const simulation = stateChangingSimulation(control, machine, seen.state, plan);
      if (!simulation || !control) {
        const why = !control
          ? 'the target offers no sandbox control API to cause one'
          : machine
            ? `none of the control API's simulations changes the state of ${machine.key} from ${seen.state ?? 'its state'}`
            : `no state machine follows what ${create.operationId} creates`;
        s.notes.push(`event: not tried, ${why}`);
        return;
      }
      const operationId = simulation.operation.operationId;
      const parameter = onlyPathParameter(control.contract, operationId);
      const simulated = simulationBody(control.contract, simulation.operation, createdObject);
      await change('simulate', `${operationId} (${simulation.machine} ${simulation.event})`, async () => {
        s.cases++;
        const caused = await control.call(operationId, {
          ...(parameter && id !== undefined ? { parameters: { [parameter]: id } } : {}),
          ...(simulated ? { body: simulated } : {}),
        });
        if (!caused.ok)
          return caused.exchange
            ? s.fail('simulate', caused.exchange, `simulate: ${caused.reason}`)
            : s.skip(caused.reason);
        if (simulation.to.length === 1) seen.state = simulation.to[0];
        return undefined;
      });
    },
  };
}

export function timestampCases(
  contract: Contract,
  env: WorkflowEnv,
  time: TargetTime,
  control: ControlApi | undefined,
): { cases: SubjectCase[]; unavailable: UnavailableCase[] } {
  const cases: SubjectCase[] = [];
  const unavailable: UnavailableCase[] = [];
  for (const plan of timestampPlans(contract)) {
    try {
      planReferences(contract, plan.create);
    } catch (error) {
      if (!(error instanceof CannotProvide)) throw error;
      unavailable.push({ subject: plan.create.operationId, label: 'timestamps', reason: error.message });
      continue;
    }
    cases.push(timestampCase(env, time, control, plan, [...stateMachines(contract).keys()]));
  }
  return { cases, unavailable };
}
