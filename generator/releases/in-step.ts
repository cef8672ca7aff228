// What a release keeps in step, and the check that it is: the packages' one version (generator/packages/
// version.json) in their manifests, the pins of the packages using them and the lock file; the contract's
// version (info.version in spec/openapi.yaml) in the bundle, the manifests and the changelog's newest entry.
// `npm run release` writes all of it; in-step.test.ts fails when anything disagrees.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CHANGELOG_END, CHANGELOG_START } from './changelog.js';

/** The packages generated from the contract, released together at one version. */
export const PUBLISHED = [
  '@payments-contract/contract',
  '@payments-contract/client',
  '@payments-contract/server',
] as const;
/** The folders whose package.json pins them exactly. */
export const PINNING = ['conformance', 'sandbox'] as const;

/** The files of a release, in the checkout at `root`. */
export function releaseLayout(root: string) {
  return {
    spec: join(root, 'spec/openapi.yaml'),
    bundle: join(root, 'generated/contract/openapi.json'),
    description: join(root, 'spec/info-description.md'),
    packagesVersion: join(root, 'generator/packages/version.json'),
    lock: join(root, 'package-lock.json'),
    /** A published package's manifest, by name. */
    manifest: (name: string): string => join(root, 'generated', name.slice(name.indexOf('/') + 1), 'package.json'),
  };
}

type Json = Record<string, unknown>;
const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json;
const versionOf = (document: Json): string => String((document.info as Json | undefined)?.version);

/** The release of the newest entry of the changelog in the contract's description (`**1.6.0**, unreleased:`). */
export function newestChangelogRow(description: string): string | undefined {
  const changelog = description.slice(description.indexOf(CHANGELOG_START), description.indexOf(CHANGELOG_END));
  return /^\*\*([^*]+)\*\*, [^\n]+:$/m.exec(changelog)?.[1];
}

/** Everything out of step in the checkout at `root`, one sentence each; empty when the release is whole. */
export function outOfStep(root: string): string[] {
  const layout = releaseLayout(root);
  const found: string[] = [];
  const packages = String(readJson(layout.packagesVersion).version);
  const contract = versionOf(parseYaml(readFileSync(layout.spec, 'utf8')) as Json);
  const bundled = versionOf(readJson(layout.bundle));
  if (bundled !== contract)
    found.push(`generated/contract/openapi.json is contract ${bundled}, spec/openapi.yaml says ${contract}`);
  const newest = newestChangelogRow(readFileSync(layout.description, 'utf8'));
  if (newest !== contract)
    found.push(`the changelog's newest entry is ${String(newest)}, spec/openapi.yaml says contract ${contract}`);
  for (const name of PUBLISHED) {
    const manifest = readJson(layout.manifest(name));
    if (manifest.version !== packages)
      found.push(`${name} is version ${String(manifest.version)}, generator/packages/version.json says ${packages}`);
    if (manifest['x-contract-version'] !== contract)
      found.push(
        `${name} carries contract ${String(manifest['x-contract-version'])}, spec/openapi.yaml says ${contract}`,
      );
  }
  const lock = readJson(layout.lock).packages as Record<string, { name?: string; version?: string } & Json>;
  for (const [path, entry] of Object.entries(lock)) {
    if (entry.name !== undefined && (PUBLISHED as readonly string[]).includes(entry.name) && entry.version !== packages)
      found.push(`package-lock.json: ${path} is version ${String(entry.version)}, the packages are ${packages}`);
  }
  for (const folder of PINNING) {
    const pins = [readJson(join(root, folder, 'package.json')).dependencies, lock[folder]?.dependencies] as (
      | Record<string, string>
      | undefined
    )[];
    for (const [where, dependencies] of pins.map(
      (pin, index) => [index === 0 ? `${folder}/package.json` : `package-lock.json (${folder})`, pin] as const,
    ))
      for (const name of PUBLISHED)
        if (dependencies?.[name] !== undefined && dependencies[name] !== packages)
          found.push(`${where} pins ${name} ${dependencies[name]}, the packages are ${packages}`);
  }
  return found;
}
