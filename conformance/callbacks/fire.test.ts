import { describe, expect, it } from 'vitest';
import type { CallbackEvent, Phase } from './events.js';
import { fireAll } from './fire.js';

/** A run's order of doings: firing, entering and leaving phases, moving the clock, settling. */
function scenario() {
  const log: string[] = [];
  const phase = (label: string, finishing: boolean): Phase => ({
    label,
    enter: async () => (log.push(`enter ${label}`), { ok: true }),
    leave: async () => void log.push(`leave ${label}`),
    ...(finishing ? { finishing: { bringOn: async () => void log.push(`move the clock for ${label}`) } } : {}),
  });
  const event = (key: string, on?: Phase): CallbackEvent => ({
    key,
    webhook: 'w',
    label: key,
    expect: [],
    correlation: {},
    fire: async () => (log.push(`fire ${key}`), { fired: true, curl: '' }),
    ...(on ? { phase: on } : {}),
  });
  return { log, phase, event };
}

describe('fireAll', () => {
  it('settles a phase (its timed retries measured) before the next phase moves the clock', async () => {
    const { log, phase, event } = scenario();
    const [first, second] = [phase('disbursements finishing', true), phase('e-wallets finishing', true)];
    const timedOne = event('timed disbursement', first);
    const events = [event('disbursement', first), timedOne, event('e-wallet', second), event('plain')];
    await fireAll(events, new Set([timedOne]), 2, async (own) => {
      log.push(`read the clock before ${own.map((e) => e.key).join(', ')}`);
      return async (inPhase) => void log.push(`settle ${inPhase.map((w) => w.event.key).join(', ')}`);
    });
    expect(log).toEqual([
      'enter disbursements finishing',
      'read the clock before disbursement, timed disbursement',
      'fire disbursement',
      // Timed events last, so that their attempts come once the suite is idle.
      'fire timed disbursement',
      'move the clock for disbursements finishing',
      'settle disbursement, timed disbursement',
      'leave disbursements finishing',
      // Only now may another case move the clock.
      'enter e-wallets finishing',
      'read the clock before e-wallet',
      'fire e-wallet',
      'move the clock for e-wallets finishing',
      'settle e-wallet',
      'leave e-wallets finishing',
      'read the clock before plain',
      'fire plain',
      'settle plain',
    ]);
  });

  it('reports the events of a phase it cannot enter as not fired, and fires nothing of them', async () => {
    const { log, event } = scenario();
    const refused: Phase = {
      label: 'hold',
      enter: async () => ({ ok: false, reason: 'settings refused' }),
      leave: async () => undefined,
    };
    const watched = await fireAll([event('held', refused)], new Set(), 1, async () => async () => undefined);
    expect(watched.map((w) => w.fired)).toEqual([{ fired: false, reason: 'hold: settings refused' }]);
    expect(log).toEqual([]);
  });
});
