// Callbacks of transitions that events outside the API trigger (a payment arriving, the bank's answer, an
// end user approving): the sandbox control API's simulations cause them. For each such transition of the
// service's state machines, the control operation whose `x-simulates` names its machine and event (and
// target state) is the trigger: the suite creates the object with the machine's creation operation (from
// its examples, identifiers unique), takes it through the test-mode confirmation the machine requires
// before the event (a direct debit's OTP), calls the simulation on it and expects the callback to carry
// the state `x-simulates` leads to and the values the simulation was given.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel, WebhookModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { succeedingTestValue } from '../workflows/provision.js';
import { creationOperation, stateMachines, type StateMachine, type Transition } from '../workflows/machines.js';
import {
  destination,
  fired,
  prepareBody,
  withReferences,
  type CallbackEvent,
  type Fired,
  type Phase,
  type TriggerEnv,
  type TriggerSource,
} from './events.js';
import { schemaAt, setAt } from './fields.js';
import type { ControlApi, Simulation } from './sandbox.js';
import { createdId, firstExample, onlyPathParameter, runStep } from './steps.js';

const callbacksOf = (t: Transition): string[] =>
  t.effects.flatMap((e) => (e.callback === undefined ? [] : [e.callback]));
const hasError = (t: Transition): boolean => t.effects.some((e) => e.error !== undefined);

/** A test-mode step that keeps the object in the state the event starts from (a direct debit's accepted OTP). */
interface Confirmation {
  operationId: string;
  body: JsonObject | undefined;
}

export function confirmation(
  contract: Contract,
  machine: StateMachine,
  creation: string,
  from: string,
): Confirmation | undefined {
  for (const transition of machine.transitions) {
    const operationId = transition.trigger.operation;
    if (
      operationId === undefined ||
      operationId === creation ||
      transition.from !== from ||
      transition.to !== from ||
      hasError(transition)
    )
      continue;
    const operation = contract.operation(operationId);
    const value = succeedingTestValue(operation);
    const field = operation.testMode?.field;
    if (value === undefined || typeof field !== 'string') continue;
    return { operationId, body: operation.body ? setAt(firstExample(contract, operationId), field, value) : undefined };
  }
  return undefined;
}

function bodyProperties(contract: Contract, schema: Json | undefined): JsonObject {
  const resolved = contract.deref(schema);
  const properties = isObject(resolved) ? contract.deref(resolved.properties) : undefined;
  return isObject(properties) ? properties : {};
}

/** The simulation's first example, each field the created object also has (with a value the field accepts) taken from the object. */
export function simulationBody(
  control: Contract,
  operation: OperationModel,
  created: JsonObject,
): JsonObject | undefined {
  if (!operation.body) return undefined;
  let body = firstExample(control, operation.operationId);
  for (const [name, schema] of Object.entries(bodyProperties(control, operation.body.schema))) {
    const value = created[name];
    if (value !== undefined && control.validate(schema, value).length === 0) body = setAt(body, name, value);
  }
  return Object.keys(body).length === 0 && !operation.body.required ? undefined : body;
}

/**
 * The settings of the control contract's settings operation that let objects of the machines finish by
 * themselves in the sandbox: each boolean body property whose `x-resolves` names one of them.
 */
export function resolvingSettings(control: ControlApi, machines: readonly string[]): string[] {
  const settings = control.callbackSettings;
  if (!settings) return [];
  const body = control.contract.deref(settings.operation.body?.schema);
  const properties = isObject(body) ? control.contract.deref(body.properties) : undefined;
  return Object.entries(isObject(properties) ? properties : {}).flatMap(([name, raw]) => {
    const property = control.contract.deref(raw);
    const resolves = isObject(property) ? property['x-resolves'] : undefined;
    return isObject(property) &&
      property.type === 'boolean' &&
      isObject(resolves) &&
      typeof resolves.machine === 'string' &&
      machines.includes(resolves.machine)
      ? [name]
      : [];
  });
}

/** One phase per control API, machines and value, so that every event or case needing it runs inside the same one. */
const phases = new WeakMap<ControlApi, Map<string, Phase | undefined>>();

/**
 * The settings that let objects of the machines finish by themselves, all set to `on` for the phase and put
 * back after: off holds a new object for a simulation to decide it (and keeps one whose time comes meanwhile
 * from finishing), on lets it finish by itself. Undefined when no setting resolves those machines.
 */
export function settingsPhase(control: ControlApi, machines: readonly string[], on: boolean): Phase | undefined {
  const key = `${[...machines].sort().join(',')}:${String(on)}`;
  const known = phases.get(control) ?? new Map<string, Phase | undefined>();
  phases.set(control, known);
  if (known.has(key)) return known.get(key);
  const names = resolvingSettings(control, machines);
  let phase: Phase | undefined;
  if (names.length > 0) {
    const changes = Object.fromEntries(names.map((name) => [name, on]));
    let undo: (() => Promise<void>) | undefined;
    phase = {
      label: `sandbox setting ${names.join(', ')} ${on ? 'on' : 'off'} (${control.callbackSettings?.operation.operationId ?? ''})`,
      enter: async () => {
        const change = await control.changeSettings(changes);
        if (!change.ok)
          return { ok: false, reason: `cannot turn ${names.join(', ')} ${on ? 'on' : 'off'}: ${change.reason}` };
        undo = change.undo;
        return { ok: true };
      },
      leave: async () => {
        await undo?.();
        undo = undefined;
      },
    };
  }
  known.set(key, phase);
  return phase;
}

/** Holds what the target would finish by itself for these machines (an e-wallet payment, a disbursement...), for a simulation to decide it. */
export const holdPhase = (control: ControlApi, machines: readonly string[]): Phase | undefined =>
  settingsPhase(control, machines, false);

interface Plan {
  machine: StateMachine;
  creation: string;
  simulation: Simulation;
  webhook: WebhookModel;
  /** The states the callback may report: the transitions' targets that `x-simulates` allows. */
  to: string[];
  from: string;
}

/** Each (simulation, webhook) pair the contracts connect through an event-triggered transition from a state creation reaches. */
function plans(contract: Contract, control: ControlApi): Plan[] {
  return [...stateMachines(contract).values()].flatMap((machine) => {
    const creation = creationOperation(machine);
    if (creation === undefined) return [];
    const starts = new Set(machine.transitions.filter((t) => t.from === null).map((t) => t.to));
    return control.simulations
      .filter((simulation) => simulation.machine === machine.key)
      .flatMap((simulation) => {
        const transitions = machine.transitions.filter(
          (t) =>
            t.trigger.event === simulation.event &&
            t.from !== null &&
            starts.has(t.from) &&
            (simulation.to.length === 0 || simulation.to.includes(t.to)),
        );
        const webhooks = [...new Set(transitions.flatMap(callbacksOf))];
        return webhooks.flatMap((id) => {
          const webhook = contract.model.webhooks.find((w) => w.operationId === id);
          const taken = transitions.filter((t) => callbacksOf(t).includes(id));
          const [first] = taken;
          return webhook && first?.from
            ? [{ machine, creation, simulation, webhook, to: [...new Set(taken.map((t) => t.to))], from: first.from }]
            : [];
        });
      });
  });
}

type Confirmed = { ok: true; object: JsonObject; id: string | undefined; fired: Fired } | { ok: false; fired: Fired };

/**
 * Creates the object (its references provided) and takes it through the test-mode confirmation its machine
 * needs while in `from` (a direct debit's OTP), so that what comes next (the bank's answer) can happen.
 */
export async function createConfirmed(
  env: TriggerEnv,
  machine: StateMachine,
  creation: string,
  from: string,
  creationBody: JsonObject,
): Promise<Confirmed> {
  const { contract } = env.context;
  const filled = await withReferences(env, creation, creationBody);
  if ('reason' in filled) return { ok: false, fired: { fired: false, reason: filled.reason } };
  const created = await runStep(env.context, { operationId: creation, body: filled.body });
  if (!created.ok) return { ok: false, fired: fired(env, created) };
  const object = isObject(created.exchange.json as Json) ? (created.exchange.json as JsonObject) : {};
  const id = createdId(created.exchange);
  const confirm = confirmation(contract, machine, creation, from);
  if (!confirm) return { ok: true, object, id, fired: fired(env, created) };
  const parameter = onlyPathParameter(contract, confirm.operationId);
  if (id === undefined || parameter === undefined)
    return {
      ok: false,
      fired: { fired: false, reason: `${creation}'s answer has no id to give ${confirm.operationId}` },
    };
  const confirmed = await runStep(env.context, {
    operationId: confirm.operationId,
    parameters: { [parameter]: id },
    ...(confirm.body ? { body: confirm.body } : {}),
  });
  return confirmed.ok
    ? { ok: true, object, id, fired: fired(env, confirmed) }
    : { ok: false, fired: fired(env, confirmed) };
}

/** Creates the object, confirms it where the machine says, and simulates the event on it; `expect` learns the values the simulation was given. */
async function fireSimulation(
  env: TriggerEnv,
  control: ControlApi,
  plan: Plan,
  creationBody: JsonObject,
  expect: CallbackEvent['expect'],
): Promise<Fired> {
  const confirmed = await createConfirmed(env, plan.machine, plan.creation, plan.from, creationBody);
  if (!confirmed.ok) return confirmed.fired;
  const { object, id } = confirmed;
  const operationId = plan.simulation.operation.operationId;
  const parameter = onlyPathParameter(control.contract, operationId);
  if (parameter !== undefined && id === undefined)
    return { fired: false, reason: `${plan.creation}'s answer has no id to give ${operationId}` };
  const body = simulationBody(control.contract, plan.simulation.operation, object);
  expect.push(...givenValues(env, control, plan, body));
  const simulated = await control.call(operationId, {
    ...(parameter !== undefined && id !== undefined ? { parameters: { [parameter]: id } } : {}),
    ...(body ? { body } : {}),
  });
  return fired(env, simulated);
}

/** The state the simulation leads to, when the callback carries the machine's state field. */
function stateExpectation(env: TriggerEnv, plan: Plan): CallbackEvent['expect'] {
  const field = plan.machine.field;
  if (field === null || schemaAt(env.context.contract, plan.webhook.bodySchema, field) === undefined) return [];
  return [
    {
      field,
      allowed: plan.to,
      source: `x-simulates of ${plan.simulation.operation.operationId} (${plan.machine.key} ${plan.simulation.event})`,
    },
  ];
}

/** Each value the simulation was given that the callback declares under the same name: the callback reports it. */
function givenValues(
  env: TriggerEnv,
  control: ControlApi,
  plan: Plan,
  sent: JsonObject | undefined,
): CallbackEvent['expect'] {
  const operationId = plan.simulation.operation.operationId;
  return Object.entries(sent ?? {})
    .filter(
      ([name]) =>
        name !== plan.machine.field &&
        schemaAt(env.context.contract, plan.webhook.bodySchema, name) !== undefined &&
        schemaAt(control.contract, plan.simulation.operation.body?.schema, name) !== undefined,
    )
    .map(([name, value]) => ({ field: name, allowed: [value], source: `the ${operationId} request` }));
}

/** Event-triggered transitions with a callback, each caused by the control API's simulation of it when there is one. */
export function simulationTriggers(env: TriggerEnv): TriggerSource[] {
  const { contract } = env.context;
  const machines = [...stateMachines(contract).values()];
  const eventsFor = (webhook: string): string[] => [
    ...new Set(
      machines.flatMap((m) =>
        m.transitions
          .filter((t) => t.trigger.event !== undefined && callbacksOf(t).includes(webhook))
          .map((t) => `${m.key} ${t.trigger.event ?? ''}`),
      ),
    ),
  ];
  const control = env.sandbox.control;
  if (!control || control.simulations.length === 0) {
    return contract.model.webhooks.flatMap((webhook) => {
      const events = eventsFor(webhook.operationId);
      return events.length === 0
        ? []
        : [
            {
              webhook: webhook.operationId,
              via: `sandbox simulation of ${events.map((e) => e.split(' ')[1]).join(', ')}`,
              unavailable: env.sandbox.reason ?? 'the sandbox control API is not usable',
              events: [],
            },
          ];
    });
  }
  const all = plans(contract, control);
  const simulated = all.map((plan) => `${plan.machine.key} ${plan.simulation.event}`);
  const covered: TriggerSource[] = all.map((plan): TriggerSource => {
    const operationId = plan.simulation.operation.operationId;
    const via = `sandbox simulation ${operationId} (${plan.machine.key} ${plan.simulation.event})`;
    const target = destination(env, plan.webhook, plan.creation);
    if ('unavailable' in target)
      return { webhook: plan.webhook.operationId, via, unavailable: target.unavailable, events: [] };
    const key = env.newKey();
    const { body, correlation } = prepareBody(
      env,
      plan.webhook,
      plan.creation,
      firstExample(contract, plan.creation),
      key,
      target.field,
    );
    // An object the target would finish by itself must be held for the simulation to decide it.
    const phase = holdPhase(control, [plan.machine.key]);
    const expect = stateExpectation(env, plan);
    const event: CallbackEvent = {
      key,
      webhook: plan.webhook.operationId,
      label: `${plan.creation}, then ${operationId}`,
      expect,
      correlation,
      fire: () => fireSimulation(env, control, plan, body, expect),
      ...(phase ? { phase } : {}),
    };
    return { webhook: plan.webhook.operationId, via, events: [event] };
  });
  const uncovered = contract.model.webhooks.flatMap((webhook) => {
    const missing = eventsFor(webhook.operationId).filter((event) => !simulated.includes(event));
    return missing.length === 0
      ? []
      : [
          {
            webhook: webhook.operationId,
            via: `sandbox simulation of ${missing.map((e) => e.split(' ')[1]).join(', ')}`,
            unavailable: `the control contract (${control.source}) simulates no such event (x-simulates)`,
            events: [],
          },
        ];
  });
  return [...covered, ...uncovered];
}
