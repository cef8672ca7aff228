// Comparing secrets (callback tokens, API keys) without leaking them through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * True when `given` equals `expected`, in time that depends on neither value: both are hashed first, so
 * timingSafeEqual always compares two 32-byte digests and an early length check cannot reveal the
 * secret's length.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
