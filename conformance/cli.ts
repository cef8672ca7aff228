// The `payments-conformance` command. Parses and checks its flags (bad usage: exit 2), makes sure the target
// is the contract's API and accepts the key (preflight.ts; unreachable, refused or not the API: exit 2),
// runs the suite, prints the summary and writes the JUnit/JSON reports. The exit status is the verdict's:
// 0 pass, 1 a check failed, 3 incomplete (a selected check could not run); a failure wins over incomplete.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, refuse, UsageError } from '@payments-contract/server/runtime/command-line';
import { COMMAND, SECRET_VARIABLES } from './command.js';
import { loadContract, type Contract } from './contract.js';
import { preflight } from './preflight.js';
import { toJsonReport } from './report/json.js';
import { toJUnit } from './report/junit.js';
import { formatSummary } from './report/summary.js';
import { createProgress, type ProgressStream } from './report/terminal.js';
import { runConformance } from './run.js';
import { PROFILES, type Profile, type RunOptions, type RunSummary, type Verdict } from './types.js';

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
  /** Notes, waits, every result as it comes and the table of operations by check. */
  verbose: boolean;
}

/** The exit status of each verdict; 2 is for bad usage and a target that cannot be checked. */
export const EXIT_STATUS: Record<Verdict, number> = { pass: 0, fail: 1, incomplete: 3 };

export { UsageError };
export { COMMAND, SECRET_VARIABLES, USAGE } from './command.js';

function httpUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL, not "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag} must be an http(s) URL, not "${value}"`);
  return value;
}

function positiveInteger(value: string | undefined, flag: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || number > max)
    throw new UsageError(`${flag} must be a whole number from 1 to ${max}, not "${value}"`);
  return number;
}

/** `HOST:PORT`, with `[v6]:PORT` for IPv6 hosts. */
export function parseHostPort(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535)
    throw new UsageError(`--callback-listen must be HOST:PORT (e.g. 127.0.0.1:8787), not "${value}"`);
  return { host: match[1] ?? match[2] ?? '', port };
}

const patterns = (values: string[] | undefined): string[] =>
  (values ?? [])
    .flatMap((value) => value.split(','))
    .map((p) => p.trim())
    .filter((p) => p !== '');

/** A secret's flag, else its variable (an empty one counts as unset, as a blank `FOO=` line in a .env file). */
function secret(
  values: { [K in keyof typeof SECRET_VARIABLES]?: string | undefined },
  env: CliIo['env'],
  flag: keyof typeof SECRET_VARIABLES,
): string | undefined {
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
  if (!PROFILES.includes(profile as Profile))
    throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}, not "${profile}"`);
  let contract: Contract;
  const specPath = values.spec === undefined ? undefined : resolve(values.spec);
  try {
    contract = loadContract(specPath);
  } catch (error) {
    throw new UsageError(
      `--spec ${values.spec ?? ''}: cannot load the contract: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const listen = values['callback-listen'];
  // The token's variable is not among them: a CI job's environment may carry it for runs that do listen.
  const callbackFlags = [
    'callback-public-url',
    'callback-token',
    'callback-wait-ms',
    'callback-retry-interval-ms',
  ] as const;
  if (!listen && callbackFlags.some((flag) => values[flag] !== undefined)) {
    throw new UsageError(`${callbackFlags.map((flag) => `--${flag}`).join(', ')} need --callback-listen`);
  }
  const callbackToken = secret(values, env, 'callback-token');
  const callbacks: RunOptions['callbacks'] = listen
    ? {
        listen: parseHostPort(listen),
        ...(values['callback-public-url'] !== undefined
          ? { publicUrl: httpUrl(values['callback-public-url'], '--callback-public-url') }
          : {}),
        ...(callbackToken !== undefined ? { token: callbackToken } : {}),
        ...(values['callback-wait-ms'] !== undefined
          ? { waitMs: positiveInteger(values['callback-wait-ms'], '--callback-wait-ms', 0, 3_600_000) }
          : {}),
        ...(values['callback-retry-interval-ms'] !== undefined
          ? {
              retryIntervalMs: positiveInteger(
                values['callback-retry-interval-ms'],
                '--callback-retry-interval-ms',
                0,
                3_600_000,
              ),
            }
          : {}),
      }
    : undefined;
  const otherMerchantKey = secret(values, env, 'other-merchant-api-key');
  const otherModeKey = secret(values, env, 'other-mode-api-key');
  const isolation: RunOptions['isolation'] = {
    ...(otherMerchantKey !== undefined ? { otherMerchantKey } : {}),
    ...(otherModeKey !== undefined ? { otherModeKey } : {}),
  };
  for (const [flag, other] of [
    ['other-merchant-api-key', otherMerchantKey],
    ['other-mode-api-key', otherModeKey],
  ] as const) {
    // The same key twice would make every isolation case a read by the owner; the message never shows a key.
    if (other === apiKey)
      throw new UsageError(
        `${SECRET_VARIABLES[flag]} (--${flag}) is the same key as ${SECRET_VARIABLES['api-key']}: give a key of another merchant or mode`,
      );
  }
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
      checkRateLimit: values['check-rate-limit'] === true,
      ...(callbacks ? { callbacks } : {}),
      ...(Object.keys(isolation).length > 0 ? { isolation } : {}),
    },
    ...(values.junit !== undefined ? { junit: values.junit } : {}),
    ...(values.json !== undefined ? { json: values.json } : {}),
    verbose: values.verbose === true,
  };
}

function writeReport(file: string, text: string): void {
  mkdirSync(dirname(resolve(file)), { recursive: true });
  writeFileSync(file, text);
}

export async function main(
  argv: string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
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
  const problem = await preflight(contract, options);
  if (problem) {
    io.stderr.write(`payments-conformance: ${problem.message}\n`);
    return 2;
  }
  const progress = createProgress(io.stderr, undefined, { verbose: parsed.verbose });
  let summary: RunSummary;
  try {
    summary = await runConformance({ ...options, onResult: progress.onResult, onProgress: progress.onProgress });
  } catch (error) {
    progress.finish();
    io.stderr.write(
      `payments-conformance: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 2;
  }
  progress.finish();
  if (summary.results.length === 0) {
    io.stderr.write(
      `payments-conformance: --only/--skip left nothing to run (patterns: only ${options.only?.join(',') || '-'}, skip ${options.skip?.join(',') || '-'}).\n`,
    );
    return 2;
  }
  io.stdout.write(formatSummary(summary, { verbose: parsed.verbose }));
  try {
    if (parsed.junit) writeReport(parsed.junit, toJUnit(summary));
    if (parsed.json) {
      const info = contract.model;
      writeReport(
        parsed.json,
        toJsonReport(summary, {
          contract: {
            title: info.title,
            version: info.version,
            ...(options.specPath ? { specPath: options.specPath } : {}),
          },
        }),
      );
    }
  } catch (error) {
    io.stderr.write(
      `payments-conformance: cannot write a report: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 2;
  }
  return EXIT_STATUS[summary.verdict];
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
      process.stderr.write(
        `payments-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(2);
    },
  );
}
