// The target's time for the timestamps and lookups checks: with a control clock, moved a step between steps
// and known to lie between the bounds its answers give; without one, the run's synced clock, real time
// waited before a change only.
import { describe, expect, it } from 'vitest';
import type { ControlClock } from '../callbacks/sandbox.js';
import { loadContract } from '../contract.js';
import { ScenarioSkipped } from './scenario.js';
import { STEP_MS, targetTime } from './target-time.js';

/** A control clock 10 days ahead of this machine, answering after `latencyMs`. */
function fakeClock(latencyMs: number, refuse = false): ControlClock & { advanced: number[] } {
  let offset = 10 * 86_400_000;
  const advanced: number[] = [];
  const later = <T>(value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), latencyMs));
  return {
    operation: { operationId: 'advanceClock' } as ControlClock['operation'],
    advanced,
    moves: () => [],
    now: () => later({ ms: Date.now() + offset }),
    advance: (ms) => {
      if (refuse) return later({ ok: false as const, reason: 'refused' });
      offset += ms;
      advanced.push(ms);
      return later({ ok: true as const, now: Date.now() + offset });
    },
  };
}

describe('targetTime with a control clock', () => {
  it('moves the clock a step and keeps the target time between its earliest and latest bound', async () => {
    const clock = fakeClock(20);
    const time = targetTime(loadContract(), clock);
    expect(time.moved).toBe(true);
    const before = await time.now();
    await time.pass('observation');
    const earliest = await time.now();
    // The fake clock's true time when latest() is asked: it can only be later by the time latest() answers,
    // so it is read just before (read after, a loaded machine's scheduling put it past the bound).
    const trueBeforeLatest = Date.now() + 10 * 86_400_000 + STEP_MS;
    const latest = await time.latest();
    const trueAfter = Date.now() + 10 * 86_400_000 + STEP_MS;
    expect(clock.advanced).toEqual([STEP_MS]);
    expect(earliest - before).toBeGreaterThanOrEqual(STEP_MS - 5);
    // The answer took 20 ms: the target's time is known to within that.
    expect(latest - earliest).toBeGreaterThanOrEqual(15);
    expect(earliest).toBeLessThanOrEqual(trueAfter + 2);
    expect(latest).toBeGreaterThanOrEqual(trueBeforeLatest - 2);
  });

  it('stops the case as not run when the clock refuses to move', async () => {
    const time = targetTime(loadContract(), fakeClock(0, true));
    await expect(time.pass('change')).rejects.toBeInstanceOf(ScenarioSkipped);
  });
});

describe('targetTime without a control clock', () => {
  it('reads the synced clock and waits real time before a change only', async () => {
    const contract = loadContract();
    const time = targetTime(contract, undefined);
    expect(time.moved).toBe(false);
    let started = performance.now();
    await time.pass('observation');
    expect(performance.now() - started).toBeLessThan(50);
    started = performance.now();
    await time.pass('change');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_050);
    expect(Math.abs((await time.now()) - contract.clock.now())).toBeLessThan(5);
  });
});
