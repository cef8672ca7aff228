// `npm run bench:install`: what installing each package costs its user, measured on the tarballs `npm pack`
// makes of what `npm run build` last built, each installed into a fresh project outside the repository:
// the tarball's size, the installed size and number of packages (the package and everything it brings),
// and for a package with a bin the wall time of `npx <bin> --version` there (median of several runs).
// Goals: the client installs at most 3 packages; the conformance CLI starts in under 1 s.
// Figures, not assertions (packed.test.ts asserts the package count): machines are shared and noisy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '@payments-contract/conformance/testing';
import {
  installedBytes,
  installedPackages,
  installProject,
  packPackages,
  runCommand,
  tarballsFor,
  userEnvironment,
  type InstallOptions,
} from './packed.js';
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

/** One project to install: a package, or the sandbox again with its optional better-sqlite3. */
interface Row {
  label: string;
  package: string;
  install?: InstallOptions;
}

const ROWS: Row[] = [
  { label: 'contract', package: 'contract' },
  { label: 'client', package: 'client' },
  { label: 'server', package: 'server' },
  { label: 'conformance', package: 'conformance' },
  // The default store needs nothing native: a user who never picks --store sqlite can leave it out.
  { label: 'sandbox (--omit=optional)', package: 'sandbox', install: { omitOptional: true } },
  // Its install script compiles better-sqlite3 (a minute or more without a prebuilt binary): counted, not run.
  { label: 'sandbox + better-sqlite3', package: 'sandbox', install: { ignoreScripts: true } },
];

async function timeVersion(folder: string, args: string[], runs: number): Promise<number> {
  const [file, ...rest] = args as [string, ...string[]];
  const times: number[] = [];
  // One run first that counts for nothing: it reads the files from disk into the cache.
  for (let run = 0; run <= runs; run++) {
    const ran = await runCommand(file, rest, { cwd: folder, env: userEnvironment() });
    if (ran.code !== 0) throw new Error(`${args.join(' ')} exited ${String(ran.code)}:\n${ran.stderr}`);
    if (run > 0) times.push(ran.ms);
  }
  return median(times);
}

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;
const MB = (bytes: number): string => `${(bytes / 1_000_000).toFixed(2)} MB`;
const ms = (value: number | undefined): string => (value === undefined ? '' : `${Math.round(value)} ms`);

async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const runs = Number(line.values.runs ?? '7');
  if (!Number.isInteger(runs) || runs < 1)
    return refuse(
      COMMAND,
      new UsageError(`--runs must be a whole number of at least 1, not "${line.values.runs ?? ''}"`),
    );

  const work = mkdtempSync(join(tmpdir(), 'payments-bench-install-'));
  try {
    const packed = await packPackages(join(work, 'tarballs'));
    const table: Record<string, Record<string, string | number | boolean>> = {};
    for (const row of ROWS) {
      const pkg = packed.get(row.package);
      if (!pkg) throw new Error(`${row.package} was not packed`);
      const folder = join(work, row.label.replace(/\W+/g, '-'));
      const installMs = await installProject(folder, tarballsFor(packed, row.package), row.install);
      const packages = installedPackages(folder).length;
      const bin = row.install?.ignoreScripts ? undefined : pkg.bins[0];
      const npx = bin === undefined ? undefined : await timeVersion(folder, ['npx', bin, '--version'], runs);
      const direct =
        bin === undefined
          ? undefined
          : await timeVersion(folder, [join(folder, 'node_modules/.bin', bin), '--version'], runs);
      const goal =
        row.package === 'client'
          ? `<= 3 packages: ${packages <= 3 ? 'met' : 'NOT met'}`
          : row.package === 'conformance' && npx !== undefined
            ? `npx < 1 s: ${npx < 1000 ? 'met' : 'NOT met'}`
            : '';
      table[row.label] = {
        tarball: kB(pkg.size),
        installed: MB(installedBytes(folder)),
        packages,
        'npx <bin> --version': ms(npx),
        'the bin alone': ms(direct),
        'install (warm cache)': `${(installMs / 1000).toFixed(1)} s`,
        goal,
      };
    }
    console.log(
      `install benchmark (Node.js ${process.versions.node}; medians of ${runs} runs; a package's tarball alone, everything it installs counted)`,
    );
    console.table(table);
    console.log(
      '"the bin alone" runs node_modules/.bin/<bin> without npx: the rest of the npx figure is npm finding the bin.',
    );
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
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
