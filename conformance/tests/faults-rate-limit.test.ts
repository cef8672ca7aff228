// Proof that the rate_limit check (--check-rate-limit) passes the sandbox as it is and catches each of the
// rate limit's mutants with only that check: a limit never enforced, a RateLimit-Remaining that does not
// count, a window that never starts again, a 429 stating another limit, and one count per merchant or for
// everyone where the contract keeps one per key (x-rate-limits scope). Each runs the sandbox with its
// limits on, as `npm start` does.
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../mutants/catalogue.js';
import { failedResults, judgeMutant, runMutant } from '../mutants/runner.js';

const catalogue = await loadCatalogue();
const rateLimitMutants = catalogue.filter((mutant) => mutant.family === 'rate_limit');

describe('the rate_limit check', () => {
  it('passes the sandbox with its limits on: the 429 past the read limit, its headers, served again after Retry-After', async () => {
    const summary = await runMutant(undefined, { only: ['rate_limit'], checkRateLimit: true });
    expect(failedResults(summary)).toEqual([]);
    expect(summary.results.find((result) => result.check === 'rate_limit')).toMatchObject({
      subject: 'getBalance',
      outcome: 'passed',
    });
    // Another merchant's key and the other mode's key were judged too: nothing was left unchecked.
    expect(summary.results.find((result) => result.check === 'rate_limit')?.unchecked).toBeUndefined();
  }, 60_000);

  it.each(rateLimitMutants.map((mutant) => [mutant.name, mutant] as const))(
    'catches %s',
    async (_name, mutant) => {
      const verdict = await judgeMutant(mutant);
      expect(verdict.error).toBeUndefined();
      expect(verdict.failedResults).toEqual(['rate_limit:getBalance']);
    },
    60_000,
  );
});
