// Runs the checks a profile selects against one target and collects the results. Usable as a library
// (`runConformance`) with the same results as the CLI.
import { loadContract } from './contract.js';
import { responseFindings } from './expectations.js';
import { createHttpClient, DEFAULT_RATE_LIMIT_HANDLING, type Exchange } from './http.js';
import { operationLocator } from './operation-at.js';
import { documentedLimits } from './pacing/limits.js';
import { createPacer } from './pacing/pacer.js';
import { ALL_CHECKS } from './checks/index.js';
import { outcomeOf } from './results.js';
import { startWholeRun } from './callbacks/whole-run.js';
import { syncTargetClock } from './target-clock.js';
import { countsOf, verdictOf } from './verdict.js';
import {
  PROFILE_CHECKS,
  type CheckContext,
  type CheckName,
  type CheckResult,
  type Finding,
  type RunOptions,
  type RunSummary,
} from './types.js';

/** `*` matches any run of characters; a pattern matches the check, the subject, or `check:subject`. */
export function matchesPattern(pattern: string, check: CheckName, subject: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(check) || regex.test(subject) || regex.test(`${check}:${subject}`);
}

export function isSelected(options: Pick<RunOptions, 'only' | 'skip'>, check: CheckName, subject: string): boolean {
  const only = options.only ?? [];
  if (only.length > 0 && !only.some((pattern) => matchesPattern(pattern, check, subject))) return false;
  return !(options.skip ?? []).some((pattern) => matchesPattern(pattern, check, subject));
}

export async function runConformance(options: RunOptions): Promise<RunSummary> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const contract = loadContract(options.specPath);
  // Every 429 the client waits out is judged as an answer of the operation it came from (its Retry-After
  // and body as the contract documents them), though the check that sent the request sees only the answer after it.
  let observeRateLimited = (_exchange: Exchange): void => undefined;
  // Every request but the rate_limit check's keeps within its documented limit, so none needs refusing.
  const pacer = createPacer();
  const direct = createHttpClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs,
    rateLimits: { ...DEFAULT_RATE_LIMIT_HANDLING, onRateLimited: (exchange) => observeRateLimited(exchange) },
    pacing: { pacer, limitOf: documentedLimits(contract, options.baseUrl) },
  });
  const enabled = new Set<CheckName>([
    ...PROFILE_CHECKS[options.profile],
    ...(options.checkRateLimit ? ['rate_limit' as const] : []),
  ]);
  // One callback receiver listens for the whole run and the client logs what the run does, so that every
  // delivery is judged against it at the end (callbacks/whole-run.ts).
  const wholeRun =
    options.callbacks && (enabled.has('callbacks') || enabled.has('callback_deliveries'))
      ? await startWholeRun(contract, options.callbacks, direct, options.apiKey)
      : undefined;
  const http = wholeRun?.http ?? direct;
  // The examples' time-bound values are sent moved to the target's own clock, read once before the checks.
  await syncTargetClock(contract.clock, http);

  // Check 1 runs on every response any other check sees; its results are per operation.
  const observed = new Map<string, { exchanges: number; findings: Finding[] }>();
  const observe = (operationId: string, exchange: Exchange): Finding[] => {
    const entry = observed.get(operationId) ?? { exchanges: 0, findings: [] };
    const findings = responseFindings(contract, http, contract.operation(operationId), exchange, options.strict);
    entry.exchanges++;
    entry.findings.push(...findings);
    observed.set(operationId, entry);
    return findings;
  };
  const operationAt = operationLocator(contract.model.operations, options.baseUrl);
  observeRateLimited = (exchange) => {
    const operation = operationAt(exchange.request.method, exchange.request.url);
    if (operation) observe(operation.operationId, exchange);
  };
  const context: CheckContext = {
    contract,
    http,
    options,
    observe,
    selected: (check, subject) => isSelected(options, check, subject),
    ...(wholeRun?.run ? { callbackRun: wholeRun.run } : {}),
  };

  const results: CheckResult[] = [];
  try {
    for (const check of ALL_CHECKS) {
      if (!enabled.has(check.name) || check.name === 'response_conformance') continue;
      // Every check says when it begins, so live progress names the check at work even before its first result.
      options.onProgress?.({ kind: 'working', check: check.name, what: 'running' });
      for (const result of await check.run(context)) {
        results.push(result);
        options.onResult?.(result);
      }
    }
  } finally {
    await wholeRun?.run?.close();
  }
  if (enabled.has('response_conformance')) {
    for (const operation of contract.model.operations) {
      if (!isSelected(options, 'response_conformance', operation.operationId)) continue;
      const entry = observed.get(operation.operationId);
      const result: CheckResult = entry
        ? {
            check: 'response_conformance',
            subject: operation.operationId,
            outcome: outcomeOf(entry.findings),
            cases: entry.exchanges,
            findings: dedupe(entry.findings),
          }
        : // Only --only/--skip can leave an operation unseen: what the user left out is not a check that could not run.
          {
            check: 'response_conformance',
            subject: operation.operationId,
            outcome: 'skipped',
            cases: 0,
            findings: [],
            skippedReason: 'no response of this operation was seen (all its checks were deselected)',
            notApplicable: true,
          };
      results.push(result);
      options.onResult?.(result);
    }
  }

  const wallMs = performance.now() - started;
  const requests = http.requestCount();
  const pacing = pacer.tally();
  const counts = countsOf(results);
  return {
    baseUrl: options.baseUrl,
    profile: options.profile,
    startedAt,
    wallMs,
    requests,
    requestsPerSecond: requests / (wallMs / 1000),
    rateLimitedResponses: pacing.rateLimited,
    rateLimitedOutsideRateLimitCheck: pacing.rateLimitedPaced,
    requestsPerRateLimit: pacing.requests.map(({ keyLabel, ...limit }) => ({ key: keyLabel, ...limit })),
    verdict: verdictOf(counts),
    selection: { only: options.only ?? [], skip: options.skip ?? [] },
    results,
    counts,
  };
}

/** The same finding from many exchanges is reported once. */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.severity}|${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
