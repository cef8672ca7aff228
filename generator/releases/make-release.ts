// The release behind `npm run release` (release.ts reads its command line and loads this only to make one, so
// --help, --version and a usage mistake answer without loading the change check and the changelog): the
// contract's version and the packages' raised, and everything that follows them written again.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonObject } from '../model/types.js';
import { diffContracts } from '../diff/diff.js';
import { expectedDescription, readWorkingContract, recordRelease, releaseFiles } from './changelog.js';
import { compareVersions, readReleases } from './releases.js';
import { PUBLISHED, PINNING, releaseLayout } from './in-step.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export type Level = 'major' | 'minor' | 'patch';

/** `1.5.0` raised by `minor` is `1.6.0`. */
export function raise(version: string, level: Level): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`${version} is not a version as MAJOR.MINOR.PATCH`);
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (level === 'major') return `${major + 1}.0.0`;
  if (level === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/**
 * What a contract change does to the packages generated from it: a change that breaks clients or callback
 * receivers (who install the client) breaks the packages' users, major; any other change to what the contract
 * states adds to them, minor; descriptions only, patch.
 */
export function packagesLevel(before: JsonObject, after: JsonObject): Level {
  const { findings } = diffContracts(before, after);
  if (findings.some((finding) => finding.severity === 'breaking' && finding.party !== 'server')) return 'major';
  return findings.length > 0 ? 'minor' : 'patch';
}

/** spec/openapi.yaml with info.version set (the one `version:` line of the top-level `info:` block). */
export function withInfoVersion(yaml: string, version: string): string {
  const pattern = /^(info:\n(?:[ \t]+.*\n|\n)*?[ \t]+version:[ \t]*)(\S+)(.*)$/m;
  if (!pattern.test(yaml)) throw new Error('spec/openapi.yaml has no info.version line');
  return yaml.replace(pattern, `$1${version}$3`);
}

const readJson = (path: string): JsonObject => JSON.parse(readFileSync(path, 'utf8')) as JsonObject;
const writeJson = (path: string, value: unknown): void => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

/** `npm run bundle`'s bundle of the service contract, in the checkout at `root`. */
async function bundle(root: string): Promise<void> {
  const manifest = require.resolve('@redocly/cli/package.json');
  const bin = (require(manifest) as { bin: Record<string, string> }).bin.redocly ?? '';
  await run(
    process.execPath,
    [
      join(dirname(manifest), bin),
      'bundle',
      'spec/openapi.yaml',
      '--ext',
      'json',
      '--output',
      'generated/contract/openapi.json',
    ],
    { cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, maxBuffer: 16 * 1024 * 1024 },
  );
}

/** The packages' version, the manifests generated with it, the pins of the packages using them and the lock file. */
async function setPackagesVersion(root: string, version: string): Promise<void> {
  const layout = releaseLayout(root);
  writeJson(layout.packagesVersion, { ...readJson(layout.packagesVersion), version });
  const generated = join(root, 'generated/');
  // Loaded when needed: the emitters take seconds to load, which --help and --version need not wait for.
  const { generateAll, write } = await import('../generate.js');
  write(
    await generateAll(
      readJson(join(generated, 'contract/openapi.json')),
      readJson(join(generated, 'contract/sandbox/openapi.json')),
      version,
    ),
    generated,
  );
  for (const folder of PINNING) {
    const path = join(root, folder, 'package.json');
    const manifest = readJson(path);
    const dependencies = manifest.dependencies as Record<string, string>;
    for (const name of PUBLISHED) if (name in dependencies) dependencies[name] = version;
    writeJson(path, manifest);
  }
  // The lock file as `npm install` would write it: the workspaces' versions and the pins on them.
  const lock = readJson(layout.lock) as {
    packages: Record<string, { name?: string; version?: string; dependencies?: Record<string, string> }>;
  };
  for (const entry of Object.values(lock.packages)) {
    if (entry.name !== undefined && (PUBLISHED as readonly string[]).includes(entry.name)) entry.version = version;
    for (const name of PUBLISHED) if (entry.dependencies?.[name] !== undefined) entry.dependencies[name] = version;
  }
  writeJson(layout.lock, lock);
}

export interface ReleaseOptions {
  /** The new contract version (info.version). */
  contract?: string;
  /** With `contract`: record it as released on this date (YYYY-MM-DD). */
  date?: string;
  /** A release of the packages alone, by this level. */
  packages?: Level;
}

/** What the release did, for the one line the command prints. */
export interface Released {
  contract: string;
  packages: string;
  level: Level;
}

/** Makes the release in the checkout at `root`. */
export async function release(root: string, options: ReleaseOptions): Promise<Released> {
  const layout = releaseLayout(root);
  const files = releaseFiles(root);
  const current = (readJson(layout.packagesVersion) as { version: string }).version;
  if (options.contract === undefined) {
    const level = options.packages ?? 'patch';
    const packages = raise(current, level);
    await setPackagesVersion(root, packages);
    return { contract: String((readWorkingContract(files).info as JsonObject).version), packages, level };
  }
  const contract = options.contract;
  const before = readWorkingContract(files);
  const releases = readReleases(files.releases);
  const last = releases.at(-1);
  const workingVersion = String((before.info as JsonObject).version);
  // The working version itself may be released (it is above the last release, the changelog says "unreleased").
  if (compareVersions(contract, workingVersion) < 0)
    throw new Error(`--contract ${contract} is below the working contract's ${workingVersion}`);
  if (last && compareVersions(contract, last.version) <= 0)
    throw new Error(`--contract ${contract} is not above the last release ${last.version}`);
  writeFileSync(layout.spec, withInfoVersion(readFileSync(layout.spec, 'utf8'), contract));
  await bundle(root);
  const working = readWorkingContract(files);
  if (options.date !== undefined) recordRelease(options.date, working, files);
  writeFileSync(files.description, expectedDescription(working, files));
  await bundle(root);
  // The packages answer to the contract of the last release before this one: what their users had.
  const baseline = releases.filter((entry) => compareVersions(entry.version, contract) < 0).at(-1);
  const level = baseline ? packagesLevel(baseline.doc, readWorkingContract(files)) : 'major';
  const packages = raise(current, level);
  await setPackagesVersion(root, packages);
  return { contract, packages, level };
}
