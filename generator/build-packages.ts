// `npm run build` (also run by `npm install` through `prepare`): compiles every package to the JavaScript
// and declarations it ships, in dependency order: the contract (and its Redoc pages), the client and the
// server from generated/, then the conformance suite and the sandbox. Nothing a package runs is TypeScript.
// The generated packages import the private runtime, model and change check by name; their build stages
// src/ with the modules of those it reaches (imports made relative) and compiles that, so each published
// package carries what it needs and depends on no private package.
//   --only contract,client   build just these
//   --docs-into <dir>        build only the contract's Redoc pages, into <dir> (docs/index.html there, as in the
//                            package), from copies of its bundled documents: the packages stay as they are
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import {
  callbackWording,
  decisionsOf,
  offlinePage,
  LIBRARY_FILE,
  PAGE_TEMPLATE,
  withDecisionsSection,
  withLibraryApart,
  withPlainServers,
} from './docs/page.js';
import { SAMPLE_LANGUAGES, withCodeSamples } from './docs/samples.js';
import { withConditionNames } from './docs/conditions.js';
import type { JsonObject } from '@payments-contract/model/types';
import { CONTRACT_DOCUMENTS } from './emit/packages.js';
import { placedPathOf, privateModule } from './emit/private-packages.js';

const run = promisify(execFile);
/** The service's contract among CONTRACT_DOCUMENTS: the one whose page shows code samples. */
const SERVICE_DOCUMENT = 'openapi.json';
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

export interface PackageBuild {
  name: string;
  /** The package's folder, relative to the repository. */
  folder: string;
  /**
   * Its tsconfig, relative to the folder; a generated package has none: its build stages src/ with the
   * private packages' modules it reaches (`stageSources`) and compiles that with generated/tsconfig.package.json.
   */
  tsconfig?: string;
  /** JavaScript and declaration files under src/ that are shipped as they are (the compiled validators). */
  copiesSources?: boolean;
  /** Builds its Redoc pages. */
  docs?: boolean;
}

export const PACKAGE_BUILDS: readonly PackageBuild[] = [
  { name: 'contract', folder: 'generated/contract', docs: true },
  { name: 'client', folder: 'generated/client', copiesSources: true },
  { name: 'server', folder: 'generated/server', copiesSources: true },
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

/** Copies the JavaScript and declarations under `src` (the compiled validators) to `dist` as they are. */
function copyShippedSources(src: string, dist: string): number {
  let copied = 0;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !(entry.name.endsWith('.js') || entry.name.endsWith('.d.ts'))) continue;
    const from = join(entry.parentPath, entry.name);
    const to = join(dist, relative(src, from));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    copied++;
  }
  return copied;
}

/** Every script under `dir` (TypeScript, declarations, JavaScript), by path relative to it with `/`. */
function scriptsUnder(dir: string): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ts|js)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    scripts.set(relative(dir, file).split('\\').join('/'), readFileSync(file, 'utf8'));
  }
  return scripts;
}

/** `./runtime/router.js`: the specifier of the module placed at `to` from the one placed at `from` (both under src/). */
function relativeSpecifier(from: string, to: string): string {
  const path = posix.relative(posix.dirname(from), to).replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
}

/** `text` with the module specifiers `rewrite` maps replaced (the others left as written). */
function rewriteSpecifiers(text: string, rewrite: (specifier: string) => string | undefined): string {
  const references = ts.preProcessFile(text, true, true).importedFiles;
  let result = text;
  for (const reference of [...references].reverse()) {
    const replacement = rewrite(reference.fileName);
    if (replacement === undefined) continue;
    // `pos` is the literal's opening quote.
    const quote = text[reference.pos];
    const end = reference.pos + reference.fileName.length + 2;
    if ((quote !== "'" && quote !== '"') || text.slice(reference.pos, end) !== `${quote}${reference.fileName}${quote}`)
      throw new Error(`cannot rewrite the import of ${reference.fileName}: it is not a plain string literal`);
    result = `${result.slice(0, reference.pos)}${quote}${replacement}${quote}${result.slice(end)}`;
  }
  return result;
}

/**
 * The sources a generated package compiles from, by path under src/: its own, and every module of the
 * private packages (generator/runtime, model, diff) they reach, directly or through each other, placed
 * under src/<folder>/ as they are laid out there, with imports of those packages made relative. A package's
 * door to a private module (src/runtime/router.ts re-exporting `@payments-contract/runtime/router`) gives
 * way to the module itself.
 */
export function stagedSources(src: string): Map<string, string> {
  const own = scriptsUnder(src);
  /** Private modules reached: placed path -> source file. */
  const reached = new Map<string, string>();
  const ownStaged = new Map<string, string>();
  const privateStaged = new Map<string, string>();
  const pending: { placed: string; text: string; file?: string }[] = [...own].map(([placed, text]) => ({
    placed,
    text,
  }));
  const reach = (placed: string, file: string): void => {
    if (reached.has(placed)) return;
    reached.set(placed, file);
    pending.push({ placed, file, text: readFileSync(file, 'utf8') });
  };
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { placed, file } = item;
    const text = rewriteSpecifiers(item.text, (specifier) => {
      const target = privateModule(specifier);
      if (target) {
        reach(target.placed, target.file);
        return relativeSpecifier(placed, target.placed);
      }
      if (file === undefined || !specifier.startsWith('.')) return undefined;
      // A private module's relative import: the same layout under src/ keeps it valid.
      const targetFile = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      const targetPlaced = placedPathOf(targetFile);
      if (targetPlaced === undefined || !existsSync(targetFile))
        throw new Error(`${file} imports ${specifier}, which is not a module of a private package`);
      reach(targetPlaced, targetFile);
      return undefined;
    });
    (file === undefined ? ownStaged : privateStaged).set(placed, text);
  }
  for (const [placed, text] of own) {
    if (reached.has(placed) && !/^export \* from '@payments-contract\//m.test(text))
      throw new Error(`src/${placed} is in the place of the private module ${reached.get(placed) ?? ''}`);
  }
  return new Map([...ownStaged, ...privateStaged].sort(([a], [b]) => a.localeCompare(b)));
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
  // Redoc's options (YAML is a superset of JSON): the code samples' languages, then the request body as it is.
  const config = join(scratch, 'redocly.yaml');
  const languages = [...SAMPLE_LANGUAGES, { lang: 'payload', label: 'Payload' }];
  writeFileSync(config, JSON.stringify({ openapi: { codeSamples: { languages } } }));
  try {
    const libraries = await Promise.all(
      documents.map(async ({ doc, spec, page, title }, index) => {
        const shown = join(scratch, `${index}.json`);
        const others = allDecisions.filter((decision) => !decisionsOf(doc).includes(decision));
        // The service's operations carry code samples (curl, its client); the control API's page has none.
        const sampled = spec === SERVICE_DOCUMENT ? withCodeSamples(doc as JsonObject) : doc;
        writeFileSync(
          shown,
          JSON.stringify(withConditionNames(withPlainServers(withDecisionsSection(sampled, others)) as JsonObject)),
        );
        const output = join(folder, page);
        mkdirSync(dirname(output), { recursive: true });
        await run(
          process.execPath,
          [
            redocly,
            'build-docs',
            shown,
            '--inlineBundle',
            '--config',
            config,
            '--template',
            PAGE_TEMPLATE,
            '--title',
            title,
            '--output',
            output,
          ],
          { env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, maxBuffer: 16 * 1024 * 1024 },
        );
        const { page: apart, library } = withLibraryApart(callbackWording(offlinePage(readFileSync(output, 'utf8'))));
        writeFileSync(output, apart);
        return library;
      }),
    );
    // Every page loads the one library beside them; pages built by one Redoc share it.
    if (new Set(libraries).size !== 1) throw new Error('the Redoc pages carry different libraries');
    writeFileSync(join(folder, 'docs', LIBRARY_FILE), libraries[0] ?? '');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Where a generated package's sources are staged: inside the repository (build/ is ignored), so the stage
 * resolves the packages' dependencies and @types/node from its node_modules.
 */
const stageRoot = join(repoRoot, 'build/stage');
const sharedConfig = join(repoRoot, 'generated/tsconfig.package.json');

/** Writes a generated package's staged sources and the tsconfig compiling them to its dist/; returns that tsconfig. */
function stage(build: PackageBuild, folder: string): string {
  const dir = join(stageRoot, build.name);
  rmSync(dir, { recursive: true, force: true });
  for (const [placed, text] of stagedSources(join(folder, 'src'))) {
    mkdirSync(dirname(join(dir, 'src', placed)), { recursive: true });
    writeFileSync(join(dir, 'src', placed), text);
  }
  const tsconfig = join(dir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    `${JSON.stringify(
      {
        extends: relative(dir, sharedConfig),
        compilerOptions: { rootDir: 'src', outDir: relative(dir, join(folder, 'dist')) },
        include: ['src'],
      },
      null,
      2,
    )}\n`,
  );
  return tsconfig;
}

export async function buildPackage(build: PackageBuild): Promise<void> {
  const folder = join(repoRoot, build.folder);
  // A file removed from the sources must not live on in the package.
  rmSync(join(folder, 'dist'), { recursive: true, force: true });
  const tsconfig = build.tsconfig === undefined ? stage(build, folder) : join(folder, build.tsconfig);
  const tsc = binOf('typescript', 'tsc');
  const work: Promise<unknown>[] = [
    run(process.execPath, [tsc, '-p', tsconfig], { maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout?: string; message: string }) => {
        throw new Error(`tsc failed for ${build.name}:\n${error.stdout ?? error.message}`);
      },
    ),
  ];
  if (build.docs) work.push(buildDocs(folder));
  await Promise.all(work);
  if (build.copiesSources) copyShippedSources(join(dirname(tsconfig), 'src'), join(folder, 'dist'));
  if (build.tsconfig === undefined) rmSync(dirname(tsconfig), { recursive: true, force: true });
}

async function main(): Promise<void> {
  const docsIndex = process.argv.indexOf('--docs-into');
  if (docsIndex >= 0) {
    const into = resolve(process.argv[docsIndex + 1] ?? '');
    const contract = PACKAGE_BUILDS.find((build) => build.docs);
    if (!contract) throw new Error('no package build makes the docs pages');
    for (const { spec } of CONTRACT_DOCUMENTS) {
      mkdirSync(dirname(join(into, spec)), { recursive: true });
      copyFileSync(join(repoRoot, contract.folder, spec), join(into, spec));
    }
    await buildDocs(into);
    return;
  }
  const onlyIndex = process.argv.indexOf('--only');
  const only = onlyIndex >= 0 ? new Set((process.argv[onlyIndex + 1] ?? '').split(',')) : undefined;
  for (const build of PACKAGE_BUILDS) {
    if (only && !only.has(build.name)) continue;
    const started = performance.now();
    await buildPackage(build);
    console.log(`built ${build.folder} in ${Math.round(performance.now() - started)} ms`);
  }
  // Nothing staged outlives the build.
  rmSync(stageRoot, { recursive: true, force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
