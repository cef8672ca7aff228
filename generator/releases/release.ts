// `npm run release`: a release in one command; nothing is edited by hand.
//   --contract VERSION [--date YYYY-MM-DD]   a new contract version: info.version in spec/openapi.yaml raised,
//       the contract bundled, the release recorded in spec/releases/ when dated, the changelog rewritten and the
//       contract bundled again; the packages' version raised by the level the change check gives (see
//       `packagesLevel`, make-release.ts), generated/ written again, and every pin and the lock file following it.
//   --packages patch|minor|major   the packages alone (a runtime fix): their version raised, the manifests, pins
//       and lock file following it; the contract stays as it is.
// In step: `outOfStep` (in-step.ts) lists what disagrees; a test runs it on the repository.
// This module is the command line alone: the release (make-release.ts) is loaded only to make one.
import { fileURLToPath } from 'node:url';
import { readCommandLine, STANDARD_USAGE_LINES } from '../runtime/command-line.js';
import type { Level, Released } from './make-release.js';

const LEVELS: readonly Level[] = ['major', 'minor', 'patch'];
const isLevel = (value: string): value is Level => (LEVELS as readonly string[]).includes(value);

const COMMAND = {
  name: 'release',
  usage: `Usage: npm run release -- --contract VERSION [--date YYYY-MM-DD]
       npm run release -- --packages patch|minor|major

A release in one command; review the changes with git diff, run npm run build, commit.

  --contract VERSION   a new contract version: raises info.version in spec/openapi.yaml, bundles, rewrites
                       the changelog (spec/info-description.md) and bundles again, raises the version of the
                       contract, client and server packages by the level the change check gives against the
                       last release (breaks clients: major; other changes: minor; descriptions only: patch),
                       generates generated/ and updates the pins in conformance/ and sandbox/ and the lock file.
                       e.g. --contract 1.6.0
  --date YYYY-MM-DD    with --contract: also record it in spec/releases/ as released on that date.
  --packages LEVEL     the packages alone (a runtime fix): their version raised by LEVEL, manifests, pins and
                       lock file following. e.g. --packages patch
${STANDARD_USAGE_LINES}`,
  options: { contract: { type: 'string' }, date: { type: 'string' }, packages: { type: 'string' } },
  module: import.meta.url,
} as const;

/** The command on `args`, in the checkout at `root`; its exit status. */
export async function runRelease(
  args: readonly string[],
  root: string,
  out: (text: string) => void = (text) => process.stdout.write(text),
): Promise<number> {
  const line = readCommandLine(COMMAND, [...args]);
  if (typeof line === 'number') return line;
  const { contract, date, packages } = line.values;
  const refuse = (message: string): number => {
    process.stderr.write(`release: ${message} (npm run release -- --help)\n`);
    return 2;
  };
  if ((contract === undefined) === (packages === undefined))
    return refuse('give --contract VERSION or --packages LEVEL');
  if (packages !== undefined && !isLevel(packages))
    return refuse(`--packages is patch, minor or major, not ${packages}`);
  if (date !== undefined && contract === undefined) return refuse('--date goes with --contract');
  let released: Released;
  try {
    const { release } = await import('./make-release.js');
    released = await release(root, {
      ...(contract !== undefined ? { contract } : {}),
      ...(date !== undefined ? { date } : {}),
      ...(packages !== undefined && isLevel(packages) ? { packages } : {}),
    });
  } catch (error) {
    process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  out(
    `Contract ${released.contract}; packages ${released.packages} (${released.level}). Review with git diff, run npm run build, commit.\n`,
  );
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = await runRelease(process.argv.slice(2), fileURLToPath(new URL('../../', import.meta.url)));
