// The hand-written packages the published ones are made with: generator/runtime, generator/model and
// generator/diff (`@payments-contract/runtime`, `/model`, `/diff`). They are private: emitted code imports
// them by name, and the build (generator/build-packages.ts) puts the modules a published package reaches into
// its own dist/, under src/<folder>/ as in the repository, so a user installs the three published packages only.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PRIVATE_FOLDERS = ['runtime', 'model', 'diff'] as const;
export type PrivateFolder = (typeof PRIVATE_FOLDERS)[number];

const SCOPE = '@payments-contract/';

/** Where a private package's sources are (generator/<folder>/). */
export const privatePackageDir = (folder: PrivateFolder): string =>
  fileURLToPath(new URL(`../${folder}/`, import.meta.url));

interface PrivateManifest {
  name: string;
  version: string;
  exports: Record<string, string | { source: string }>;
}

const manifests = new Map<PrivateFolder, PrivateManifest>();

/** A private package's package.json, read once. */
export function privateManifest(folder: PrivateFolder): PrivateManifest {
  let manifest = manifests.get(folder);
  if (!manifest) {
    manifest = JSON.parse(readFileSync(`${privatePackageDir(folder)}package.json`, 'utf8')) as PrivateManifest;
    manifests.set(folder, manifest);
  }
  return manifest;
}

export interface PrivateModule {
  /** The module's source file, absolute. */
  file: string;
  /** Where a published package carries it, relative to its src/ (and dist/): `runtime/router.ts`. */
  placed: string;
}

const isPrivateFolder = (name: string): name is PrivateFolder => (PRIVATE_FOLDERS as readonly string[]).includes(name);

/**
 * The module an import of a private package names (`@payments-contract/runtime/router`), found through the
 * package's exports (their `source` condition); undefined for any other specifier. A subpath the package does
 * not export is an error, as it would be for Node.js.
 */
export function privateModule(specifier: string): PrivateModule | undefined {
  if (!specifier.startsWith(SCOPE)) return undefined;
  const [folder, ...rest] = specifier.slice(SCOPE.length).split('/');
  if (folder === undefined || !isPrivateFolder(folder)) return undefined;
  const subpath = rest.length === 0 ? '.' : `./${rest.join('/')}`;
  const entry = privateManifest(folder).exports[subpath];
  if (entry === undefined || typeof entry === 'string')
    throw new Error(`${specifier}: ${SCOPE}${folder} exports no module ${subpath}`);
  const relativePath = entry.source.replace(/^\.\//, '');
  return { file: `${privatePackageDir(folder)}${relativePath}`, placed: `${folder}/${relativePath}` };
}

/** Where a published package carries a private package's source file (absolute path), or undefined. */
export function placedPathOf(file: string): string | undefined {
  for (const folder of PRIVATE_FOLDERS) {
    const dir = privatePackageDir(folder);
    if (file.startsWith(dir)) return `${folder}/${file.slice(dir.length)}`;
  }
  return undefined;
}
