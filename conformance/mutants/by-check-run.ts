// Runs one mutant for the kill-rate report (by-check.ts): started once, each check alone against it.
import { mapPool } from '../pool.js';
import { PROFILE_CHECKS, type CheckName } from '../types.js';
import { checksAlone, matrixOf, newChecks, soloRuns, type ByCheckMatrix, type MutantRow } from './by-check.js';
import { familyPatterns, runAgainst, startMutant, type MutantTarget } from './runner.js';
import type { Mutant } from './types.js';

/** Starts the mutant once and runs each check alone against it; a check catches it when a result of its own fails. */
export async function judgeByCheck(
  mutant: Mutant | undefined,
  checks: CheckName[] = checksAlone(mutant),
): Promise<MutantRow> {
  const row: MutantRow = {
    name: mutant?.name ?? 'unmutated sandbox',
    ...(mutant ? { family: mutant.family } : {}),
    ...(mutant?.class ? { class: mutant.class } : {}),
    ran: [],
    caughtBy: [],
  };
  let target: MutantTarget;
  try {
    // Rate limits held only where the rate limit's check runs: elsewhere they would only slow the runs.
    target = await startMutant(mutant, { rateLimits: checks.includes('rate_limit') });
  } catch (error) {
    return { ...row, error: error instanceof Error ? error.message : String(error) };
  }
  try {
    for (const { run, judged } of soloRuns(checks, familyPatterns)) {
      const summary = await runAgainst(target, { only: run, checkRateLimit: run.includes('rate_limit') });
      for (const check of judged) {
        row.ran.push(check);
        // Each check is judged by its own results only.
        if (summary.results.some((result) => result.check === check && result.outcome === 'failed'))
          row.caughtBy.push(check);
      }
    }
  } finally {
    await target.close();
  }
  return row;
}

/**
 * The kill-rate matrix of `mutants`: the unmutated sandbox first, with every check any of them runs alone,
 * which must pass them all (a check that fails there would seem to catch every mutant); then the mutants,
 * `parallel` at a time, each row handed to `onRow` as it finishes. Undefined when the baseline fails.
 */
export async function runByCheck(
  mutants: Mutant[],
  parallel: number,
  onRow: (row: MutantRow) => void,
): Promise<{ baseline: MutantRow; matrix?: ByCheckMatrix }> {
  const checks = PROFILE_CHECKS.full.concat(mutants.some((m) => m.family === 'rate_limit') ? ['rate_limit'] : []);
  const baseline = await judgeByCheck(undefined, checks);
  if (baseline.error !== undefined || baseline.caughtBy.length > 0) return { baseline };
  const rows = await mapPool(mutants, parallel, async (mutant) => {
    const row = await judgeByCheck(mutant);
    onRow(row);
    return row;
  });
  return { baseline, matrix: matrixOf(rows, checks, newChecks()) };
}
