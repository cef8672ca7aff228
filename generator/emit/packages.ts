// generated/ as the packages people install. What a user installs decides where each artifact goes:
//   contract/  the bundled contracts, the vendor-extension schema and a reader of the contract's semantics
//   client/    types, the typed client, webhook types, receiver and sender (the control API's client too)
//   server/    types, handler types and router, compiled validators, the Node listener (the control API's too)
// Each gets the runtime modules its files import and no others, so a client never carries the router.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../model/types.js';
import { withHeader, type GeneratedFile } from './generated-file.js';

interface PackagePlan {
  folder: 'client' | 'server';
  /** What the package is for, in its package.json. */
  description: string;
  /** Emitted files (paths as emitted, relative to one contract's folder) this package ships. */
  artifacts: (path: string) => boolean;
  /** Runtime modules its own code calls directly; the modules those import come along. */
  runtimeEntries: readonly string[];
  /** Its runtime dependencies, at the versions this repository develops and tests with (its package.json). */
  dependencies: readonly string[];
  /** Subpath exports besides the runtime's: subpath -> module path inside src/, without extension. */
  exports: Readonly<Record<string, string>>;
}

const WEBHOOK_VALIDATORS = new Set([
  'validators/webhooks.ts',
  'validators/webhook-schemas.js',
  'validators/webhook-schemas.d.ts',
]);
/** The folder of the control API's artifacts among the emitted files. */
const CONTROL = 'sandbox/';
const withoutControl = (path: string): string => (path.startsWith(CONTROL) ? path.slice(CONTROL.length) : path);

const PACKAGE_PLANS: readonly PackagePlan[] = [
  {
    folder: 'client',
    description:
      'Types, typed client (openapi-fetch), webhook payload types, receiver and sender for the Payments API and its sandbox control API.',
    artifacts: (path) =>
      ['types.ts', 'client.ts', 'webhooks.ts'].includes(withoutControl(path)) || WEBHOOK_VALIDATORS.has(path),
    runtimeEntries: [
      'client.ts',
      'webhook-receiver.ts',
      'webhook-sender.ts',
      'webhook-definition.ts',
      'constant-time.ts',
      'basic-auth.ts',
    ],
    dependencies: ['openapi-fetch'],
    exports: {
      '.': 'client',
      './client': 'client',
      './types': 'types',
      './webhooks': 'webhooks',
      './validators/webhooks': 'validators/webhooks',
      './sandbox/client': 'sandbox/client',
      './sandbox/types': 'sandbox/types',
    },
  },
  {
    folder: 'server',
    description:
      'Handler types, router, compiled validators and Node listener for implementing the Payments API and its sandbox control API.',
    artifacts: (path) =>
      ['types.ts', 'server.ts'].includes(withoutControl(path)) ||
      (withoutControl(path).startsWith('validators/') && !WEBHOOK_VALIDATORS.has(path)),
    // The command-line and stop-signal helpers come along: every bin of this project serves or runs on this package.
    runtimeEntries: [
      'router.ts',
      'node-listener.ts',
      'constant-time.ts',
      'basic-auth.ts',
      'path-matcher.ts',
      'request-body.ts',
      'validation-errors.ts',
      'command-line.ts',
      'package-version.ts',
      'stop-signals.ts',
    ],
    dependencies: ['ajv', 'ajv-formats'],
    exports: {
      '.': 'server',
      './server': 'server',
      './types': 'types',
      './validators': 'validators/index',
      './sandbox/server': 'sandbox/server',
      './sandbox/types': 'sandbox/types',
      './sandbox/validators': 'sandbox/validators/index',
    },
  },
];

/** Where the hand-written modules the packages ship are kept (generator/runtime, generator/model, generator/diff). */
const sourceDir = (folder: 'runtime' | 'model' | 'diff'): string =>
  fileURLToPath(new URL(`../${folder}/`, import.meta.url));

/** Hand-written modules shipped as they are, under the header that names where they come from. */
function copiedSources(folder: 'runtime' | 'model' | 'diff', names: readonly string[]): GeneratedFile[] {
  return names.map((name) => ({
    path: `src/${folder}/${name}`,
    contents: withHeader(`generator/${folder}/${name}`, readFileSync(`${sourceDir(folder)}${name}`, 'utf8')),
  }));
}

const localImports = (source: string): string[] =>
  [...source.matchAll(/from '\.\/([a-z0-9-]+)\.js'/g)].map((match) => `${match[1]}.ts`);

/** The runtime modules `entries` need, theirs included, in name order. */
function runtimeClosure(entries: readonly string[]): string[] {
  const needed = new Set<string>();
  const pending = [...entries];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (needed.has(name)) continue;
    needed.add(name);
    pending.push(...localImports(readFileSync(`${sourceDir('runtime')}${name}`, 'utf8')));
  }
  return [...needed].sort();
}

/** The contract's reader (generator/model), shipped in the contract package for tools that read its semantics. */
const modelNames = (): string[] =>
  readdirSync(sourceDir('model'))
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .sort();

/**
 * The contract change check (generator/diff, rules/ included) for the contract package's
 * `payments-contract diff`: every module but its tests and its benchmark, which reads this repository.
 */
const diffNames = (): string[] =>
  readdirSync(sourceDir('diff'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && name !== 'bench.ts')
    .sort();

/** contract/src/bin.ts: `payments-contract`, whose one command is `diff`. The shebang must be its first line. */
const CONTRACT_BIN = `#!/usr/bin/env node
// Generated by generator/emit/packages.ts from spec/ — do not edit.
import { runDiff } from './diff/main.js';

const [command] = process.argv.slice(2);
if (command === 'diff' || command === undefined || command.startsWith('-')) {
  process.exitCode = runDiff(process.argv.slice(2));
} else {
  process.stderr.write(\`payments-contract: unknown command \${command}; the command is diff (payments-contract diff --help)\\n\`);
  process.exitCode = 2;
}
`;

/**
 * contract/bin/payments-contract.js, the file the bin names. npm links a package's commands before the
 * repository's `prepare` builds dist/ and skips one whose file is missing (`npx payments-contract` then asks
 * the public registry); this one exists from the start and runs the compiled dist/bin.js.
 */
const CONTRACT_LAUNCHER = `#!/usr/bin/env node
// Generated by generator/emit/packages.ts from spec/ — do not edit.
// The command is the compiled dist/bin.js; this file exists before the build, so npm links it at install.
import '../dist/bin.js';
`;

const packageName = (folder: string): string => `@payments-contract/${folder}`;
/** Node versions every package supports (the engines field). */
const NODE_ENGINES = '>=20.19';

/** The versions of the dependencies this repository develops and tests with, which the packages then pin. */
const developedWith = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies;

function pinned(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.map((name) => {
      const version = developedWith[name];
      if (version === undefined)
        throw new Error(`${name} is not a dependency of this repository's package.json, so no version can be pinned`);
      return [name, version];
    }),
  );
}

/**
 * The contract package's two documents and their Redoc pages: listed once for its exports, its index and the
 * build that makes the pages (generator/build-packages.ts).
 */
export const CONTRACT_DOCUMENTS = [
  { spec: 'openapi.json', page: 'docs/index.html', title: 'Payments API' },
  { spec: 'sandbox/openapi.json', page: 'docs/sandbox/index.html', title: 'Payments sandbox control API' },
] as const;

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** A module's export entry: its declarations and its JavaScript in dist/. */
const moduleExport = (module: string) => ({ types: `./dist/${module}.d.ts`, default: `./dist/${module}.js` });

interface ManifestPlan {
  folder: string;
  description: string;
  dependencies: readonly string[];
  exports: Record<string, unknown>;
  /** Files shipped besides dist/, README.md and LICENSE. */
  files?: readonly string[];
  /** Commands the package installs: name -> compiled module. */
  bin?: Readonly<Record<string, string>>;
  /** Packages it uses when the installing project has them, and does without otherwise (optional peers). */
  optionalPeers?: readonly string[];
}

function manifest(plan: ManifestPlan, contract: JsonObject): string {
  const info = contract.info as JsonObject;
  const license = (info.license as JsonObject | undefined)?.name;
  return json({
    '//': HEADER_NOTE,
    name: packageName(plan.folder),
    // Decision written in the README ("Versions"): the generated packages carry the contract's own version.
    version: String(info.version),
    description: plan.description,
    license: license === 'Apache 2.0' ? 'Apache-2.0' : String(license),
    type: 'module',
    engines: { node: NODE_ENGINES },
    ...(plan.bin ? { bin: plan.bin } : {}),
    exports: { ...plan.exports, './package.json': './package.json' },
    files: ['dist', ...(plan.files ?? []), 'README.md', 'LICENSE'],
    sideEffects: false,
    dependencies: pinned(plan.dependencies),
    ...(plan.optionalPeers && plan.optionalPeers.length > 0
      ? // A range, not a pin: an exact peer would make npm refuse a project that has another patch of it.
        {
          peerDependencies: Object.fromEntries(
            Object.entries(pinned(plan.optionalPeers)).map(([name, version]) => [name, `^${version}`]),
          ),
          peerDependenciesMeta: Object.fromEntries(plan.optionalPeers.map((name) => [name, { optional: true }])),
        }
      : {}),
  });
}

const SOURCE = 'generator/emit/packages.ts';
const HEADER_NOTE = `Generated by ${SOURCE} from spec/ — do not edit.`;

/** tsconfig.json of a package: src/ compiled to dist/ with declarations (tsconfig allows comments). */
const BUILD_CONFIG = `// ${HEADER_NOTE}\n${json({
  extends: '../tsconfig.package.json',
  compilerOptions: { rootDir: 'src', outDir: 'dist' },
  include: ['src'],
})}`;

/** generated/tsconfig.package.json: what every package's build shares (strict ESM for Node, declarations). */
const SHARED_BUILD_CONFIG = `// ${HEADER_NOTE}\n${json({
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023', 'DOM', 'DOM.Iterable'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    declaration: true,
    skipLibCheck: true,
    verbatimModuleSyntax: true,
    resolveJsonModule: true,
    removeComments: false,
  },
})}`;

const packagesDir = fileURLToPath(new URL('../packages/', import.meta.url));

/** The package's README (generator/packages/<folder>/README.md) and the licence every package ships. */
function documents(folder: string): GeneratedFile[] {
  const readme = readFileSync(`${packagesDir}${folder}/README.md`, 'utf8');
  return [
    {
      path: 'README.md',
      contents: `<!-- Generated from generator/packages/${folder}/README.md by ${SOURCE} — do not edit. -->\n${readme}`,
    },
    { path: 'LICENSE', contents: readFileSync(`${packagesDir}LICENSE`, 'utf8') },
  ];
}

/**
 * Every file of the three generated packages, paths relative to generated/. `emitted`: both contracts'
 * artifacts as the emitters write them (the control API's under sandbox/); `contract`: the service's bundle.
 */
export function placeInPackages(
  emitted: GeneratedFile[],
  contract: JsonObject,
  extensionsSchema: JsonObject,
): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const plan of PACKAGE_PLANS) {
    const runtime = copiedSources('runtime', runtimeClosure(plan.runtimeEntries));
    const runtimeExports = Object.fromEntries(
      runtime
        .map((file) => file.path.slice('src/'.length, -'.ts'.length))
        .map((module) => [`./${module}`, moduleExport(module)]),
    );
    const exports = {
      ...Object.fromEntries(Object.entries(plan.exports).map(([subpath, module]) => [subpath, moduleExport(module)])),
      ...runtimeExports,
    };
    const own = [
      ...emitted.filter((file) => plan.artifacts(file.path)).map((file) => ({ ...file, path: `src/${file.path}` })),
      ...runtime,
      { path: 'package.json', contents: manifest({ ...plan, exports }, contract) },
      { path: 'tsconfig.json', contents: BUILD_CONFIG },
      ...documents(plan.folder),
    ];
    files.push(...inFolder(plan.folder, own));
  }
  const model = copiedSources('model', modelNames());
  // The change check and the command-line helpers its command uses.
  const diff = copiedSources('diff', diffNames());
  const commandLine = copiedSources('runtime', runtimeClosure(['command-line.ts']));
  const asIs = [
    ...CONTRACT_DOCUMENTS.map(({ spec }) => spec),
    'x-extensions.schema.json',
    ...CONTRACT_DOCUMENTS.map(({ page }) => page),
  ];
  const contractExports = {
    '.': moduleExport('index'),
    './model': moduleExport('model/read-model'),
    './model/types': moduleExport('model/types'),
    './diff': moduleExport('diff/diff'),
    ...Object.fromEntries(asIs.map((path) => [`./${path}`, `./${path}`])),
  };
  const contractManifest = manifest(
    {
      folder: 'contract',
      description:
        'The Payments API contract: bundled OpenAPI 3.1 documents (service and sandbox control API), their Redoc pages, the vendor-extension schema, a reader of its semantics and the payments-contract diff change check.',
      dependencies: [],
      // Bundling a git revision's spec/ needs Redocly's command line; diffing bundled files does not.
      optionalPeers: ['@redocly/cli'],
      bin: { 'payments-contract': 'bin/payments-contract.js' },
      exports: contractExports,
      files: ['bin', 'openapi.json', 'sandbox/openapi.json', 'x-extensions.schema.json', 'docs'],
    },
    contract,
  );
  files.push(
    ...inFolder('contract', [
      ...model,
      ...diff,
      ...commandLine,
      { path: 'src/bin.ts', contents: CONTRACT_BIN },
      { path: 'bin/payments-contract.js', contents: CONTRACT_LAUNCHER, executable: true },
      { path: 'src/index.ts', contents: withHeader(SOURCE, CONTRACT_INDEX) },
      { path: 'package.json', contents: contractManifest },
      { path: 'tsconfig.json', contents: BUILD_CONFIG },
      { path: 'x-extensions.schema.json', contents: json({ $comment: HEADER_NOTE, ...extensionsSchema }) },
      ...documents('contract'),
    ]),
  );
  files.push({ path: 'tsconfig.package.json', contents: SHARED_BUILD_CONFIG });
  return files;
}

const inFolder = (folder: string, files: GeneratedFile[]): GeneratedFile[] =>
  files.map((file) => ({ ...file, path: `${folder}/${file.path}` }));

/** contract/src/index.ts: where the package's documents are, for tools that read or serve them. */
const CONTRACT_INDEX = `import { fileURLToPath } from 'node:url';

const here = (path: string): string => fileURLToPath(new URL(\`../\${path}\`, import.meta.url));

/** The bundled service contract (OpenAPI 3.1, webhooks included). */
export const openapiPath = here('openapi.json');
/** The bundled contract of the sandbox's control API. */
export const sandboxOpenapiPath = here('sandbox/openapi.json');
/** JSON Schema of the contract's vendor extensions. */
export const extensionsSchemaPath = here('x-extensions.schema.json');
/** The Redoc pages of the two contracts, self-contained HTML. */
export const docsPaths = { service: here('docs/index.html'), control: here('docs/sandbox/index.html') } as const;
`;
