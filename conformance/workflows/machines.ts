// The contract's state machines (`x-state-machines`) read into types, and the questions the workflows ask
// of them: which operation creates a resource, which transitions an operation can take from a state, which
// error a forbidden transition answers, which field's time ends a resource's life.
import { readStateMachines } from '@payments-contract/contract/model';
import type { FieldConditions, OperationModel, TransitionModel } from '@payments-contract/contract/model/types';
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
  when?: FieldConditions;
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

/** The model's transition, its trigger flattened to the optional kinds the workflows ask about. */
function fromModel(transition: TransitionModel): Transition {
  const { trigger } = transition;
  const flat: Trigger =
    'operation' in trigger
      ? { operation: trigger.operation }
      : 'event' in trigger
        ? { event: trigger.event }
        : { time: trigger.time, ...(trigger.boundary ? { boundary: trigger.boundary } : {}) };
  return {
    from: transition.from,
    to: transition.to,
    trigger: flat,
    condition: transition.condition ?? '',
    ...(transition.when ? { when: transition.when } : {}),
    effects: (transition.effects ?? []).map(({ error, callback }) => ({
      ...(error ? { error } : {}),
      ...(callback ? { callback } : {}),
    })),
  };
}

/** Every state machine of the contract, by its key (read by the contract's model). */
export function stateMachines(contract: Contract): Map<string, StateMachine> {
  const machines = new Map<string, StateMachine>();
  for (const [key, machine] of Object.entries(readStateMachines(contract.doc, (value) => contract.deref(value)))) {
    machines.set(key, {
      key,
      resource: machine.resource,
      field: machine.field,
      states: machine.states,
      initial: machine.initial,
      final: machine.final ?? [],
      transitions: machine.transitions.map(fromModel),
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
