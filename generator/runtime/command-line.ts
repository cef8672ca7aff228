// The command-line conventions every command of this repository keeps, in one place so they cannot drift:
// node's util.parseArgs in strict mode; -h/--help prints the usage and --version the package's version (both
// on stdout, exit 0); a command line that cannot be read (an unknown option, a missing value, a stray
// argument) prints the reason and the usage on stderr and exits 2; a value the command refuses prints the
// reason and a pointer to --help, also exit 2. Never a stack trace for a usage mistake.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { packageVersion } from './package-version.js';

type Options = NonNullable<ParseArgsConfig['options']>;

const STANDARD_OPTIONS = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } } as const;

/** The lines every usage text ends its option list with. */
export const STANDARD_USAGE_LINES = `  -h, --help                 show this help.
  --version                  print the version.`;

export interface Command<O extends Options> {
  /** What messages start with: the bin's name, or the npm script's. */
  name: string;
  usage: string;
  options: O;
  /** Arguments that are not options (default: refused). */
  allowPositionals?: boolean;
  /** The command's module (`import.meta.url`): --version reads the package.json nearest to it. */
  module: string;
}

type Config<O extends Options> = {
  args: string[];
  options: O & typeof STANDARD_OPTIONS;
  strict: true;
  allowPositionals: boolean;
};
export type CommandValues<O extends Options> = ReturnType<typeof parseArgs<Config<O>>>['values'];

/** What the command line asks for: text to print (help, version) and exit 0, or a run. */
export type CommandLine<O extends Options> =
  | { kind: 'print'; text: string }
  | { kind: 'run'; values: CommandValues<O>; positionals: string[] };

export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    /** The command line could not be read at all: show the whole usage, not only a pointer to it. */
    readonly showUsage = false,
  ) {
    super(message);
  }
}

/** Reads `argv` (without node and the script); throws UsageError when it cannot be read. */
export function parseCommandLine<O extends Options>(command: Command<O>, argv: readonly string[]): CommandLine<O> {
  let parsed: ReturnType<typeof parseArgs<Config<O>>>;
  try {
    parsed = parseArgs<Config<O>>({
      args: [...argv],
      options: { ...command.options, ...STANDARD_OPTIONS },
      strict: true,
      allowPositionals: command.allowPositionals ?? false,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), true);
  }
  // Read through the standard options' own type: TypeScript cannot narrow the values of a generic O.
  const standard: { help?: boolean; version?: boolean } = parsed.values;
  if (standard.help === true) return { kind: 'print', text: command.usage };
  if (standard.version === true) return { kind: 'print', text: packageVersion(command.module) };
  return { kind: 'run', values: parsed.values, positionals: parsed.positionals };
}

export interface Writable {
  write(text: string): unknown;
}

/** Prints a usage mistake the commands' one way; returns the exit status for it, 2. */
export function refuse(
  command: Pick<Command<Options>, 'name' | 'usage'>,
  error: UsageError,
  stderr: Writable = process.stderr,
): 2 {
  stderr.write(
    `${command.name}: ${error.message}\n${error.showUsage ? `\n${command.usage}\n` : 'Run with --help for every option.\n'}`,
  );
  return 2;
}

/**
 * For a command's main: the values to run with, or, when there is nothing to run (help, version, a command
 * line that cannot be read), the exit status after printing what there was to print.
 */
export function readCommandLine<O extends Options>(
  command: Command<O>,
  argv: readonly string[],
  streams: { stdout: Writable; stderr: Writable } = process,
): { values: CommandValues<O>; positionals: string[] } | number {
  let line: CommandLine<O>;
  try {
    line = parseCommandLine(command, argv);
  } catch (error) {
    if (error instanceof UsageError) return refuse(command, error, streams.stderr);
    throw error;
  }
  if (line.kind === 'print') {
    streams.stdout.write(`${line.text}\n`);
    return 0;
  }
  return line;
}
