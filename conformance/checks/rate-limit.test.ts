// The rate_limit check against in-test targets: RateLimit-Remaining must be seen counting down, and a burst
// that leaves too few accepted answers to see it says so (the run is incomplete), never passes in silence.
import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { runConformance } from '../run.js';
import { startTarget, type Target } from '../tests/target.js';
import type { CheckResult } from '../types.js';
import { limitedOperations } from './rate-limit.js';

const contract = loadContract();
const KEY = 'sk_test_rate_limit';
const limited = limitedOperations(contract)[0]!;

/**
 * A target that serves `limited` from windows that each begin with `left` requests still to spend (the rest
 * spent by requests of its own; the first window with `leftInFirst`) and says what it counts in the RateLimit
 * fields. A window ends only once its
 * Retry-After (1 s) has passed since its first 429, so a burst never straddles two windows.
 */
function windowsWithLeft(
  left: number,
  remaining: (used: number) => number,
  leftInFirst: number = left,
): Promise<Target> {
  let used = limited.limit - leftInFirst;
  let refusedAt: number | undefined;
  return startTarget(contract, KEY, ({ operation, authorized }, response) => {
    if (!authorized || operation !== limited.operation) return undefined;
    if (refusedAt !== undefined && Date.now() - refusedAt >= 1000)
      [used, refusedAt] = [limited.limit - left, undefined];
    const refused = used >= limited.limit;
    if (refused) refusedAt ??= Date.now();
    else used += 1;
    response
      .writeHead(refused ? 429 : 200, {
        'content-type': 'application/json',
        'ratelimit-limit': String(limited.limit),
        'ratelimit-remaining': String(refused ? 0 : remaining(used)),
        'ratelimit-reset': '1',
        ...(refused ? { 'retry-after': '1' } : {}),
      })
      .end(
        JSON.stringify(
          refused ? { error_code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests.' } : { balance: 1000 },
        ),
      );
    return 'handled';
  });
}

let target: Target | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function rateLimitResult(): Promise<CheckResult> {
  const summary = await runConformance({
    baseUrl: target!.url,
    apiKey: KEY,
    profile: 'full',
    only: ['rate_limit'],
    checkRateLimit: true,
    timeoutMs: 5_000,
    concurrency: 8,
    strict: false,
  });
  return summary.results.find((result) => result.check === 'rate_limit')!;
}

describe('the rate_limit check', () => {
  it('fails RateLimit-Remaining that does not count down within a window', async () => {
    target = await windowsWithLeft(limited.limit, () => limited.limit - 1);
    const result = await rateLimitResult();
    expect(result.outcome).toBe('failed');
    expect(result.findings.map((finding) => finding.message).join('\n')).toContain('RateLimit-Remaining repeats');
  }, 30_000);

  it('judges the count-down in a fresh window when the first was spent before its burst', async () => {
    target = await windowsWithLeft(limited.limit, (used) => limited.limit - used, 0);
    const result = await rateLimitResult();
    expect((result.unchecked ?? []).join('\n')).not.toMatch(/counting down/);
    expect(result.findings).toEqual([]);
  }, 30_000);

  it('leaves the count-down unchecked when the window had one request left for the burst, rather than passing it', async () => {
    target = await windowsWithLeft(1, () => limited.limit - 1);
    const result = await rateLimitResult();
    expect(result.unchecked?.join('\n')).toMatch(/RateLimit-Remaining counting down: not judged/);
  }, 30_000);
});
