// Expiries are not jobs of the scheduler (scheduler.ts): an object reaching its expiry changes nothing but its
// own state, which the sandbox derives from the scope's clock wherever the object is read or acted on. That
// holds only while the contract's time triggers carry no effect (no callback, no balance change): a time trigger
// given one must become a scheduled job, or the effect would wait for the next read, or never come.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openapiPath } from '@payments-contract/contract';

interface Transition {
  from: string | null;
  to: string;
  trigger: { time?: string };
  effects?: unknown[];
}
interface Machine {
  transitions: Transition[];
}

const machines = (JSON.parse(readFileSync(openapiPath, 'utf8')) as { 'x-state-machines': Record<string, Machine> })[
  'x-state-machines'
];
const timed = Object.entries(machines).flatMap(([machine, { transitions }]) =>
  transitions
    .filter((transition) => transition.trigger.time !== undefined)
    .map((transition) => ({ machine, transition })),
);

describe('expiries', () => {
  it('are time triggers the contract still has (the guard below looks at something)', () => {
    expect(timed.map(({ machine }) => machine)).toEqual(
      expect.arrayContaining(['fixedVirtualAccount', 'fixedPaymentCode', 'paymentMethod']),
    );
  });

  it.each(timed.map(({ machine, transition }) => [`${machine} ${transition.from} -> ${transition.to}`, transition]))(
    '%s changes only the object, so the sandbox derives it at read time instead of scheduling it',
    (_name, transition) => {
      expect(transition.effects ?? []).toEqual([]);
    },
  );
});
