// `npm run build` (also run by `npm install` through `prepare`): compiles every package to the JavaScript
// and declarations it ships, in dependency order: the contract (and its Redoc pages), the client and the
// server from generated/, then the conformance suite and the sandbox. Nothing a package runs is TypeScript.
//   --only contract,client   build just these
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CONTRACT_DOCUMENTS } from './emit/packages.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

export interface PackageBuild {
  name: string;
  /** The package's folder, relative to the repository. */
  folder: string;
  /** Its tsconfig, relative to the folder. */
  tsconfig: string;
  /** JavaScript and declaration files under src/ that are shipped as they are (the compiled validators). */
  copiesSources?: boolean;
  /** Builds its Redoc pages. */
  docs?: boolean;
}

export const PACKAGE_BUILDS: readonly PackageBuild[] = [
  { name: 'contract', folder: 'generated/contract', tsconfig: 'tsconfig.json', docs: true },
  { name: 'client', folder: 'generated/client', tsconfig: 'tsconfig.json', copiesSources: true },
  { name: 'server', folder: 'generated/server', tsconfig: 'tsconfig.json', copiesSources: true },
  { name: 'conformance', folder: 'conformance', tsconfig: 'tsconfig.build.json' },
  { name: 'sandbox', folder: 'sandbox', tsconfig: 'tsconfig.build.json' },
];


function binOf(pkg: string, name: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin: Record<string, string> | string };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[name];
  if (!bin) throw new Error(`${pkg} has no bin ${name}`);
  return join(dirname(manifestPath), bin);
}

function copyShippedSources(folder: string): number {
  const src = join(folder, 'src');
  let copied = 0;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !(entry.name.endsWith('.js') || entry.name.endsWith('.d.ts'))) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(folder, 'dist', relative(src, from));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    copied++;
  }
  return copied;
}

async function buildDocs(folder: string): Promise<void> {
  const redocly = binOf('@redocly/cli', 'redocly');
  await Promise.all(
    CONTRACT_DOCUMENTS.map(async ({ spec, page, title }) => {
      mkdirSync(dirname(join(folder, page)), { recursive: true });
      await run(process.execPath, [redocly, 'build-docs', join(folder, spec), '--inlineBundle', '--title', title, '--output', join(folder, page)], { env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, maxBuffer: 16 * 1024 * 1024 });
    }),
  );
}

export async function buildPackage(build: PackageBuild): Promise<void> {
  const folder = join(repoRoot, build.folder);
  // A file removed from the sources must not live on in the package.
  rmSync(join(folder, 'dist'), { recursive: true, force: true });
  const tsc = binOf('typescript', 'tsc');
  const work: Promise<unknown>[] = [run(process.execPath, [tsc, '-p', join(folder, build.tsconfig)], { maxBuffer: 16 * 1024 * 1024 }).catch((error: { stdout?: string; message: string }) => {
    throw new Error(`tsc failed for ${build.name}:\n${error.stdout ?? error.message}`);
  })];
  if (build.docs) work.push(buildDocs(folder));
  await Promise.all(work);
  if (build.copiesSources) copyShippedSources(folder);
}

async function main(): Promise<void> {
  const onlyIndex = process.argv.indexOf('--only');
  const only = onlyIndex >= 0 ? new Set((process.argv[onlyIndex + 1] ?? '').split(',')) : undefined;
  for (const build of PACKAGE_BUILDS) {
    if (only && !only.has(build.name)) continue;
    const started = performance.now();
    await buildPackage(build);
    console.log(`built ${build.folder} in ${Math.round(performance.now() - started)} ms`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
