// Each product folder is used by the others only through its package's declared entry points: a relative
// import never leaves its product folder, and a package names another workspace package only when its
// package.json depends on it (so the package manager links it and a published package lists it).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

export const PRODUCT_FOLDERS: readonly string[] = ['spec', 'generator', 'generated', 'conformance', 'sandbox'];

/** A tracked script: its path from the repository root (with `/`) and its text. */
export interface Script {
  path: string;
  text: string;
}

/** A package.json: the folder it sits in ('' for the root), its name and every package it depends on. */
export interface Manifest {
  folder: string;
  name: string;
  dependsOn: readonly string[];
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

/** Every module a script names: static imports and re-exports, `import()` (types included) and `require()`. */
export function specifiers(script: Script): string[] {
  return ts.preProcessFile(script.text, true, true).importedFiles.map((file) => file.fileName);
}

const topFolder = (path: string): string => path.split('/')[0] ?? '';

/** `file -> specifier` for every relative import that resolves outside its file's product folder. */
export function crossFolderImports(scripts: readonly Script[]): string[] {
  const found: string[] = [];
  for (const script of scripts) {
    const top = topFolder(script.path);
    if (!PRODUCT_FOLDERS.includes(top)) continue;
    for (const specifier of specifiers(script)) {
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) continue;
      const target = posix.normalize(posix.join(posix.dirname(script.path), specifier));
      if (topFolder(target) !== top) found.push(`${script.path} -> ${specifier}`);
    }
  }
  return found;
}

/** The package a name in an import belongs to: `@scope/name` or `name`, without the subpath. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** The manifest a file belongs to: the nearest package.json above it. */
function ownerOf(path: string, manifests: readonly Manifest[]): Manifest | undefined {
  let owner: Manifest | undefined;
  for (const manifest of manifests) {
    const inside = manifest.folder === '' || path.startsWith(`${manifest.folder}/`);
    if (inside && (!owner || manifest.folder.length > owner.folder.length)) owner = manifest;
  }
  return owner;
}

/** `file -> specifier (package)` for every import of a workspace package its own package.json does not depend on. */
export function undeclaredPackageImports(scripts: readonly Script[], manifests: readonly Manifest[]): string[] {
  const workspacePackages = new Set(manifests.filter((manifest) => manifest.folder !== '').map((m) => m.name));
  const found: string[] = [];
  for (const script of scripts) {
    const owner = ownerOf(script.path, manifests);
    if (!owner) continue;
    for (const specifier of specifiers(script)) {
      const name = packageOf(specifier);
      if (!workspacePackages.has(name) || name === owner.name || owner.dependsOn.includes(name)) continue;
      found.push(
        `${script.path} -> ${specifier} (${owner.folder || 'the root'}/package.json does not depend on ${name})`,
      );
    }
  }
  return found;
}

/** The repository's tracked scripts and manifests, as they are in the working tree. */
export function readRepository(root: string): { scripts: Script[]; manifests: Manifest[] } {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((path) => path !== '' && existsSync(join(root, path)));
  const scripts = tracked
    .filter((path) => /\.(?:[cm]?ts|[cm]?js)$/.test(path))
    .map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
  const manifests = tracked
    .filter((path) => path === 'package.json' || path.endsWith('/package.json'))
    .map((path) => {
      const json = JSON.parse(readFileSync(join(root, path), 'utf8')) as Record<string, unknown>;
      const dependsOn = DEPENDENCY_FIELDS.flatMap((field) => Object.keys((json[field] ?? {}) as object));
      return { folder: posix.dirname(path) === '.' ? '' : posix.dirname(path), name: String(json.name), dependsOn };
    });
  return { scripts, manifests };
}
