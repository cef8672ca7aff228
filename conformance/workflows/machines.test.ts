import { describe, expect, it } from 'vitest';
import { createContract } from '../contract.js';
import { loadContract } from '../contract.js';
import {
  acceptedTransitions,
  creationOperation,
  endingTransition,
  errorInState,
  expiryField,
  stateMachines,
  statesAfter,
} from './machines.js';

// A machine shaped like the contract's: creation, an event, an update that ends it, a refusal when ended.
const fixture = createContract({
  openapi: '3.1.0',
  info: { title: 'fixture', version: '1' },
  paths: {},
  'x-state-machines': {
    thing: {
      resource: 'Thing',
      field: 'status',
      states: ['NEW', 'LIVE', 'DONE'],
      initial: 'NEW',
      final: ['DONE'],
      transitions: [
        { from: null, trigger: { operation: 'createThing' }, to: 'NEW' },
        { from: 'NEW', trigger: { event: 'approved' }, to: 'LIVE' },
        { from: 'NEW', trigger: { operation: 'updateThing' }, condition: 'ends_at in the future', to: 'NEW' },
        { from: 'NEW', trigger: { operation: 'updateThing' }, condition: 'ends_at in the past', to: 'DONE' },
        { from: 'LIVE', trigger: { time: 'ends_at' }, to: 'DONE' },
        { from: 'DONE', trigger: { operation: 'updateThing' }, to: 'DONE', effects: [{ error: 'THING_DONE' }] },
      ],
    },
  },
});

describe('state machine questions', () => {
  const machine = stateMachines(fixture).get('thing');
  if (!machine) throw new Error('fixture machine missing');

  it.each([
    ['the creating operation', () => creationOperation(machine), 'createThing'],
    ['the states after creation, events included', () => statesAfter(machine, null, 'createThing'), ['NEW', 'LIVE']],
    ['the states an update may lead to', () => statesAfter(machine, 'NEW', 'updateThing'), ['NEW', 'DONE', 'LIVE']],
    ['accepted transitions exclude refusals', () => acceptedTransitions(machine, 'DONE', 'updateThing'), []],
    ['the refusal in a final state', () => errorInState(machine, 'DONE', 'updateThing'), 'THING_DONE'],
    ['no refusal where none is documented', () => errorInState(machine, 'NEW', 'updateThing'), undefined],
    ['the field whose time ends it', () => expiryField(machine), 'ends_at'],
    ['the operation that ends it', () => endingTransition(machine, 'NEW')?.to, 'DONE'],
    ['nothing ends it by operation from LIVE', () => endingTransition(machine, 'LIVE'), undefined],
  ])('%s', (_name, given, want) => {
    expect(given()).toEqual(want);
  });

  it('reads every machine of the bundled contract with its creating operation', () => {
    const contract = loadContract();
    for (const [key, m] of stateMachines(contract)) {
      expect(m.states, key).toContain(m.initial);
      expect(() => contract.operation(creationOperation(m) ?? ''), key).not.toThrow();
    }
  });
});
