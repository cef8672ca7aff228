// Number ranges a bank or outlet assigns to a merchant (virtual account numbers, payment codes): digit
// strings from `from` to `to`, of one length, each starting with the merchant's prefix.
import { randomBytes } from 'node:crypto';
import type { JsonRecord, Scope, Transaction } from '../context.js';
import { DuplicateKeyError } from '../store/store.js';

export interface NumberRange {
  prefix: string;
  from: string;
  to: string;
}

/** Same length as the range's bounds, the merchant's prefix, and between the bounds (digit strings of one length compare as numbers). */
export function inRange(value: string, range: NumberRange): boolean {
  return (
    value.length === range.from.length &&
    value.length === range.to.length &&
    value.startsWith(range.prefix) &&
    value >= range.from &&
    value <= range.to
  );
}

/** A uniformly random bigint in [0, span). */
function randomBelow(span: bigint): bigint {
  const bytes = Math.ceil(span.toString(16).length / 2) + 1;
  // Rejection sampling over a whole number of bytes keeps every value equally likely.
  const limit = (1n << BigInt(bytes * 8)) - ((1n << BigInt(bytes * 8)) % span);
  for (;;) {
    const candidate = BigInt(`0x${randomBytes(bytes).toString('hex')}`);
    if (candidate < limit) return candidate % span;
  }
}

const RANDOM_TRIES = 32;

/**
 * A number of the range that `isTaken` does not know, picked at random (so numbers do not reveal how many
 * the merchant has); undefined when every number is taken. After a few random misses (a nearly full
 * range) it walks the range from a random point, so a free number is always found if there is one.
 */
export async function pickFreeNumber(
  range: NumberRange,
  isTaken: (value: string) => Promise<boolean>,
): Promise<string | undefined> {
  if (!/^[0-9]+$/.test(range.from) || !/^[0-9]+$/.test(range.to) || range.from.length !== range.to.length)
    return undefined;
  const first = BigInt(range.from);
  const span = BigInt(range.to) - first + 1n;
  if (span <= 0n) return undefined;
  const at = (offset: bigint): string => (first + offset).toString().padStart(range.from.length, '0');
  for (let attempt = 0; attempt < RANDOM_TRIES; attempt++) {
    const candidate = at(randomBelow(span));
    if (inRange(candidate, range) && !(await isTaken(candidate))) return candidate;
  }
  const start = randomBelow(span);
  for (let step = 0n; step < span; step++) {
    const candidate = at((start + step) % span);
    if (inRange(candidate, range) && !(await isTaken(candidate))) return candidate;
  }
  return undefined;
}

/**
 * Stores a record that claims a number through a unique field of its collection; false (and nothing
 * stored) when the number is already claimed in the scope.
 */
export async function insertClaiming(
  tx: Transaction,
  collection: string,
  scope: Scope,
  record: JsonRecord,
): Promise<boolean> {
  try {
    await tx.insert(collection, scope, record);
    return true;
  } catch (error) {
    if (error instanceof DuplicateKeyError) return false;
    throw error;
  }
}
