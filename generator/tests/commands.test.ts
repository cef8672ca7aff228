// Every command people run keeps the same conventions, run as people run it (the bin, the npm script):
// --version prints the version of its package, -h prints the usage, and an unknown option prints the reason
// and the usage with exit status 2, never a stack trace.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../runtime/package-version.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NPM_CONFIG_UPDATE_NOTIFIER: 'false' };
    execFile(file, args, { cwd: repoRoot, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

// [how people run it, the module --version reads the package of, how to run it with arguments]
const COMMANDS: [string, string, (args: string[]) => Promise<Ran>][] = [
  [
    'payments-conformance',
    'conformance/dist/bin.js',
    (args) => run(process.execPath, ['conformance/dist/bin.js', ...args]),
  ],
  ['payments-sandbox', 'sandbox/dist/bin.js', (args) => run(process.execPath, ['sandbox/dist/bin.js', ...args])],
  ['npm run mock', 'conformance/mock/main.ts', (args) => run('npm', ['run', '--silent', 'mock', '--', ...args])],
  ['npm run bench', 'sandbox/bench/bench.ts', (args) => run('npm', ['run', '--silent', 'bench', '--', ...args])],
  [
    'npm run bench:reopen',
    'sandbox/bench/reopen.ts',
    (args) => run('npm', ['run', '--silent', 'bench:reopen', '--', ...args]),
  ],
  [
    'npm run bench:generator',
    'generator/bench.ts',
    (args) => run('npm', ['run', '--silent', 'bench:generator', '--', ...args]),
  ],
  [
    'npm run bench:install',
    'generator/bench-install.ts',
    (args) => run('npm', ['run', '--silent', 'bench:install', '--', ...args]),
  ],
  [
    'npm run release',
    'generator/releases/release.ts',
    (args) => run('npm', ['run', '--silent', 'release', '--', ...args]),
  ],
  [
    'npm run bench:conformance',
    'conformance/bench/full-run.ts',
    (args) => run('npm', ['run', '--silent', 'bench:conformance', '--', ...args]),
  ],
  [
    'npm run bench:server',
    'generator/bench-server/bench.ts',
    (args) => run('npm', ['run', '--silent', 'bench:server', '--', ...args]),
  ],
];

const STACK_LINE = /^\s+at /m;

describe.concurrent('every command', () => {
  it.each(COMMANDS)(
    '%s answers --version, -h and an unknown option',
    async (_name, module, command) => {
      const version = await command(['--version']);
      expect(version).toMatchObject({
        code: 0,
        stdout: `${packageVersion(new URL(`../../${module}`, import.meta.url).href)}\n`,
      });

      const help = await command(['-h']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^Usage: /);
      expect(help.stdout).toContain('--version');

      const unknown = await command(['--no-such-option']);
      expect(unknown.code).toBe(2);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toContain("Unknown option '--no-such-option'");
      expect(unknown.stderr).toContain(`\n\n${help.stdout}`);
      expect(unknown.stderr).not.toMatch(STACK_LINE);
    },
    120_000,
  );
});
