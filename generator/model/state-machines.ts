// `x-state-machines` read into the model's typed machines: each transition's trigger narrowed to its kind
// (an operation, an event or a time), each effect and its balance change checked against
// spec/x-extensions.yaml (stateMachine, balanceEffect, fieldConditions).
import type {
  BalanceEffectModel,
  FieldConditions,
  Json,
  JsonObject,
  StateMachineModel,
  TransitionEffect,
  TransitionModel,
  TransitionTrigger,
} from './types.js';

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fail(where: string, what: string): never {
  throw new Error(`${where}: ${what}`);
}

function text(value: Json | undefined, where: string): string {
  return typeof value === 'string' ? value : fail(where, 'expected a string');
}

function optionalText(value: Json | undefined, where: string): string | undefined {
  return value === undefined ? undefined : text(value, where);
}

function texts(value: Json | undefined, where: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    fail(where, 'expected a list of strings');
  return value.map(String);
}

/** Drops the undefined values of optional properties, so a read machine has only what the contract says. */
function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

function conditions(value: Json | undefined, where: string): FieldConditions {
  if (!isObject(value)) return fail(where, 'expected { resource.<field> | payload.<field>: value }');
  const read: FieldConditions = {};
  for (const [path, wanted] of Object.entries(value)) {
    if (!/^(resource|payload)\.[a-z_][a-z0-9_]*$/.test(path))
      fail(where, `${path} is neither resource.<field> nor payload.<field>`);
    if (typeof wanted !== 'string' && typeof wanted !== 'number' && typeof wanted !== 'boolean')
      fail(`${where}.${path}`, 'expected a string, number or boolean');
    read[path] = wanted;
  }
  return read;
}

function trigger(value: Json | undefined, where: string): TransitionTrigger {
  if (!isObject(value)) return fail(where, 'expected an object');
  const description = optionalText(value.description, `${where}.description`);
  const kinds = ['operation', 'event', 'time'].filter((kind) => value[kind] !== undefined);
  if (kinds.length !== 1) fail(where, 'expected exactly one of operation, event and time');
  if (typeof value.operation === 'string') return defined({ operation: value.operation, description });
  if (typeof value.event === 'string') return defined({ event: value.event, description });
  const boundary = value.boundary;
  if (boundary !== undefined && boundary !== 'inclusive' && boundary !== 'exclusive')
    fail(`${where}.boundary`, 'expected inclusive or exclusive');
  return defined({ time: text(value.time, `${where}.time`), boundary, description });
}

function balance(value: Json | undefined, where: string): BalanceEffectModel {
  if (!isObject(value) || !isObject(value.query))
    return fail(where, 'expected { operation, field, query, change, amount }');
  const { change, amount } = value;
  if (change !== 'credit' && change !== 'debit') fail(`${where}.change`, 'expected credit or debit');
  if (typeof amount !== 'string' || !/^(resource|payload)\.[a-z_][a-z0-9_]*$/.test(amount))
    fail(`${where}.amount`, 'expected resource.<field> or payload.<field>');
  return defined({
    operation: text(value.operation, `${where}.operation`),
    field: text(value.field, `${where}.field`),
    query: Object.fromEntries(
      Object.entries(value.query).map(([name, item]) => [name, text(item, `${where}.query.${name}`)]),
    ),
    change,
    amount,
    when: value.when === undefined ? undefined : conditions(value.when, `${where}.when`),
  });
}

function effect(value: Json | undefined, where: string): TransitionEffect {
  if (!isObject(value)) return fail(where, 'expected an object');
  const status = value.status;
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status)))
    fail(`${where}.status`, 'expected a status');
  return defined({
    callback: optionalText(value.callback, `${where}.callback`),
    error: optionalText(value.error, `${where}.error`),
    status,
    balance: value.balance === undefined ? undefined : balance(value.balance, `${where}.balance`),
    email: value.email === undefined ? undefined : texts(value.email, `${where}.email`),
    description: optionalText(value.description, `${where}.description`),
  });
}

function transition(value: Json | undefined, where: string): TransitionModel {
  if (!isObject(value)) return fail(where, 'expected an object');
  const from = value.from === null ? null : text(value.from, `${where}.from`);
  return defined({
    from,
    to: text(value.to, `${where}.to`),
    trigger: trigger(value.trigger, `${where}.trigger`),
    condition: optionalText(value.condition, `${where}.condition`),
    when: value.when === undefined ? undefined : conditions(value.when, `${where}.when`),
    description: optionalText(value.description, `${where}.description`),
    effects: Array.isArray(value.effects)
      ? value.effects.map((item, index) => effect(item, `${where}.effects[${index}]`))
      : undefined,
  });
}

/** Every `x-state-machines` entry of the document (references followed by `deref`), by its key. */
export function readStateMachines(
  doc: JsonObject,
  deref: (value: Json | undefined) => Json | undefined,
): Record<string, StateMachineModel> {
  const raw = deref(doc['x-state-machines']);
  if (raw === undefined) return {};
  if (!isObject(raw)) return fail('x-state-machines', 'expected an object');
  const machines: Record<string, StateMachineModel> = {};
  for (const [key, entry] of Object.entries(raw)) {
    const where = `x-state-machines.${key}`;
    const machine = deref(entry);
    if (!isObject(machine)) fail(where, 'expected an object');
    const transitions = machine.transitions;
    if (!Array.isArray(transitions)) fail(`${where}.transitions`, 'expected a list');
    machines[key] = defined({
      resource: text(machine.resource, `${where}.resource`),
      field: machine.field === null ? null : text(machine.field, `${where}.field`),
      states: texts(machine.states, `${where}.states`),
      initial: text(machine.initial, `${where}.initial`),
      final: machine.final === undefined ? undefined : texts(machine.final, `${where}.final`),
      description: optionalText(machine.description, `${where}.description`),
      transitions: transitions.map((item, index) => transition(deref(item), `${where}.transitions[${index}]`)),
    });
  }
  return machines;
}
