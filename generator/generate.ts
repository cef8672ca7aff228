// `npm run generate`: reads generated/contract/openapi.json (run `npm run bundle` first) once into the model and
// writes every artifact under generated/. Deterministic: the same contract gives byte-identical files.
//   --check   write nothing; exit 1 and list the files that differ from a fresh run (drift check)
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readModel } from './model/read-model.js';
import type { JsonObject } from './model/types.js';
import { SERVICE_TARGET, type EmitTarget, type GeneratedFile } from './emit/generated-file.js';
import { emitClient } from './emit/client.js';
import { emitServer } from './emit/server.js';
import { emitTypes } from './emit/types.js';
import { emitValidators } from './emit/validators.js';
import { emitWebhooks } from './emit/webhooks.js';
import { placeInPackages } from './emit/packages.js';
import { parse as parseYaml } from 'yaml';

export const generatedDir = fileURLToPath(new URL('../generated/', import.meta.url));
/** Where `npm run bundle` writes the two bundled contracts: in the contract package. */
export const contractDir = join(generatedDir, 'contract/');
const BUNDLE = 'openapi.json';
/** The sandbox's control API: its own contract, generated beside the service's (no webhooks, same runtime). */
export const SANDBOX_TARGET: EmitTarget = { folder: 'sandbox/', clientName: 'SandboxControlClient' };
/** What building or installing adds inside generated/, never written or checked by the generator. */
const NOT_GENERATED = [
  /(^|\/)openapi\.json$/,
  /^[a-z]+\/dist\//,
  /^[a-z]+\/node_modules\//,
  /^contract\/docs\//,
  /\.tsbuildinfo$/,
];
const extensionsSchemaPath = fileURLToPath(new URL('../spec/x-extensions.yaml', import.meta.url));

/** The artifacts of one contract, written under its target's folder. */
export async function generateContract(doc: JsonObject, target: EmitTarget): Promise<GeneratedFile[]> {
  const model = readModel(doc);
  const files = [
    await emitTypes(doc),
    ...emitValidators(model),
    ...emitClient(model, target.clientName),
    ...emitServer(model),
    ...(model.webhooks.length > 0 ? emitWebhooks(model) : []),
  ];
  return files.map((file) => ({ ...file, path: `${target.folder}${file.path}` }));
}

/** Everything under generated/ but the bundles: the packages of the service's and the sandbox's artifacts. */
export async function generateAll(
  service: JsonObject = readBundle(),
  sandbox: JsonObject = readBundle(join(contractDir, SANDBOX_TARGET.folder)),
  packagesVersion?: string,
): Promise<GeneratedFile[]> {
  const emitted = [
    ...(await generateContract(service, SERVICE_TARGET)),
    ...(await generateContract(sandbox, SANDBOX_TARGET)),
  ];
  const extensionsSchema = parseYaml(readFileSync(extensionsSchemaPath, 'utf8')) as JsonObject;
  return placeInPackages(emitted, service, extensionsSchema, packagesVersion).sort((a, b) =>
    a.path.localeCompare(b.path),
  );
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !NOT_GENERATED.some((pattern) => pattern.test(path)))
    .sort();
}

/** Files that would change, appear or disappear if generation ran now. */
export function drift(files: GeneratedFile[], dir: string = generatedDir): string[] {
  const wanted = new Map(files.map((file) => [file.path, file.contents]));
  const present = listFiles(dir);
  const changed = files
    .filter((file) => !existsSync(join(dir, file.path)) || readFileSync(join(dir, file.path), 'utf8') !== file.contents)
    .map((file) => file.path);
  const stale = present.filter((path) => !wanted.has(path));
  return [...changed, ...stale].sort();
}

/** Writes `files` under `dir`, removing what is there and no longer generated. */
export function write(files: GeneratedFile[], dir: string = generatedDir): void {
  const wanted = new Set(files.map((file) => file.path));
  for (const stale of listFiles(dir).filter((path) => !wanted.has(path))) rmSync(join(dir, stale));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file.path)), { recursive: true });
    writeFileSync(join(dir, file.path), file.contents);
    if (file.executable) chmodSync(join(dir, file.path), 0o755);
  }
}

export function readBundle(dir: string = contractDir): JsonObject {
  return JSON.parse(readFileSync(join(dir, BUNDLE), 'utf8')) as JsonObject;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const started = performance.now();
  const files = await generateAll();
  if (check) {
    const differing = drift(files);
    if (differing.length > 0) {
      console.error(`generated/ is out of date (run npm run generate):\n  ${differing.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`generated/ is up to date (${files.length} files).`);
    return;
  }
  write(files);
  console.log(`Wrote ${files.length} files to generated/ in ${Math.round(performance.now() - started)} ms.`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
