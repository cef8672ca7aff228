import { describe, expect, it } from 'vitest';
import { packageVersion } from './package-version.js';
import { parseCommandLine, readCommandLine, refuse, UsageError, type Command } from './command-line.js';

const USAGE = 'Usage: demo [--port PORT] [--only NAME]...';
const demo = {
  name: 'demo',
  usage: USAGE,
  module: import.meta.url,
  options: { port: { type: 'string' }, only: { type: 'string', multiple: true }, strict: { type: 'boolean' } },
} as const satisfies Command<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>;

function run(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const result = readCommandLine(demo, argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { result, stdout, stderr };
}

describe('readCommandLine', () => {
  it.each([['-h'], ['--help'], ['--port', '1', '--help']])(
    'prints the usage on stdout and exits 0 for %s',
    (...argv) => {
      expect(run(argv)).toEqual({ result: 0, stdout: `${USAGE}\n`, stderr: '' });
    },
  );

  it("prints the version of the package.json nearest to the command's module and exits 0 for --version", () => {
    expect(run(['--version'])).toEqual({ result: 0, stdout: `${packageVersion(import.meta.url)}\n`, stderr: '' });
    expect(packageVersion(import.meta.url)).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    ['an unknown option', ['--colour'], "Unknown option '--colour'"],
    ['an option without its value', ['--port'], "Option '--port <value>' argument missing"],
    ['an option whose value is the next option', ['--port', '--strict'], "Option '--port' argument is ambiguous"],
    ['a value given to a switch', ['--strict=yes'], "Option '--strict' does not take an argument"],
    ['a stray argument', ['extra'], "Unexpected argument 'extra'"],
  ])('refuses %s with the reason and the usage on stderr, exit 2', (_what, argv, reason) => {
    const { result, stdout, stderr } = run(argv);
    expect(result).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.startsWith(`demo: ${reason}`)).toBe(true);
    expect(stderr.endsWith(`\n\n${USAGE}\n`)).toBe(true);
  });

  it('hands over the values to run with', () => {
    expect(run(['--port', '3000', '--only', 'a', '--only=b', '--strict'])).toMatchObject({
      result: { values: { port: '3000', only: ['a', 'b'], strict: true }, positionals: [] },
      stdout: '',
      stderr: '',
    });
  });
});

describe('parseCommandLine', () => {
  it('throws a UsageError that asks for the usage when the command line cannot be read', () => {
    expect(() => parseCommandLine(demo, ['--colour'])).toThrow(
      expect.objectContaining({ name: 'UsageError', showUsage: true }),
    );
  });

  it('takes positional arguments only from a command that allows them', () => {
    expect(parseCommandLine({ ...demo, allowPositionals: true }, ['a', '--port', '1'])).toMatchObject({
      kind: 'run',
      positionals: ['a'],
      values: { port: '1' },
    });
  });
});

describe('refuse', () => {
  it('points a value the command refuses to --help instead of repeating the usage', () => {
    let stderr = '';
    expect(
      refuse(demo, new UsageError('--port must be a port number, not "x"'), {
        write: (text: string) => (stderr += text),
      }),
    ).toBe(2);
    expect(stderr).toBe('demo: --port must be a port number, not "x"\nRun with --help for every option.\n');
  });
});
