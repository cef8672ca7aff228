// Test support: runs one check instance against a target the way runConformance does (check 1 observing
// every exchange), so a test can give a check its own settings (short polling, say).
import { loadContract } from '../contract.js';
import { responseFindings } from '../expectations.js';
import { createHttpClient } from '../http.js';
import { isSelected } from '../run.js';
import type { Check, CheckContext, CheckResult, Finding, RunOptions } from '../types.js';

export interface CheckRun {
  results: CheckResult[];
  /** Check 1's findings per operation, from the exchanges this check made. */
  observed: Map<string, Finding[]>;
}

export async function runCheck(
  check: Check,
  options: Pick<RunOptions, 'baseUrl' | 'apiKey'> & Partial<RunOptions>,
): Promise<CheckRun> {
  const full: RunOptions = { profile: 'full', timeoutMs: 5_000, concurrency: 8, strict: false, ...options };
  const contract = loadContract(full.specPath);
  const http = createHttpClient({ baseUrl: full.baseUrl, apiKey: full.apiKey, timeoutMs: full.timeoutMs });
  const observed = new Map<string, Finding[]>();
  const context: CheckContext = {
    contract,
    http,
    options: full,
    observe: (operationId, exchange) => {
      const findings = responseFindings(contract, http, contract.operation(operationId), exchange, full.strict);
      observed.set(operationId, [...(observed.get(operationId) ?? []), ...findings]);
      return findings;
    },
    selected: (name, subject) => isSelected(full, name, subject),
  };
  return { results: await check.run(context), observed };
}
