// `npm run build` (also run by `npm install` through `prepare`): compiles every package to the JavaScript
// and declarations it ships, in dependency order: the contract (and its Redoc pages), the client and the
// server from generated/, then the conformance suite and the sandbox. Nothing a package runs is TypeScript.
//   --only contract,client   build just these
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { callbackWording, decisionsOf, offlinePage, PAGE_TEMPLATE, withDecisionsSection } from './docs/page.js';
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

/**
 * Builds each contract's Redoc page from the document as the page shows it (its decisions as a section of
 * their own, those of the other contract it links to included), then makes the page work offline.
 */
async function buildDocs(folder: string): Promise<void> {
  const redocly = binOf('@redocly/cli', 'redocly');
  const documents = CONTRACT_DOCUMENTS.map((entry) => ({
    ...entry,
    doc: JSON.parse(readFileSync(join(folder, entry.spec), 'utf8')) as Record<string, unknown>,
  }));
  const allDecisions = documents.flatMap(({ doc }) => decisionsOf(doc));
  const scratch = mkdtempSync(join(tmpdir(), 'contract-docs-'));
  try {
    await Promise.all(
      documents.map(async ({ doc, page, title }, index) => {
        const shown = join(scratch, `${index}.json`);
        const others = allDecisions.filter((decision) => !decisionsOf(doc).includes(decision));
        writeFileSync(shown, JSON.stringify(withDecisionsSection(doc, others)));
        const output = join(folder, page);
        mkdirSync(dirname(output), { recursive: true });
        await run(
          process.execPath,
          [
            redocly,
            'build-docs',
            shown,
            '--inlineBundle',
            '--template',
            PAGE_TEMPLATE,
            '--title',
            title,
            '--output',
            output,
          ],
          { env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, maxBuffer: 16 * 1024 * 1024 },
        );
        writeFileSync(output, callbackWording(offlinePage(readFileSync(output, 'utf8'))));
      }),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function buildPackage(build: PackageBuild): Promise<void> {
  const folder = join(repoRoot, build.folder);
  // A file removed from the sources must not live on in the package.
  rmSync(join(folder, 'dist'), { recursive: true, force: true });
  const tsc = binOf('typescript', 'tsc');
  const work: Promise<unknown>[] = [
    run(process.execPath, [tsc, '-p', join(folder, build.tsconfig)], { maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout?: string; message: string }) => {
        throw new Error(`tsc failed for ${build.name}:\n${error.stdout ?? error.message}`);
      },
    ),
  ];
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
