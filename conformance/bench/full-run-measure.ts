// The benchmark behind `npm run bench:conformance` (full-run.ts reads its command line and loads this only to
// run it): the full profile against the sandbox as `npm start` runs it with its defaults
// (a fresh data directory, a free port on 127.0.0.1, the contract's 30 s between callback attempts), with a
// callback receiver and the keys the isolation check uses. Prints the wall time of the whole run (the
// suite's own, and the bench's including the sandbox's start), the requests, each check's time and the
// pass/fail counts. Figures, and the exit status of the run: 0 when no check failed.
//
// The sandbox keeps its rate limits on, as `npm start` does, and the suite paces itself to them. Beside the
// wall time the bench prints the floor those limits put under it: a key may send a group's `limit` requests
// per `window_seconds`, so the run's requests of one key and group take at least requests / (limit /
// window_seconds) seconds; the floor is the largest of those over keys and groups (the groups are counted
// apart, so they could all proceed side by side; checks that wait on one another make the run longer). It
// also prints the 429s met: outside the rate_limit check, a paced run meets none.
//
// With `--rate-limits off` the sandbox answers at full speed (SANDBOX_RATE_LIMITS=false) and the suite
// does not pace itself: the figure the suite's speed budget is held to (the full profile within 10 s on
// the 2-core machine), beside each check's share of it.
//
// The sandbox runs as its own process (as `npm start` would), so it does not share an event loop with the
// suite; only SANDBOX_MERCHANTS adds a second merchant, which changes no timing and lets the isolation
// check run instead of skipping.
import {
  contractRetryDelayMs,
  DEFAULT_LIVE_SECRET_KEY,
  DEFAULT_TEST_CALLBACK_TOKEN,
  DEFAULT_TEST_SECRET_KEY,
  startSandboxProcess,
  TEST_MERCHANTS,
} from '@payments-contract/sandbox/testing';
import { formatSummary } from '../report/summary.js';
import { createProgress } from '../report/terminal.js';
import { runConformance } from '../run.js';
import { CHECK_NAMES, type CheckName, type RunSummary } from '../types.js';

interface Round {
  summary: RunSummary;
  /** From spawning the sandbox to the end of the run. */
  benchWallMs: number;
  startMs: number;
  /** Milliseconds per check, from its start to the next check's (check 1 has none: it judges the others' responses). */
  perCheck: Map<CheckName, number>;
}

/** Per-check time from the moment each check begins (the run's first progress event of it) to the next one's. */
function checkTimer(): { mark: (check: CheckName) => void; finish: () => Map<CheckName, number> } {
  const starts: { check: CheckName; at: number }[] = [];
  return {
    mark: (check) => {
      if (!starts.some((s) => s.check === check)) starts.push({ check, at: performance.now() });
    },
    finish: () => {
      const end = performance.now();
      return new Map(starts.map((s, index) => [s.check, (starts[index + 1]?.at ?? end) - s.at]));
    },
  };
}

async function round(live: boolean, rateLimits: boolean, store: string): Promise<Round> {
  const began = performance.now();
  // An empty CALLBACK_RETRY_DELAY_MS counts as unset: the sandbox keeps the contract's spacing.
  const sandbox = await startSandboxProcess({
    env: { CALLBACK_RETRY_DELAY_MS: '', STORE: store, SANDBOX_RATE_LIMITS: String(rateLimits) },
  });
  try {
    const timer = checkTimer();
    const progress = createProgress(live ? process.stderr : { write: () => true, isTTY: false });
    const summary = await runConformance({
      baseUrl: sandbox.url,
      apiKey: DEFAULT_TEST_SECRET_KEY,
      profile: 'full',
      timeoutMs: 10_000,
      concurrency: 8,
      strict: false,
      callbacks: { listen: { host: '127.0.0.1', port: 0 }, token: DEFAULT_TEST_CALLBACK_TOKEN },
      isolation: { otherMerchantKey: TEST_MERCHANTS.b.keys.test, otherModeKey: DEFAULT_LIVE_SECRET_KEY },
      onResult: progress.onResult,
      onProgress: (event) => {
        timer.mark(event.check);
        progress.onProgress(event);
      },
    });
    progress.finish();
    return { summary, benchWallMs: performance.now() - began, startMs: sandbox.startMs, perCheck: timer.finish() };
  } finally {
    await sandbox.remove();
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** The least time the documented limits allow the run's requests (see the header), and each key and group's share. */
function rateLimitFloor(summary: RunSummary): string[] {
  const spans = (summary.requestsPerRateLimit ?? []).map((entry) => ({
    ...entry,
    seconds: entry.requests / (entry.limit / entry.windowSeconds),
  }));
  if (spans.length === 0) return ['  rate-limit floor:  none (no request had a documented limit)'];
  const slowest = spans.reduce((most, span) => (span.seconds > most.seconds ? span : most));
  return [
    `  rate-limit floor:  ${seconds(slowest.seconds * 1000)} (${slowest.group} of ${slowest.key}); the suite took ${(summary.wallMs / 1000 / slowest.seconds).toFixed(2)}x it`,
    ...spans.map(
      (span) =>
        `    ${`${span.group} of ${span.key}`.padEnd(40)} ${String(span.requests).padStart(5)} requests at ${span.limit} per ${span.windowSeconds} s: ${seconds(span.seconds * 1000)}`,
    ),
  ];
}

function report(result: Round, index: number, rateLimits: boolean, store: string): string {
  const { summary } = result;
  const checks = CHECK_NAMES.filter((check) => summary.results.some((r) => r.check === check));
  const width = Math.max(...checks.map((check) => check.length));
  const perCheck = checks.map((check) => {
    const own = summary.results.filter((r) => r.check === check);
    const passed = own.filter((r) => r.outcome === 'passed').length;
    const failed = own.filter((r) => r.outcome === 'failed').length;
    const skipped = own.filter((r) => r.outcome === 'skipped').length;
    const took = result.perCheck.get(check);
    return `  ${check.padEnd(width)}  ${(took === undefined ? 'in others' : seconds(took)).padStart(9)}   ${passed} passed, ${failed} failed, ${skipped} skipped`;
  });
  return [
    `round ${index + 1}: full profile against the sandbox (${store} store) ${rateLimits ? 'at its defaults (rate limits on, as npm start has them' : 'with rate limits off (the speed budget: within 10 s'}; callback retries ${contractRetryDelayMs()} ms apart)`,
    `  suite wall time:   ${seconds(summary.wallMs)}   (bench, with the sandbox's start of ${seconds(result.startMs)}: ${seconds(result.benchWallMs)})`,
    `  requests:          ${summary.requests} (${Math.round(summary.requestsPerSecond)}/s)`,
    ...rateLimitFloor(summary),
    `  429s met:          ${summary.rateLimitedResponses ?? 0} (${summary.rateLimitedOutsideRateLimitCheck ?? 0} outside the rate_limit check)`,
    `  results:           ${summary.counts.passed} passed, ${summary.counts.failed} failed, ${summary.counts.skipped} skipped, ${summary.counts.warnings} warning(s)`,
    '  per check:',
    ...perCheck,
  ].join('\n');
}

/** Runs the full profile `rounds` times, each against a fresh sandbox; prints each round's figures. */
export async function benchFullRun(rounds: number, rateLimits: boolean, store: 'journal' | 'sqlite'): Promise<number> {
  let failed = false;
  for (let index = 0; index < rounds; index++) {
    const result = await round(process.stderr.isTTY === true, rateLimits, store);
    if (result.summary.counts.failed > 0) {
      failed = true;
      process.stdout.write(formatSummary(result.summary));
    }
    process.stdout.write(`${report(result, index, rateLimits, store)}\n`);
  }
  return failed ? 1 : 0;
}
