// The `payments-conformance` command. Parses and checks its flags (bad usage: exit 2), makes sure the target
// answers at all (unreachable: exit 2), runs the suite with live progress, prints the summary and writes
// the JUnit/JSON reports. Exit 0 when no check failed, 1 when any did.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, refuse, STANDARD_USAGE_LINES, UsageError, type Command } from '@payments-contract/server/runtime/command-line';
import { loadContract, type Contract } from './contract.js';
import { buildRequest } from './data/requests.js';
import { createHttpClient } from './http.js';
import { toJsonReport } from './report/json.js';
import { toJUnit } from './report/junit.js';
import { formatSummary } from './report/summary.js';
import { createProgress, type ProgressStream } from './report/terminal.js';
import { runConformance } from './run.js';
import { CHECK_NAMES, PROFILES, PROFILE_CHECKS, type Profile, type RunOptions, type RunSummary } from './types.js';

/** Secrets come from these rather than from flags: a command line shows in `ps` to every user of the machine. */
export const SECRET_VARIABLES = { 'api-key': 'PAYMENTS_API_KEY', 'callback-token': 'PAYMENTS_CALLBACK_TOKEN' } as const;

export const USAGE = `Usage: PAYMENTS_API_KEY=KEY payments-conformance --base-url URL [options]

Checks a running implementation of the payments API against its contract (the bundled
generated/openapi.json unless --spec names another version) and reports, operation by operation and
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
                               stateful   adds ${PROFILE_CHECKS.stateful.filter((c) => !PROFILE_CHECKS.stateless.includes(c)).join(', ')} (a deployed test environment)
                               full       adds ${PROFILE_CHECKS.full.filter((c) => !PROFILE_CHECKS.stateful.includes(c)).join(', ')} (needs --callback-listen)
                             e.g. --profile stateful
  --spec FILE                the contract to check against (a bundled OpenAPI 3.1 JSON document).
                             e.g. --spec build/openapi-v2.json
  --only PATTERN             run only checks/operations matching PATTERN: a check name, an
                             operationId (or other subject), or check:subject; * is a wildcard.
                             Repeat the flag or separate patterns with commas.
                             e.g. --only auth --only 'negative_data:create*'
  --skip PATTERN             leave out what PATTERN matches (same syntax as --only).
                             e.g. --skip 'callbacks,*Disbursement*'
  --junit FILE               also write JUnit XML: one test case per operation x check.
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
  --strict                   also report response fields the contract does not document (values in a
                             form the contract records as a known variant stay warnings).
                             e.g. --strict --only response_conformance
${STANDARD_USAGE_LINES}

Environment (a flag wins over its variable; an empty variable counts as unset):
  PAYMENTS_API_KEY           the secret API key (--api-key). Secrets belong here rather than on the
                             command line, which every user of the machine sees in \`ps\`.
  PAYMENTS_CALLBACK_TOKEN    the callback token (--callback-token), used with --callback-listen.

Checks: ${CHECK_NAMES.join(', ')}.
Exit status: 0 no check failed; 1 at least one check failed; 2 bad usage or unreachable target.

Example:
  export PAYMENTS_API_KEY=...   # from your CI's secret store
  payments-conformance --base-url https://sandbox.example.test \\
    --profile stateful --junit reports/conformance.xml --json reports/conformance.json`;

export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
  env: Record<string, string | undefined>;
}

export interface ParsedCli {
  kind: 'run';
  options: Omit<RunOptions, 'onResult'>;
  contract: Contract;
  junit?: string;
  json?: string;
}

export { UsageError };

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
  strict: { type: 'boolean' },
} as const;

export const COMMAND = { name: 'payments-conformance', usage: USAGE, options: OPTIONS, module: import.meta.url } satisfies Command<typeof OPTIONS>;

function httpUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL, not "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag} must be an http(s) URL, not "${value}"`);
  return value;
}

function positiveInteger(value: string | undefined, flag: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > max) throw new UsageError(`${flag} must be a whole number from 1 to ${max}, not "${value}"`);
  return number;
}

/** `HOST:PORT`, with `[v6]:PORT` for IPv6 hosts. */
export function parseHostPort(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535) throw new UsageError(`--callback-listen must be HOST:PORT (e.g. 127.0.0.1:8787), not "${value}"`);
  return { host: match[1] ?? match[2] ?? '', port };
}

const patterns = (values: string[] | undefined): string[] => (values ?? []).flatMap((value) => value.split(',')).map((p) => p.trim()).filter((p) => p !== '');

/** A secret's flag, else its variable (an empty one counts as unset, as a blank `FOO=` line in a .env file). */
function secret(values: { [K in keyof typeof SECRET_VARIABLES]?: string | undefined }, env: CliIo['env'], flag: keyof typeof SECRET_VARIABLES): string | undefined {
  return values[flag] ?? (env[SECRET_VARIABLES[flag]] || undefined);
}

/** The command line to run options, or the text to print; throws UsageError for anything the run could not use. */
export function parseCli(argv: string[], env: CliIo['env']): ParsedCli | { kind: 'print'; text: string } {
  const line = parseCommandLine(COMMAND, argv);
  if (line.kind === 'print') return line;
  const { values } = line;
  if (!values['base-url']) throw new UsageError('--base-url is required');
  const apiKey = secret(values, env, 'api-key');
  if (!apiKey) throw new UsageError(`set ${SECRET_VARIABLES['api-key']} (or give --api-key)`);
  const profile = values.profile ?? 'stateless';
  if (!PROFILES.includes(profile as Profile)) throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}, not "${profile}"`);
  let contract: Contract;
  const specPath = values.spec === undefined ? undefined : resolve(values.spec);
  try {
    contract = loadContract(specPath);
  } catch (error) {
    throw new UsageError(`--spec ${values.spec ?? ''}: cannot load the contract: ${error instanceof Error ? error.message : String(error)}`);
  }
  const listen = values['callback-listen'];
  // The token's variable is not among them: a CI job's environment may carry it for runs that do listen.
  const callbackFlags = ['callback-public-url', 'callback-token', 'callback-wait-ms', 'callback-retry-interval-ms'] as const;
  if (!listen && callbackFlags.some((flag) => values[flag] !== undefined)) {
    throw new UsageError(`${callbackFlags.map((flag) => `--${flag}`).join(', ')} need --callback-listen`);
  }
  const callbackToken = secret(values, env, 'callback-token');
  const callbacks: RunOptions['callbacks'] = listen
    ? {
        listen: parseHostPort(listen),
        ...(values['callback-public-url'] !== undefined ? { publicUrl: httpUrl(values['callback-public-url'], '--callback-public-url') } : {}),
        ...(callbackToken !== undefined ? { token: callbackToken } : {}),
        ...(values['callback-wait-ms'] !== undefined ? { waitMs: positiveInteger(values['callback-wait-ms'], '--callback-wait-ms', 0, 3_600_000) } : {}),
        ...(values['callback-retry-interval-ms'] !== undefined
          ? { retryIntervalMs: positiveInteger(values['callback-retry-interval-ms'], '--callback-retry-interval-ms', 0, 3_600_000) }
          : {}),
      }
    : undefined;
  return {
    kind: 'run',
    contract,
    options: {
      baseUrl: httpUrl(values['base-url'], '--base-url'),
      apiKey,
      profile: profile as Profile,
      ...(specPath ? { specPath } : {}),
      only: patterns(values.only),
      skip: patterns(values.skip),
      timeoutMs: positiveInteger(values['timeout-ms'], '--timeout-ms', 10_000, 600_000),
      concurrency: positiveInteger(values.concurrency, '--concurrency', 8, 256),
      strict: values.strict === true,
      ...(callbacks ? { callbacks } : {}),
    },
    ...(values.junit !== undefined ? { junit: values.junit } : {}),
    ...(values.json !== undefined ? { json: values.json } : {}),
  };
}

/**
 * Whether the target answers at all: one unauthenticated GET of the contract's first GET operation. Any
 * HTTP answer will do (a 401 is expected); no answer means there is nothing to check.
 */
export async function probe(contract: Contract, options: Pick<RunOptions, 'baseUrl' | 'apiKey' | 'timeoutMs'>): Promise<string | undefined> {
  const http = createHttpClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs });
  const first = contract.model.operations.find((o) => o.method === 'get' && !o.parameters.some((p) => p.in === 'path'));
  const exchange = await http.send(first ? { ...buildRequest(contract, first), auth: 'none' } : { method: 'GET', path: '/', auth: 'none' });
  return exchange.status === 0 ? `${exchange.request.method} ${exchange.request.url}: ${exchange.failure?.message ?? 'no answer'}` : undefined;
}

function writeReport(file: string, text: string): void {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  writeFileSync(file, text);
}

export async function main(argv: string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  let parsed: ParsedCli | { kind: 'print'; text: string };
  try {
    parsed = parseCli(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return refuse(COMMAND, error, io.stderr);
  }
  if (parsed.kind === 'print') {
    io.stdout.write(`${parsed.text}\n`);
    return 0;
  }
  const { options, contract } = parsed;
  const unreachable = await probe(contract, options);
  if (unreachable) {
    io.stderr.write(`payments-conformance: the target does not answer (${unreachable}). Check --base-url and that the service is running.\n`);
    return 2;
  }
  const progress = createProgress(io.stderr);
  let summary: RunSummary;
  try {
    summary = await runConformance({ ...options, onResult: progress.onResult });
  } catch (error) {
    progress.finish();
    io.stderr.write(`payments-conformance: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 2;
  }
  progress.finish();
  if (summary.results.length === 0) {
    io.stderr.write(`payments-conformance: --only/--skip left nothing to run (patterns: only ${options.only?.join(',') || '-'}, skip ${options.skip?.join(',') || '-'}).\n`);
    return 2;
  }
  io.stdout.write(formatSummary(summary));
  try {
    if (parsed.junit) writeReport(parsed.junit, toJUnit(summary));
    if (parsed.json) {
      const info = contract.model;
      writeReport(parsed.json, toJsonReport(summary, { contract: { title: info.title, version: info.version, ...(options.specPath ? { specPath: options.specPath } : {}) } }));
    }
  } catch (error) {
    io.stderr.write(`payments-conformance: cannot write a report: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  return summary.counts.failed > 0 ? 1 : 0;
}

function invokedDirectly(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  // exit() rather than letting the loop drain: kept-alive sockets to the target must not delay CI.
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`payments-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(2);
    },
  );
}
