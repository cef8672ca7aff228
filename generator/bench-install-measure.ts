// The install benchmark behind `npm run bench:install` (bench-install.ts reads its command line and loads this
// only to run it).
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

/** Packs, installs and times every package, `runs` times each --version; prints the table. */
export async function benchInstall(runs: number): Promise<number> {
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
