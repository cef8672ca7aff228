// Check 13, rate limit (only with --check-rate-limit): one operation is driven past the limit the contract
// gives its group (`x-rate-limits`, `x-rate-limit`) within one window. The target must refuse with the
// documented 429 once the limit is spent (response conformance judges its body and its required headers),
// say RateLimit-Limit as the contract's limit and RateLimit-Remaining 0 on it, count RateLimit-Remaining
// down on the answers it accepted, and serve the key again after the Retry-After it gave.
//
// With the run's other keys (another merchant's, the other mode's: the isolation keys), each key's own window
// is judged too: right after the run's key was refused, each other key and the run's key are sent one
// request at once. When the run's key is still refused (the same window), another key is served unless the
// group's `scope` (what one count belongs to) does not separate it, and then refused (decision rate-limits).
//
// The operation is the cheapest the contract has: a GET with no path parameter and no required query (the
// balance), in the group with the smallest limit among those. The burst is sent all at once; when the target
// cannot answer it within one window, no verdict can be drawn, and the case is skipped saying so.
import type { OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { buildRequest } from '../data/requests.js';
import { finding } from '../expectations.js';
import { retryAfterMs, type Exchange } from '../http.js';
import { outcomeOf } from '../results.js';
import type { Check, CheckContext, CheckResult, Finding } from '../types.js';
import { foreignSides, OPTION_HINT, type ForeignSide } from './isolation.js';

interface LimitedOperation {
  operation: OperationModel;
  group: string;
  limit: number;
  windowSeconds: number;
}

/** Bursts larger than this are not sent: a contract limit above it cannot be checked from one client. */
const LARGEST_BURST = 2000;

/** Every operation the check could drive, cheapest group first. */
export function limitedOperations(contract: Contract): LimitedOperation[] {
  const found: LimitedOperation[] = [];
  for (const operation of contract.model.operations) {
    if (
      operation.method !== 'get' ||
      operation.parameters.some((p) => p.in === 'path' || (p.required && p.in !== 'header'))
    )
      continue;
    if (operation.rateLimit) found.push({ operation, ...operation.rateLimit });
  }
  return found.sort((a, b) => a.limit - b.limit);
}

const header = (exchange: Exchange, name: string): number | undefined => {
  const value = exchange.headers[name];
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
};

async function burst(
  context: CheckContext,
  target: LimitedOperation,
): Promise<{ exchanges: Exchange[]; tookMs: number }> {
  const spec = { ...buildRequest(context.contract, target.operation), rateLimited: 'return' as const };
  const started = performance.now();
  const exchanges = await Promise.all(Array.from({ length: target.limit + 1 }, () => context.http.send(spec)));
  return { exchanges, tookMs: performance.now() - started };
}

interface KeysJudged {
  findings: Finding[];
  cases: number;
  /** Parts that could not be judged, and why. */
  unchecked: string[];
}

const BETWEEN_KEYS_TRIES = 4;

/**
 * Each other key, sent at once with the run's key right after the run's key spent its window: when the
 * run's key is refused again (so the window is still spent), every other key must be served if the group's
 * scope separates it, and refused if not. A boundary between windows falling there is tried again.
 */
async function otherKeysWindows(
  context: CheckContext,
  target: LimitedOperation,
  sides: ForeignSide[],
): Promise<KeysJudged> {
  const { operation, group } = target;
  const judged: KeysJudged = { findings: [], cases: 0, unchecked: [] };
  const scope = operation.rateLimit?.scope;
  const missing = (['merchant', 'mode'] as const).filter(
    (relation) => !sides.some((side) => side.relation === relation),
  );
  judged.unchecked.push(
    ...missing.map(
      (relation) =>
        `another ${relation === 'merchant' ? "merchant's" : "mode's"} window: not tried, give ${OPTION_HINT[relation]}`,
    ),
  );
  if (sides.length === 0) return judged;
  if (!scope)
    return {
      ...judged,
      unchecked: [
        ...judged.unchecked,
        `other keys' windows: not tried, the ${group} group of x-rate-limits does not say what one count belongs to (scope)`,
      ],
    };
  const spec = { ...buildRequest(context.contract, operation), rateLimited: 'return' as const };
  const windowMs = target.windowSeconds * 1000;
  for (let tried = 0; tried < BETWEEN_KEYS_TRIES; tried++) {
    // Windows commonly start at whole multiples of their length: starting there leaves the burst and the
    // requests after it the whole window on a busy machine. Only a heuristic: the verdict needs the run's key refused again.
    await new Promise((resolve) => setTimeout(resolve, windowMs - (Date.now() % windowMs) + 5));
    const spent = await burst(context, target);
    if (!spent.exchanges.some((e) => e.status === 429)) continue;
    const [own, ...others] = await Promise.all([
      context.http.send(spec),
      ...sides.map((side) => side.client.send(spec)),
    ]);
    judged.cases += spent.exchanges.length + 1 + others.length;
    if (own?.status !== 429) continue;
    sides.forEach((side, index) => {
      const exchange = others[index];
      if (!exchange) return;
      judged.findings.push(...context.observe(operation.operationId, exchange));
      const separate = scope.includes(side.relation);
      const what = `${side.label}, sent while the run's key was refused for its spent ${group} window`;
      if (separate && exchange.status === 429)
        judged.findings.push(
          finding(
            side.client,
            exchange,
            `${what}: refused with 429 too, though the ${group} limit is counted per ${scope.join(' and ')} (x-rate-limits scope), so that key has its own window`,
          ),
        );
      if (!separate && exchange.status !== 429)
        judged.findings.push(
          finding(
            side.client,
            exchange,
            `${what}: answered ${exchange.status}, though the ${group} limit is shared across ${side.relation === 'merchant' ? 'merchants' : 'modes'} (x-rate-limits scope ${JSON.stringify(scope)}), so it should be refused with 429`,
          ),
        );
    });
    return judged;
  }
  return {
    ...judged,
    unchecked: [
      ...judged.unchecked,
      `other keys' windows: not judged, the run's key was not refused again within one window in ${BETWEEN_KEYS_TRIES} tries`,
    ],
  };
}

/** Waits `waitMs`, telling the run's progress what for. */
async function waitSaying(context: CheckContext, what: string, waitMs: number): Promise<void> {
  context.options.onProgress?.({ kind: 'waiting', check: 'rate_limit', what, untilMs: Date.now() + waitMs });
  await new Promise((resolve) => setTimeout(resolve, waitMs));
}

async function checkLimit(context: CheckContext, target: LimitedOperation): Promise<CheckResult> {
  const { http } = context;
  const { operation, limit, windowSeconds, group } = target;
  const subject = operation.operationId;
  const base = { check: 'rate_limit' as const, subject };
  if (limit + 1 > LARGEST_BURST)
    return {
      ...base,
      outcome: 'skipped',
      cases: 0,
      findings: [],
      skippedReason: `its ${group} limit (${limit}) is more than one client can spend in a window`,
    };
  const findings: Finding[] = [];
  // A window of the key may already be partly spent by the suite's other requests: the burst needs only to
  // end inside one window. Tried twice, as a window boundary falls inside a burst now and then.
  let sent = await burst(context, target);
  if (!sent.exchanges.some((e) => e.status === 429)) sent = await burst(context, target);
  // A window spent before the burst (by the suite's other requests, or by a first burst that crossed a boundary)
  // leaves fewer than two accepted answers, too few to see the count-down: once more, in the window after the
  // one its 429 names, rather than leave it unjudged.
  const acceptedOf = (exchanges: Exchange[]) => exchanges.filter((e) => e.status >= 200 && e.status < 300);
  const spentMs = retryAfterMs(sent.exchanges.find((e) => e.status === 429)?.headers['retry-after']);
  if (acceptedOf(sent.exchanges).length < 2 && spentMs !== undefined && spentMs <= 60_000) {
    await waitSaying(context, `a fresh window of ${operation.operationId}`, spentMs);
    sent = await burst(context, target);
  }
  for (const exchange of sent.exchanges) findings.push(...context.observe(subject, exchange));
  const refused = sent.exchanges.filter((e) => e.status === 429);
  const accepted = acceptedOf(sent.exchanges);
  const what = `${limit + 1} concurrent ${operation.method.toUpperCase()} ${operation.path} (${group}: ${limit} per ${windowSeconds} s)`;
  const last = sent.exchanges.at(-1);
  if (refused.length === 0) {
    if (sent.tookMs > windowSeconds * 1000)
      return {
        ...base,
        outcome: 'skipped',
        cases: sent.exchanges.length,
        findings,
        skippedReason: `${what} took ${Math.round(sent.tookMs)} ms, longer than one window: no verdict`,
      };
    if (last)
      findings.push(
        finding(
          http,
          last,
          `${what} within ${Math.round(sent.tookMs)} ms: none was refused with 429, though the contract's limit was spent`,
        ),
      );
    return { ...base, outcome: outcomeOf(findings), cases: sent.exchanges.length, findings };
  }
  for (const exchange of refused.slice(0, 1)) {
    const stated = header(exchange, 'ratelimit-limit');
    if (stated !== limit)
      findings.push(
        finding(
          http,
          exchange,
          `the 429 says RateLimit-Limit ${exchange.headers['ratelimit-limit'] ?? '(none)'}, where the contract's ${group} limit is ${limit}`,
        ),
      );
    if (header(exchange, 'ratelimit-remaining') !== 0)
      findings.push(
        finding(
          http,
          exchange,
          `the 429 says RateLimit-Remaining ${exchange.headers['ratelimit-remaining'] ?? '(none)'}, not 0`,
        ),
      );
  }
  for (const exchange of accepted) {
    const stated = header(exchange, 'ratelimit-limit');
    const remaining = header(exchange, 'ratelimit-remaining');
    if (exchange.headers['ratelimit-limit'] !== undefined && stated !== limit)
      findings.push(
        finding(
          http,
          exchange,
          `RateLimit-Limit ${exchange.headers['ratelimit-limit']} on an accepted request, where the contract's ${group} limit is ${limit}`,
        ),
      );
    if (exchange.headers['ratelimit-remaining'] !== undefined && (remaining === undefined || remaining >= limit))
      findings.push(
        finding(
          http,
          exchange,
          `RateLimit-Remaining ${exchange.headers['ratelimit-remaining']} on an accepted request: not a count below the limit ${limit}`,
        ),
      );
  }
  const remainders = accepted.map((e) => header(e, 'ratelimit-remaining')).filter((n): n is number => n !== undefined);
  // Counting down needs two accepted answers of one window that say it; a window spent by other requests (or
  // one that began inside the burst) may leave fewer, and then nothing was judged: the run says so.
  const countDownUnchecked =
    remainders.length < 2
      ? [
          `RateLimit-Remaining counting down: not judged, ${remainders.length} accepted answer${remainders.length === 1 ? '' : 's'} of the burst said it (the window was spent by other requests, or began inside the burst)`,
        ]
      : [];
  if (remainders.length > 1 && new Set(remainders).size < remainders.length) {
    findings.push(
      finding(
        http,
        accepted[0]!,
        `RateLimit-Remaining repeats a value among ${remainders.length} accepted requests of one window (${remainders.sort((a, b) => b - a).join(', ')}): the count did not go down with each`,
      ),
    );
  }
  // Once the window the 429 named is over, the key is served again.
  const waitMs = retryAfterMs(refused[0]!.headers['retry-after']);
  if (waitMs !== undefined && waitMs <= 60_000) {
    await waitSaying(context, `Retry-After of ${operation.operationId}`, waitMs);
    const again = await http.send({ ...buildRequest(context.contract, operation), rateLimited: 'return' });
    findings.push(...context.observe(subject, again));
    if (again.status === 429)
      findings.push(
        finding(http, again, `still refused with 429 after waiting the ${waitMs / 1000} s its Retry-After asked`),
      );
  }
  const keys = await otherKeysWindows(context, target, foreignSides(context));
  findings.push(...keys.findings);
  return {
    ...base,
    outcome: outcomeOf(findings),
    cases: sent.exchanges.length + 1 + keys.cases,
    findings,
    ...(countDownUnchecked.length + keys.unchecked.length > 0
      ? { unchecked: [...countDownUnchecked, ...keys.unchecked] }
      : {}),
  };
}

export const rateLimit: Check = {
  name: 'rate_limit',
  description:
    "One operation driven past its rate limit within a window: the documented 429 with Retry-After, RateLimit-Limit as the contract says and RateLimit-Remaining counting down to 0; served again after Retry-After; with the isolation keys, another merchant's and the other mode's key keep their own window (x-rate-limits scope).",
  run: async (context) => {
    const candidates = limitedOperations(context.contract).filter((candidate) =>
      context.selected('rate_limit', candidate.operation.operationId),
    );
    const target = candidates[0];
    if (!target)
      return [
        {
          check: 'rate_limit',
          subject: '(contract)',
          outcome: 'skipped',
          cases: 0,
          findings: [],
          skippedReason: 'the contract gives no GET without parameters a rate limit (x-rate-limits, x-rate-limit)',
        },
      ];
    return [await checkLimit(context, target)];
  },
};
