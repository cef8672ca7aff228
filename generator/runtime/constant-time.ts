// Comparing secrets (callback tokens, API keys) without leaking them through timing.
import { hash, timingSafeEqual } from 'node:crypto';

/**
 * The SHA-256 digest a secret is compared by. A server that checks every request against the same known
 * secrets digests those once and each presented secret once.
 */
export const secretDigest = (value: string): Buffer => hash('sha256', value, 'buffer');

/** True when two digests from `secretDigest` are equal, in time that depends on neither. */
export const digestsEqual = (given: Buffer, expected: Buffer): boolean => timingSafeEqual(given, expected);

/**
 * True when `given` equals `expected`, in time that depends on neither value: both are hashed first, so
 * timingSafeEqual always compares two 32-byte digests and an early length check cannot reveal the
 * secret's length.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return digestsEqual(secretDigest(given), secretDigest(expected));
}
