// `npm run bench:install`: what installing each package costs its user, measured on the tarballs `npm pack`
// makes of what `npm run build` last built, each installed into a fresh project outside the repository:
// the tarball's size, the installed size and number of packages (the package and everything it brings),
// and for a package with a bin the wall time of `npx <bin> --version` there (median of several runs).
// Goals: the client installs at most 3 packages; the conformance CLI starts in under 1 s.
// Figures, not assertions (packed.test.ts asserts the package count): machines are shared and noisy.
// This module is the command line alone: the benchmark (bench-install-measure.ts) is loaded only to run, so
// --help, --version and a usage mistake answer without loading the packing tools and the conformance suite.
import { readCommandLine, refuse, STANDARD_USAGE_LINES, UsageError } from './runtime/command-line.js';

const COMMAND = {
  name: 'bench:install',
  usage: `Usage: npm run bench:install -- [--runs N]

Packs every package (npm pack) from its last build (npm run build; npm install runs it), installs each
tarball into a fresh project in a temporary folder, and prints per package: the tarball's size, the
installed size and number of installed packages, and the wall time of \`npx <bin> --version\` (median).
Goals: the client installs at most 3 packages; \`npx payments-conformance --version\` under 1 s.

  --runs N                   runs of each \`--version\` timed (default 7)
${STANDARD_USAGE_LINES}

Example: npm run bench:install -- --runs 11`,
  options: { runs: { type: 'string' } },
  module: import.meta.url,
} as const;

async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const runs = Number(line.values.runs ?? '7');
  if (!Number.isInteger(runs) || runs < 1)
    return refuse(
      COMMAND,
      new UsageError(`--runs must be a whole number of at least 1, not "${line.values.runs ?? ''}"`),
    );

  const { benchInstall } = await import('./bench-install-measure.js');
  return benchInstall(runs);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
