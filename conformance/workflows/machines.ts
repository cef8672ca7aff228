// The contract's state machines (`x-state-machines`) read into types, and the questions the workflows ask
// of them: which operation creates a resource, which transitions an operation can take from a state, which
// error a forbidden transition answers, which field's time ends a resource's life.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';

export interface Trigger {
  operation?: string;
  event?: string;
  time?: string;
  /** With `time`: inclusive when the transition happens at the instant itself, exclusive when only after it. */
  boundary?: 'inclusive' | 'exclusive';
}

export interface Effect {
  error?: string;
  callback?: string;
}

export interface Transition {
  from: string | null;
  to: string;
  trigger: Trigger;
  condition: string;
  /** Structured conditions (`when`): dotted fields (`resource.is_single_use`) and the values they must have. */
  when?: JsonObject;
  effects: Effect[];
}

export interface StateMachine {
  key: string;
  resource: string;
  /** The resource field that holds the state; null when the state is implicit. */
  field: string | null;
  states: string[];
  initial: string;
  final: string[];
  transitions: Transition[];
}

const text = (value: Json | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const strings = (value: Json | undefined): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

function readTransition(raw: JsonObject): Transition {
  const trigger = isObject(raw.trigger) ? raw.trigger : {};
  const effects = Array.isArray(raw.effects) ? raw.effects.filter(isObject) : [];
  const operation = text(trigger.operation);
  const event = text(trigger.event);
  const time = text(trigger.time);
  const boundary = trigger.boundary === 'inclusive' || trigger.boundary === 'exclusive' ? trigger.boundary : undefined;
  return {
    from: text(raw.from) ?? null,
    to: text(raw.to) ?? '',
    trigger: {
      ...(operation ? { operation } : {}),
      ...(event ? { event } : {}),
      ...(time ? { time } : {}),
      ...(boundary ? { boundary } : {}),
    },
    condition: text(raw.condition) ?? '',
    ...(isObject(raw.when) ? { when: raw.when } : {}),
    effects: effects.map((effect) => {
      const error = text(effect.error);
      const callback = text(effect.callback);
      return { ...(error ? { error } : {}), ...(callback ? { callback } : {}) };
    }),
  };
}

/** Every state machine of the contract, by its key. */
export function stateMachines(contract: Contract): Map<string, StateMachine> {
  const raw = contract.doc['x-state-machines'];
  const machines = new Map<string, StateMachine>();
  if (!isObject(raw)) return machines;
  for (const [key, value] of Object.entries(raw)) {
    if (!isObject(value)) continue;
    machines.set(key, {
      key,
      resource: text(value.resource) ?? key,
      field: text(value.field) ?? null,
      states: strings(value.states),
      initial: text(value.initial) ?? '',
      final: strings(value.final),
      transitions: (Array.isArray(value.transitions) ? value.transitions.filter(isObject) : []).map(readTransition),
    });
  }
  return machines;
}

const hasError = (transition: Transition): boolean => transition.effects.some((effect) => effect.error !== undefined);

/** The operation whose call brings a resource into existence (a transition from no state). */
export function creationOperation(machine: StateMachine): string | undefined {
  return machine.transitions.find((t) => t.from === null && t.trigger.operation)?.trigger.operation;
}

/** The machine of a resource kind (its `resource`, the title of the resource's schema). */
export function machineForResource(contract: Contract, kind: string): StateMachine | undefined {
  return [...stateMachines(contract).values()].find((machine) => machine.resource === kind);
}

/** A machine of the contract and the operation that creates its resource, when the contract has both. */
export function machineWithCreation(
  contract: Contract,
  key: string,
): { machine: StateMachine; create: OperationModel } | undefined {
  const machine = stateMachines(contract).get(key);
  const id = machine ? creationOperation(machine) : undefined;
  const create = contract.model.operations.find((o) => o.operationId === id);
  return machine && create ? { machine, create } : undefined;
}

/** Transitions an operation can take from a state without answering an error. */
export function acceptedTransitions(machine: StateMachine, from: string | null, operationId: string): Transition[] {
  return machine.transitions.filter((t) => t.from === from && t.trigger.operation === operationId && !hasError(t));
}

/**
 * States the resource may be in after the operation succeeded from `from`: the transitions' targets, and
 * what events (never the caller's doing) may move it to in the meantime.
 */
export function statesAfter(machine: StateMachine, from: string | null, operationId: string): string[] {
  const direct = acceptedTransitions(machine, from, operationId).map((t) => t.to);
  const byEvent = machine.transitions
    .filter((t) => t.trigger.event && direct.includes(t.from ?? '') && !hasError(t))
    .map((t) => t.to);
  return [...new Set([...direct, ...byEvent])];
}

/** The error an operation answers in a state where the machine forbids it. */
export function errorInState(machine: StateMachine, state: string, operationId: string): string | undefined {
  return machine.transitions
    .find((t) => t.from === state && t.trigger.operation === operationId && hasError(t))
    ?.effects.find((e) => e.error)?.error;
}

/** The field whose time, once passed, ends the resource's life (a time-triggered transition into a final state). */
export function expiryField(machine: StateMachine): string | undefined {
  return machine.transitions.find((t) => t.trigger.time && machine.final.includes(t.to))?.trigger.time;
}

/** A transition by an operation that moves the resource from `from` into a final state (how a caller ends it). */
export function endingTransition(machine: StateMachine, from: string): Transition | undefined {
  return machine.transitions.find(
    (t) => t.from === from && t.trigger.operation !== undefined && machine.final.includes(t.to) && !hasError(t),
  );
}
