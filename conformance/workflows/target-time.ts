// The target's time for checks that compare what it writes with when it wrote it (timestamps, the order of
// creation). Where the sandbox control API has a clock (x-clock-advance) the suite moves it between steps, so
// a change is a whole step later than the one before it even on a fast machine, and knows the target's time
// from each move's answer (the run's target clock, conformance/target-clock.ts, kept in step with it) without
// a request per reading; the cases that move it run one at a time, so no other case's move falls between two
// readings. Without one the suite reads the run's synced clock, coarser, and lets real time pass instead,
// and only before a change, where time must have passed for a move to show.
import type { ControlClock } from '../callbacks/sandbox.js';
import type { Contract } from '../contract.js';
import { ScenarioSkipped } from './scenario.js';

/** How far the clock is moved, or real time waited, between two steps that must be told apart in time. */
export const STEP_MS = 1000;
/** Real time waited between such steps without a clock to move: a step past a whole second, for targets that write seconds only. */
export const REAL_STEP_MS = 1100;
/** How far a time the target writes may lie outside the moments read around it: ms rounding with the control clock; a second or so with the synced clock. */
const MOVED_TOLERANCE_MS = 2;
const SYNCED_TOLERANCE_MS = 2000;

export interface TargetTime {
  /** The target's time now (epoch ms), at the earliest: what it can have written after this moment is not earlier. */
  now: () => Promise<number>;
  /** The target's time now, at the latest: what it wrote before this moment is not later. */
  latest: () => Promise<number>;
  /**
   * Lets `STEP_MS` of the target's time pass before a step: the clock moved, or, without one, real time
   * waited before a change only (`change`), where a timestamp must be seen to move.
   */
  pass: (before: 'change' | 'observation') => Promise<void>;
  /** How far a written time may lie outside the moments read around its request. */
  toleranceMs: number;
  /** Whether time passes by moving the target's clock (true) or by real waits (false). */
  moved: boolean;
  /** Where the time comes from, for notes. */
  source: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The target's time through its control clock when it has one, else the run's synced clock with real waits. */
export function targetTime(contract: Contract, clock: ControlClock | undefined): TargetTime {
  if (!clock) {
    return {
      now: () => Promise.resolve(contract.clock.now()),
      latest: () => Promise.resolve(contract.clock.now()),
      pass: (before) => (before === 'change' ? sleep(REAL_STEP_MS) : Promise.resolve()),
      toleranceMs: SYNCED_TOLERANCE_MS,
      moved: false,
      source: `${contract.clock.source()}, real time passing between steps`,
    };
  }
  const source = `the clock of the sandbox control API (${clock.operation.operationId})`;
  // The last time the clock answered, and the local moments its request left and its answer came: the target
  // read its time in between, so at a local moment L its time lies in [answered + L - received, answered + L - sent].
  let known: { answered: number; sent: number; received: number } | undefined;
  const remember = (answered: number, sent: number): void => {
    known = { answered, sent, received: performance.now() };
    contract.clock.observe(answered, source);
  };
  const current = async (): Promise<{ answered: number; sent: number; received: number }> => {
    if (!known) {
      const sent = performance.now();
      const answer = await clock.now();
      if ('reason' in answer) throw new ScenarioSkipped(`the target's clock could not be read: ${answer.reason}`);
      remember(answer.ms, sent);
    }
    return known as { answered: number; sent: number; received: number };
  };
  return {
    now: async () => {
      const { answered, received } = await current();
      return answered + performance.now() - received;
    },
    latest: async () => {
      const { answered, sent } = await current();
      return answered + performance.now() - sent;
    },
    pass: async () => {
      const sent = performance.now();
      const moved = await clock.advance(STEP_MS);
      if (!moved.ok) throw new ScenarioSkipped(`the target's clock could not be moved: ${moved.reason}`);
      if (moved.now === undefined) known = undefined;
      else remember(moved.now, sent);
    },
    toleranceMs: MOVED_TOLERANCE_MS,
    moved: true,
    source: `${source}, moved ${STEP_MS} ms between steps`,
  };
}
