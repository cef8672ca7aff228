// The vocabulary of a conformance run: profiles, checks, findings and results.
import type { Contract } from './contract.js';
import type { HttpClient, Exchange } from './http.js';
import type { WholeRun } from './callbacks/whole-run.js';

export const PROFILES = ['stateless', 'stateful', 'full'] as const;
export type Profile = (typeof PROFILES)[number];

export const CHECK_NAMES = [
  'response_conformance',
  'auth',
  'negative_data',
  'positive_data',
  'stateful_workflows',
  'transitions',
  'forbidden_transitions',
  'uniqueness',
  'boundaries',
  'money',
  'balance_rules',
  'isolation',
  'idempotency',
  'idempotency_scope',
  'timestamps',
  'lookups',
  'callbacks',
  'callback_deliveries',
  'rate_limit',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** Which checks each profile runs. */
export const PROFILE_CHECKS: Record<Profile, CheckName[]> = {
  stateless: ['response_conformance', 'auth', 'negative_data', 'positive_data'],
  stateful: [
    'response_conformance',
    'auth',
    'negative_data',
    'positive_data',
    'stateful_workflows',
    'transitions',
    'forbidden_transitions',
    'uniqueness',
    'boundaries',
    'money',
    'balance_rules',
    'isolation',
    'idempotency',
    'idempotency_scope',
    'timestamps',
    'lookups',
    'callback_deliveries',
  ],
  // The rate limit is driven past only when asked (--check-rate-limit): it spends a window of the key's requests.
  full: CHECK_NAMES.filter((name) => name !== 'rate_limit'),
};

export interface Finding {
  severity: 'failure' | 'warning';
  message: string;
  /** JSON Schema path (or JSON Pointer into the contract) that the response broke, when there is one. */
  schemaPath?: string;
  /** A command that reproduces the request, secrets masked. */
  curl?: string;
  status?: number;
  bodyExcerpt?: string;
}

export type Outcome = 'passed' | 'failed' | 'skipped';

/** The result of one check for one subject (an operationId, a webhook, or a workflow name). */
export interface CheckResult {
  check: CheckName;
  subject: string;
  outcome: Outcome;
  /** Sub-cases run ("missing required field external_id", ...), for the reports. */
  cases: number;
  findings: Finding[];
  skippedReason?: string;
  /**
   * On a skip: the subject has nothing this check could try (an operation without a request rule to break).
   * Absent, a skip means the check could not run (a receiver, a key, a control API or a simulation missing),
   * and the run is incomplete: the safe default, since a check that was not run has not passed.
   */
  notApplicable?: true;
  /**
   * On a result that ran: parts of it left out for want of something the run was not given (one of the
   * isolation keys). They make the run incomplete, as a skip does; the cases that ran decide the outcome.
   */
  unchecked?: string[];
  /** What a reader needs to trust the outcome: cases not applicable here, expectations overridden by an option. */
  notes?: string[];
}

export interface RunOptions {
  baseUrl: string;
  apiKey: string;
  profile: Profile;
  /** Path of the bundled contract; default the contract package's openapi.json. */
  specPath?: string;
  /** Only checks or subjects matching (`check`, `subject` or `check:subject`, `*` wildcards). */
  only?: string[];
  skip?: string[];
  timeoutMs: number;
  concurrency: number;
  /** Report undocumented response fields too. */
  strict: boolean;
  callbacks?: {
    listen: { host: string; port: number };
    publicUrl?: string;
    token?: string;
    /** Expected spacing of callback retries, for test targets configured shorter than the contract's `retry_interval_seconds`. */
    retryIntervalMs?: number;
    /** How long to wait for the first delivery of a triggered callback; default 15 s. */
    waitMs?: number;
  };
  /**
   * Other credentials for the isolation check: a key of another merchant, and a key of the same merchant
   * in the other mode (live when apiKey is a test key). Without them the cases that need them are skipped.
   */
  isolation?: { otherMerchantKey?: string; otherModeKey?: string };
  /** Drive one operation past its rate limit and check the 429 and the RateLimit fields (the rate_limit check). */
  checkRateLimit?: boolean;
  /** Called as results arrive (live progress). */
  onResult?: (result: CheckResult) => void;
  /** Called while a check works or waits (which check, which callback, how long it will wait). */
  onProgress?: (event: ProgressEvent) => void;
}

/** What a check is doing now, for live progress on a terminal and one line per finished wait in CI logs. */
export type ProgressEvent =
  | { kind: 'working'; check: CheckName; what: string }
  | { kind: 'waiting'; check: CheckName; what: string; untilMs: number }
  | { kind: 'waited'; check: CheckName; what: string; tookMs: number };

/**
 * A run's verdict: `fail` when any check failed (it wins over the rest), `incomplete` when a check the run
 * selected could not run or ran only in part (see CheckResult.notApplicable and unchecked), else `pass`.
 */
export type Verdict = 'pass' | 'fail' | 'incomplete';

export interface RunCounts extends Record<Outcome, number> {
  warnings: number;
  /** Results the check could not run, wholly (a skip not marked not applicable) or in part (unchecked). */
  notRun: number;
  /** Skips marked not applicable; with the not-run skips they make up `skipped`. */
  notApplicable: number;
}

export interface RunSummary {
  baseUrl: string;
  profile: Profile;
  startedAt: string;
  wallMs: number;
  requests: number;
  requestsPerSecond: number;
  verdict: Verdict;
  /** The --only and --skip patterns: what the user left out by name is not counted as not run. */
  selection: { only: string[]; skip: string[] };
  results: CheckResult[];
  counts: RunCounts;
  /** 429 answers met during the run, the rate_limit check's included (it drives a limit past on purpose). */
  rateLimitedResponses?: number;
  /**
   * Of those, the ones met outside the rate_limit check (waited out and judged like any answer): the run
   * keeps to the documented limits, so a conforming target gives none.
   */
  rateLimitedOutsideRateLimitCheck?: number;
  /** Requests per API key (named by the variable that holds it) and rate-limit group, with the group's documented limit. */
  requestsPerRateLimit?: { key: string; group: string; limit: number; windowSeconds: number; requests: number }[];
}

/** What a check gets to work with. */
export interface CheckContext {
  contract: Contract;
  http: HttpClient;
  options: RunOptions;
  /** Checks every response the check sees against the contract (check 1), under this check's subject. */
  observe: (operationId: string, exchange: Exchange) => Finding[];
  /** Whether a subject is selected by --only/--skip for this check. */
  selected: (check: CheckName, subject: string) => boolean;
  /** The callback receiver and request log of the whole run (callbacks/whole-run.ts), when the run has a receiver. */
  callbackRun?: WholeRun;
}

export interface Check {
  name: CheckName;
  description: string;
  run: (context: CheckContext) => Promise<CheckResult[]>;
}
