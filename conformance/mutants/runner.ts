// Starts the sandbox with a mutant's mistakes in it and runs the suite against it. The sandbox's sources are
// copied to a temporary folder, the mutant's edits applied to the copy, and the copy started in this process
// on 127.0.0.1 — the repository's own files are never touched, so mutants can run side by side with each
// other and with work in progress. The copy reaches the repository's packages through a `node_modules` link.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runConformance } from '../run.js';
import { PROFILE_CHECKS, type CheckName, type Profile, type RunSummary } from '../types.js';
import { type FailuresByResult, failuresOf, keysInCommands, missedWhere, notRunResults } from './caught-where.js';
import { editedFiles } from './source-edit.js';
import type { Mutant } from './types.js';

const repository = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const sandboxSource = join(repository, 'sandbox');

/** Parts of the sandbox folder that are not the service: tests, their helpers, builds. */
const NOT_SERVICE = [
  /\.test\.ts$/,
  /^dist(\/|$)/,
  /^node_modules(\/|$)/,
  /^reliability(\/|$)/,
  /^bench(\/|$)/,
  /^testing(\/|$)/,
  /(^|\/)testing\.ts$/,
];

/**
 * A compiled file beside its own source (left by a tsc run without noEmit): the copy's `import './x.js'` would
 * load it, unmutated, instead of the mutated `x.ts`, and every mutant would pass unnoticed as caught or not.
 */
export function compiledBesideSource(path: string): boolean {
  const source = path.replace(/\.(d\.ts|js)$/, '.ts');
  return source !== path && existsSync(source);
}

/** The second merchant of every mutant target, for the isolation check. */
const OTHER_MERCHANT = {
  id: 'merchant_mutant_other',
  ownerId: 'merchant_mutant_other',
  keys: { test: 'sk_test_mutant_other_7d0c2f5e9a41', live: 'sk_live_mutant_other_7d0c2f5e9a41' },
  callbackTokens: { test: 'cbt_test_mutant_other_7d0c2f5e9a41', live: 'cbt_live_mutant_other_7d0c2f5e9a41' },
};

export interface MutantTarget {
  url: string;
  keys: { test: string; live: string; otherMerchantTest: string; otherMerchantLive: string };
  callbackToken: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Spacing of callback attempts; default the sandbox's own (the contract's). */
  callbackRetryDelayMs?: number;
  /**
   * Hold keys to the contract's rate limits (default: for the unmutated sandbox and the rate limit's own
   * mutants). Off for the others: a run then takes seconds instead of waiting out a window per hundred
   * requests, and what they break is not the limit.
   */
  rateLimits?: boolean;
}

// The copy's modules have the shapes the sandbox's testing door gives the originals.
type Sandbox = typeof import('@payments-contract/sandbox/testing');
type AppModule = Pick<Sandbox, 'createSandboxApp'>;
type ConfigModule = Pick<Sandbox, 'defaultConfig'>;
type ServerModule = Pick<Sandbox, 'createSite' | 'listen'>;

/** Copies the sandbox's service sources to a new folder and applies the mutant's edits there. */
export function prepareCopy(mutant: Mutant | undefined): string {
  const root = mkdtempSync(join(tmpdir(), `payments-mutant-${mutant?.name ?? 'none'}-`));
  cpSync(sandboxSource, join(root, 'sandbox'), {
    recursive: true,
    filter: (path) => {
      const inside = relative(sandboxSource, path).split(sep).join('/');
      return inside === '' || (!NOT_SERVICE.some((pattern) => pattern.test(inside)) && !compiledBesideSource(path));
    },
  });
  symlinkSync(join(repository, 'node_modules'), join(root, 'node_modules'), 'dir');
  try {
    if (mutant)
      for (const [file, text] of editedFiles(mutant, (path) => readFileSync(join(root, 'sandbox', path), 'utf8')))
        writeFileSync(join(root, 'sandbox', file), text);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return root;
}

/** The sandbox with the mutant's mistakes (none: the sandbox as it is), serving on 127.0.0.1. */
export async function startMutant(mutant?: Mutant, options: StartOptions = {}): Promise<MutantTarget> {
  const root = prepareCopy(mutant);
  try {
    const load = <T>(file: string): Promise<T> => import(pathToFileURL(join(root, 'sandbox', file)).href) as Promise<T>;
    const [{ createSandboxApp }, { defaultConfig }, { createSite, listen }] = await Promise.all([
      load<AppModule>('app.ts'),
      load<ConfigModule>('config.ts'),
      load<ServerModule>('server.ts'),
    ]);
    const rateLimits = options.rateLimits ?? (mutant === undefined || mutant.family === 'rate_limit');
    const base = defaultConfig({
      dataDir: ':memory:',
      host: '127.0.0.1',
      port: 0,
      validateResponses: false,
      rateLimits,
      ...(options.callbackRetryDelayMs === undefined ? {} : { callbackRetryDelayMs: options.callbackRetryDelayMs }),
    });
    const config = { ...base, merchants: [...base.merchants, OTHER_MERCHANT] };
    // A deployed implementation logs its own errors; here they would only bury the suite's report.
    const app = await createSandboxApp(config, { onError: () => undefined, onAlert: () => undefined });
    await app.start();
    const server = await listen(createSite({ service: app.service, control: app.control }), {
      host: config.host,
      port: config.port,
    });
    const merchant = config.merchants[0];
    if (!merchant) throw new Error('the sandbox configuration has no merchant');
    return {
      url: server.url,
      keys: {
        test: merchant.keys.test,
        live: merchant.keys.live,
        otherMerchantTest: OTHER_MERCHANT.keys.test,
        otherMerchantLive: OTHER_MERCHANT.keys.live,
      },
      callbackToken: merchant.callbackTokens.test,
      close: async () => {
        await server.close();
        await app.close();
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

export interface RunAgainstOptions {
  profile?: Profile;
  only?: string[];
  concurrency?: number;
  /** Run the rate_limit check too (it spends a window of the key and waits out a Retry-After). */
  checkRateLimit?: boolean;
}

/** The suite against a mutant target, with a callback receiver and every key the isolation check uses. */
export function runAgainst(target: MutantTarget, options: RunAgainstOptions = {}): Promise<RunSummary> {
  return runConformance({
    baseUrl: target.url,
    apiKey: target.keys.test,
    profile: options.profile ?? 'full',
    // Generous: a mutant sandbox shares two cores with the suite (and with other mutants in a test run); a
    // request that times out would make its case skipped, and a skipped case catches nothing.
    timeoutMs: 15_000,
    concurrency: options.concurrency ?? 8,
    strict: false,
    callbacks: { listen: { host: '127.0.0.1', port: 0 }, token: target.callbackToken, waitMs: 5_000 },
    isolation: { otherMerchantKey: target.keys.otherMerchantTest, otherModeKey: target.keys.live },
    ...(options.only ? { only: options.only } : {}),
    ...(options.checkRateLimit ? { checkRateLimit: true } : {}),
  });
}

/** Starts the mutant (none: the sandbox as it is), runs the suite against it and stops it. */
export async function runMutant(
  mutant: Mutant | undefined,
  options: RunAgainstOptions & StartOptions = {},
): Promise<RunSummary> {
  const target = await startMutant(mutant, options);
  try {
    // The unmutated sandbox and the rate limit's own mutants are run with the rate_limit check; the others
    // need not spend a window of the key on it.
    return await runAgainst(target, {
      checkRateLimit: mutant === undefined || mutant.family === 'rate_limit',
      ...options,
    });
  } finally {
    await target.close();
  }
}

/** Where a run failed: `check:subject` for every failed result. */
export function failedResults(summary: RunSummary): string[] {
  return summary.results.filter((r) => r.outcome === 'failed').map((r) => `${r.check}:${r.subject}`);
}

/**
 * One run of the trial the catalogue is made of: a target (the mutant, or the unmutated sandbox) and the checks
 * run against it (none named: the full profile). Plain data, so a worker process can take it (workers.ts).
 */
export interface Trial {
  mutant?: Mutant;
  only?: CheckName[];
}

export interface TrialResult {
  /** `check:subject` of every failed result. */
  failedResults: string[];
  /**
   * `check:subject` of every result not run, wholly or in part (no verdict: e.g. a burst a loaded machine sent
   * slower than a window, skipped, or a window not judged, left unchecked). Not-applicable skips are not here.
   */
  notRunResults: string[];
  /** The failure findings of each failed result, for judging where the mutant was caught. */
  failures: FailuresByResult;
  /** `check:subject` of every result whose reproducing command shows an API key. */
  keysInCommands: string[];
  wallMs: number;
  /** Set when the target could not be run (stale text, a copy that does not start). */
  error?: string;
}

/**
 * Runs a trial on a fresh target. The rate limits are held, and the rate_limit check run, where that check
 * is among the checks (or, for the full profile, for the unmutated sandbox and the rate limit's own mutants):
 * elsewhere they would only make the runs wait out windows.
 */
export async function runTrial(trial: Trial): Promise<TrialResult> {
  const started = performance.now();
  const limits =
    trial.only === undefined
      ? trial.mutant === undefined || trial.mutant.family === 'rate_limit'
      : trial.only.includes('rate_limit');
  try {
    const summary = await runMutant(trial.mutant, {
      rateLimits: limits,
      checkRateLimit: limits,
      ...(trial.only ? { only: trial.only } : {}),
    });
    return {
      failedResults: failedResults(summary),
      notRunResults: notRunResults(summary),
      failures: failuresOf(summary),
      keysInCommands: keysInCommands(summary),
      wallMs: performance.now() - started,
    };
  } catch (error) {
    return {
      failedResults: [],
      notRunResults: [],
      failures: {},
      keysInCommands: [],
      wallMs: performance.now() - started,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

export interface Verdict {
  mutant: Mutant;
  /** Something failed, where the mutant's `caught` says, and no command showed a key. */
  caught: boolean;
  /** Why the run failed but not as the mutant's `caught` says (or showed a key); set only then. */
  misplaced?: string;
  /** `check:subject` of every failed result; empty when the mutant went unnoticed. */
  failedResults: string[];
  /** Whether the mutant's own family was among the checks that failed. */
  byFamily: boolean;
  /** `check:subject` of the results the run could not run in full (TrialResult.notRunResults). */
  notRun: string[];
  wallMs: number;
  /** Set when the mutant could not be run (stale text, a copy that does not start). */
  error?: string;
}

/**
 * A trial's result as the verdict on its mutant: caught when a result failed, on the result the mutant's
 * `caught` names and saying what it says, and no reproducing command of the run showed an API key.
 */
export function verdictOf(mutant: Mutant, result: TrialResult): Verdict {
  const failed = result.error === undefined && result.failedResults.length > 0;
  const misplaced = !failed
    ? undefined
    : result.keysInCommands.length > 0
      ? `an API key shows in the commands of ${result.keysInCommands.join(', ')}`
      : mutant.caught && missedWhere(mutant.caught, result.failures);
  return {
    mutant,
    caught: failed && misplaced === undefined,
    ...(misplaced ? { misplaced } : {}),
    failedResults: result.failedResults,
    byFamily: result.failedResults.some((f) => f.startsWith(`${mutant.family}:`)),
    notRun: result.notRunResults,
    wallMs: result.wallMs,
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}

/** Runs the suite against one mutant: the checks that judge it (`checksFor`), or the full profile with `full`. */
export async function judgeMutant(mutant: Mutant, options: { full?: boolean } = {}): Promise<Verdict> {
  return verdictOf(mutant, await runTrial({ mutant, ...(options.full ? {} : { only: checksFor(mutant) }) }));
}

/**
 * The checks a check runs with to judge anything: itself, but check 1 judges only the answers the request
 * checks get, and callback_deliveries every delivery the whole run caused, so they run with what feeds them.
 */
export function familyPatterns(family: CheckName): CheckName[] {
  if (family === 'response_conformance')
    return ['response_conformance', 'positive_data', 'negative_data', 'stateful_workflows'];
  if (family === 'callback_deliveries') return PROFILE_CHECKS.full;
  return [family];
}

/**
 * The checks a mutant is judged by: its own `judgedBy`, else its family's, with what feeds them. A check outside them can only add a
 * catch, never take one away, and the catalogue's proof is that every mutant is caught: a mutant its family
 * misses fails the run loudly (MISSED), it is not judged by some other check in silence.
 */
export function checksFor(mutant: Mutant): CheckName[] {
  return mutant.judgedBy ?? familyPatterns(mutant.family);
}
