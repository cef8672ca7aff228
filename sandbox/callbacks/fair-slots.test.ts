import { describe, expect, it } from 'vitest';
import { createFairSlots, type FairSlots } from './fair-slots.js';

/** Acquires for `key` and notes, in `order`, when the slot was granted. */
function take(slots: FairSlots, key: string, order: string[]): Promise<void> {
  return slots.acquire(key).then(() => void order.push(key));
}

/** Lets granted acquisitions run their continuations. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('fair attempt slots', () => {
  it('grants at once under both caps', async () => {
    const slots = createFairSlots({ total: 4, perKey: 2 });
    const order: string[] = [];
    await Promise.all([
      take(slots, 'a', order),
      take(slots, 'a', order),
      take(slots, 'b', order),
      take(slots, 'c', order),
    ]);
    expect(order).toEqual(['a', 'a', 'b', 'c']);
  });

  it('keeps a key at its cap from taking the slots another key needs', async () => {
    const slots = createFairSlots({ total: 16, perKey: 4 });
    const order: string[] = [];
    // A flood of one key: four run, the rest wait for its own slots.
    const flood = Array.from({ length: 160 }, () => take(slots, 'a', order));
    await settle();
    expect(order).toHaveLength(4);
    await take(slots, 'b', order);
    expect(order.at(-1)).toBe('b');
    slots.release('a');
    await settle();
    expect(order.filter((key) => key === 'a')).toHaveLength(5);
    void flood;
  });

  it('hands freed slots to the waiting keys in turn, whatever order they queued in', async () => {
    const slots = createFairSlots({ total: 2, perKey: 2 });
    const order: string[] = [];
    await Promise.all([take(slots, 'a', order), take(slots, 'a', order)]);
    const waiting = [
      ...Array.from({ length: 3 }, () => take(slots, 'a', order)),
      take(slots, 'b', order),
      take(slots, 'c', order),
    ];
    order.length = 0;
    for (let freed = 0; freed < 5; freed++) {
      slots.release(order[freed - 2] ?? 'a');
      await settle();
    }
    await Promise.all(waiting);
    // a was waiting first and is served first, then b and c before a's next.
    expect(order).toEqual(['a', 'b', 'c', 'a', 'a']);
  });

  it('refuses to give back a slot that was not taken', () => {
    const slots = createFairSlots({ total: 1, perKey: 1 });
    expect(() => slots.release('a')).toThrow(/did not hold/);
  });
});
