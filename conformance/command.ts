// The `payments-conformance` command line: its usage and options. Apart from the suite (cli.ts), so that the
// bin answers --help, --version and a command line it cannot read without loading the suite and ajv, which
// take longer to load than Node.js takes to start.
import { STANDARD_USAGE_LINES, type Command } from '@payments-contract/server/runtime/command-line';
import { CHECK_NAMES, PROFILE_CHECKS } from './types.js';

/** Secrets come from these rather than from flags: a command line shows in `ps` to every user of the machine. */
export const SECRET_VARIABLES = {
  'api-key': 'PAYMENTS_API_KEY',
  'callback-token': 'PAYMENTS_CALLBACK_TOKEN',
  'other-merchant-api-key': 'PAYMENTS_OTHER_MERCHANT_API_KEY',
  'other-mode-api-key': 'PAYMENTS_OTHER_MODE_API_KEY',
} as const;

export const USAGE = `Usage: PAYMENTS_API_KEY=KEY payments-conformance --base-url URL [options]

Checks a running implementation of the payments API against its contract (the contract package's
openapi.json unless --spec names another version) and reports, operation by operation and
check by check, where it departs from it.

Required:
  --base-url URL             the target's base URL.
                             e.g. --base-url http://127.0.0.1:4010
  --api-key KEY              a valid secret API key of the target (test mode). Better given as the
                             PAYMENTS_API_KEY environment variable (below); the flag wins over it.
                             e.g. --api-key sk_test_local_key
Options:
  --profile NAME             which checks run (default stateless):
                               stateless  ${PROFILE_CHECKS.stateless.join(', ')}
                                          (state-dependent answers relaxed; for the Prism mock)
                               stateful   adds ${PROFILE_CHECKS.stateful.filter((c) => !PROFILE_CHECKS.stateless.includes(c)).join(', ')} (a deployed test environment;
                                          isolation needs both --other-*-api-key)
                               full       adds ${PROFILE_CHECKS.full.filter((c) => !PROFILE_CHECKS.stateful.includes(c)).join(', ')} (needs --callback-listen)
                             e.g. --profile stateful
  --spec FILE                the contract to check against (a bundled OpenAPI 3.1 JSON document).
                             e.g. --spec build/openapi-v2.json
  --only PATTERN             run only checks/operations matching PATTERN: a check name, an
                             operationId (or other subject), or check:subject; * is a wildcard.
                             Repeat the flag or separate patterns with commas.
                             e.g. --only auth --only 'negative_data:create*'
  --skip PATTERN             leave out what PATTERN matches (same syntax as --only). What is left out
                             by name does not make the run incomplete; a check the profile selects
                             that cannot run (no receiver, no other key) does, unless skipped so.
                             e.g. --skip 'callbacks,*Disbursement*'
  --junit FILE               also write JUnit XML: one test case per operation x check (a check not
                             run is a <skipped> case with its reason, and an incomplete run has one
                             more case, in error, listing what was not checked).
                             e.g. --junit reports/conformance.xml
  --json FILE                also write the full results as JSON.
                             e.g. --json reports/conformance.json
  --timeout-ms N             give up on one request after N ms (default 10000); a timeout is a failure.
                             e.g. --timeout-ms 3000
  --concurrency N            requests in flight at once (default 8).
                             e.g. --concurrency 16
  --callback-listen HOST:PORT
                             run the built-in callback receiver there (checks callbacks).
                             e.g. --callback-listen 0.0.0.0:8787
  --callback-public-url URL  the URL the target must send callbacks to, when the receiver is behind a
                             proxy or tunnel (default: http://HOST:PORT of --callback-listen).
                             e.g. --callback-public-url https://hooks.example.test/conformance
  --callback-token TOKEN     the callback token the target sends with each callback, in the header
                             the contract names for it (checked in constant time, masked in reports).
                             Better given as PAYMENTS_CALLBACK_TOKEN (below); the flag wins over it.
                             e.g. --callback-token cbt_test_local_token
  --callback-wait-ms N       how long to wait for each callback to arrive (default 15000).
                             e.g. --callback-wait-ms 60000
  --callback-retry-interval-ms N
                             the spacing of retries to expect, for a test target configured with a
                             shorter delay than the contract's x-delivery (reported in a note). A
                             sandbox target reports its own (x-callback-retry-delay); this flag wins.
                             e.g. --callback-retry-interval-ms 500
  --other-merchant-api-key KEY
                             a key of a second merchant of the target, in the same mode as --api-key:
                             the isolation check reads, changes and looks up the first merchant's
                             objects with it (without it, not run: the run is incomplete). Better as
                             PAYMENTS_OTHER_MERCHANT_API_KEY (below); the flag wins over it.
                             e.g. --other-merchant-api-key sk_test_other_merchant_key
  --other-mode-api-key KEY   the same merchant's key of the other mode (its live key when --api-key is
                             a test key): the isolation check tries the test objects with it, and the
                             auth check requires it to be accepted as a key. Never sends money: every
                             request with it addresses a test object or is answered before any effect.
                             Better given as PAYMENTS_OTHER_MODE_API_KEY (below); the flag wins over it.
                             e.g. --other-mode-api-key sk_live_sandbox_key
  --strict                   also report response fields the contract does not document (values in a
                             form the contract records as a known variant stay warnings).
                             e.g. --strict --only response_conformance
  --check-rate-limit         also drive one operation past the rate limit the contract gives it, within
                             one window: expects the documented 429 with Retry-After, RateLimit-Limit as
                             the contract says and RateLimit-Remaining counting down to 0 (check
                             rate_limit; it spends that window of the key's requests). Any 429 met in
                             a run is waited out as its Retry-After says and judged like any answer.
                             e.g. --check-rate-limit --only rate_limit
  --verbose                  also print every note, skip and warning in full, the table of operations
                             by check, and off a terminal one line per result and per callback wait
                             (by default: what was not checked, the failures, counts per check).
                             e.g. --verbose
${STANDARD_USAGE_LINES}

Environment (a flag wins over its variable; an empty variable counts as unset):
  PAYMENTS_API_KEY           the secret API key (--api-key). Secrets belong here rather than on the
                             command line, which every user of the machine sees in \`ps\`.
  PAYMENTS_CALLBACK_TOKEN    the callback token (--callback-token), used with --callback-listen.
  PAYMENTS_OTHER_MERCHANT_API_KEY a second merchant's key (--other-merchant-api-key), for isolation.
  PAYMENTS_OTHER_MODE_API_KEY the same merchant's other-mode key (--other-mode-api-key), for auth
                             and isolation.

Checks: ${CHECK_NAMES.join(', ')}.
Before any check, the suite asks the contract's first GET without path parameters once without the
key and once with it: a target that answers as the API does not (an HTML page, a 404 for a documented
path) or refuses the key ends the run at once (exit 2), saying so in one line.

Exit status:
  0  pass: every check the profile selects ran, and none failed.
  1  fail: at least one check failed (whatever else could not run).
  2  bad usage, or a target that cannot be checked: unreachable, not the API, or refusing the key.
  3  incomplete: nothing failed, but a selected check could not run (no --callback-listen, no
     --other-merchant-api-key / --other-mode-api-key, a control API or simulation the target lacks);
     the summary starts with what was not checked and why. --skip it by name to accept the gap.

Example:
  export PAYMENTS_API_KEY=...   # from your CI's secret store
  payments-conformance --base-url https://sandbox.example.test \\
    --profile stateful --junit reports/conformance.xml --json reports/conformance.json`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  profile: { type: 'string' },
  spec: { type: 'string' },
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  junit: { type: 'string' },
  json: { type: 'string' },
  'timeout-ms': { type: 'string' },
  concurrency: { type: 'string' },
  'callback-listen': { type: 'string' },
  'callback-public-url': { type: 'string' },
  'callback-token': { type: 'string' },
  'callback-wait-ms': { type: 'string' },
  'callback-retry-interval-ms': { type: 'string' },
  'other-merchant-api-key': { type: 'string' },
  'other-mode-api-key': { type: 'string' },
  strict: { type: 'boolean' },
  'check-rate-limit': { type: 'boolean' },
  verbose: { type: 'boolean' },
} as const;

export const COMMAND = {
  name: 'payments-conformance',
  usage: USAGE,
  options: OPTIONS,
  module: import.meta.url,
} satisfies Command<typeof OPTIONS>;
