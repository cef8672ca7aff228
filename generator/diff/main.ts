// `payments-contract diff OLD NEW` (and `npm run diff -- OLD NEW`): what changed between two versions of
// the contract, and whom it breaks. Exit status: 0 nothing at or above --fail-on; 1 something is; 2 a
// command line or a contract argument that cannot be used.
import { fileURLToPath } from 'node:url';
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
  type Writable,
} from '@payments-contract/runtime/command-line';
import { diffContracts } from './diff.js';
import { atLeast, formatJson, formatMarkdown, formatText } from './format.js';
import { ContractArgumentError, DOCUMENT_ROOTS, loadContract, type DocumentKind } from './load.js';
import { PARTIES, type Party, type Severity } from './types.js';

export const USAGE = `Usage: payments-contract diff OLD NEW [options]

Compares two versions of the Payments API contract and classifies every difference for each party it
reaches: client (calls the service), server (implements it), callback-receiver (the merchant's endpoint
for callbacks, where the direction flips). Beyond paths and schemas it compares the contract's
semantics: error codes per status and per rule (x-error-codes, x-error-triggers, x-validation-error),
state machines, callback delivery (x-delivery), test-mode values and decisions.

OLD and NEW are each:
  a bundled contract file     e.g. generated/contract/openapi.json
  git:REV                     spec/ at a git revision, bundled with @redocly/cli
                              e.g. git:origin/main
  REV                         the same, when no file has that name
                              e.g. HEAD~3

Options:
  --format FORMAT            text (default), markdown (a pull-request comment) or json.
                             e.g. --format markdown
  --fail-on SEVERITY         exit 1 when a change is at least this severe for a reported party:
                             breaking or potentially-breaking (default: always exit 0).
                             e.g. --fail-on breaking
  --party LIST               report (and fail on) only these parties, comma-separated
                             (default client,server,callback-receiver).
                             e.g. --party client,callback-receiver
  --document NAME            which contract of a git revision: service (${DOCUMENT_ROOTS.service}, default)
                             or control (${DOCUMENT_ROOTS.control}, the sandbox control API).
                             e.g. --document control
${STANDARD_USAGE_LINES}

Exit status: 0 nothing at or above --fail-on; 1 a change is; 2 bad usage or an unreadable contract.

Example (a pull request against its base branch):
  payments-contract diff git:origin/main git:HEAD --format markdown --fail-on breaking`;

const OPTIONS = {
  format: { type: 'string' },
  'fail-on': { type: 'string' },
  party: { type: 'string' },
  document: { type: 'string' },
} as const;

export const COMMAND = {
  name: 'payments-contract diff',
  usage: USAGE,
  options: OPTIONS,
  allowPositionals: true,
  module: import.meta.url,
} as const;

const FORMATS = { text: formatText, markdown: formatMarkdown, json: formatJson } as const;

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  fallback: T | undefined,
  option: string,
): T | undefined {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${option} must be one of ${allowed.join(', ')}, not ${value}`);
  return value as T;
}

/** Runs the command; returns the exit status. `argv` may start with the subcommand `diff`. */
export function runDiff(
  argv: readonly string[],
  streams: { stdout: Writable; stderr: Writable } = process,
  cwd: string = process.cwd(),
): number {
  const line = readCommandLine(COMMAND, argv, streams);
  if (typeof line === 'number') return line;
  try {
    const positionals = line.positionals[0] === 'diff' ? line.positionals.slice(1) : line.positionals;
    if (positionals.length !== 2)
      throw new UsageError(
        `expected OLD and NEW, got ${positionals.length} argument${positionals.length === 1 ? '' : 's'}`,
        true,
      );
    const format =
      oneOf(line.values.format, Object.keys(FORMATS) as (keyof typeof FORMATS)[], 'text', 'format') ?? 'text';
    const failOn = oneOf<Severity>(line.values['fail-on'], ['breaking', 'potentially-breaking'], undefined, 'fail-on');
    const document =
      oneOf<DocumentKind>(line.values.document, ['service', 'control'], 'service', 'document') ?? 'service';
    const parties = (line.values.party ?? PARTIES.join(','))
      .split(',')
      .map((party) => oneOf<Party>(party.trim(), PARTIES, undefined, 'party') as Party);
    const [oldArgument, newArgument] = positionals as [string, string];
    const old = loadContract(oldArgument, document, cwd);
    const neu = loadContract(newArgument, document, cwd);
    const result = diffContracts(old.doc, neu.doc);
    const reported = { ...result, findings: result.findings.filter((finding) => parties.includes(finding.party)) };
    streams.stdout.write(FORMATS[format](reported));
    return failOn !== undefined && reported.findings.some((finding) => atLeast(finding, failOn)) ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) return refuse(COMMAND, error, streams.stderr);
    if (error instanceof ContractArgumentError) {
      streams.stderr.write(`${COMMAND.name}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = runDiff(process.argv.slice(2));
