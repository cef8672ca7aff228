// generated/ as the packages people install. What a user installs decides where each artifact goes:
//   contract/  the bundled contracts, the vendor-extension schema and a reader of the contract's semantics
//   client/    types, the typed client, webhook types, receiver and sender (the control API's client too)
//   server/    types, handler types and router, compiled validators, the Node listener (the control API's too)
// The hand-written runtime, model and change check are private packages the emitted code imports by name;
// each package exports some of their modules through a door of its own (src/runtime/router.ts re-exports
// `@payments-contract/runtime/router`), and the build puts those modules themselves in its dist/.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { JsonObject } from '../model/types.js';
import { withHeader, type GeneratedFile } from './generated-file.js';
import { privateManifest, privateModule, type PrivateFolder } from './private-packages.js';

interface PackagePlan {
  folder: 'client' | 'server';
  /** What the package is for, in its package.json. */
  description: string;
  /** Emitted files (paths as emitted, relative to one contract's folder) this package ships. */
  artifacts: (path: string) => boolean;
  /** Runtime modules it exports as `./runtime/<module>` (what it and its users call; the build adds what they import). */
  runtimeExports: readonly string[];
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
    runtimeExports: [
      'basic-auth',
      'client',
      'constant-time',
      'node-handler',
      'request-body',
      'resilience',
      'validation-errors',
      'validator',
      'webhook-definition',
      'webhook-receiver',
      'webhook-sender',
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
    runtimeExports: [
      'basic-auth',
      'command-line',
      'constant-time',
      'json-limits',
      'native-request',
      'node-listener',
      'package-version',
      'path-matcher',
      'request-body',
      'router',
      'stop-signals',
      'validation-errors',
      'validator',
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

/**
 * A package's door to a private package's module: a module at the path the build puts that module itself
 * (src/runtime/router.ts for `@payments-contract/runtime/router`), so the package exports it under the same
 * subpath in the repository (its `source` condition) and when built.
 */
function door(specifier: string): GeneratedFile & { module: string } {
  const target = privateModule(specifier);
  if (!target) throw new Error(`${specifier} is not a module of a private package`);
  return {
    path: `src/${target.placed}`,
    module: target.placed.replace(/\.ts$/, ''),
    contents: withHeader(
      SOURCE,
      `// The door to ${specifier}: the package's build puts that module itself here.\nexport * from '${specifier}';`,
    ),
  };
}

/** The private packages a package's own sources import, at the versions the repository develops them at. */
const privateDependencies = (folders: readonly PrivateFolder[]): Record<string, string> =>
  Object.fromEntries(folders.map((folder) => [privateManifest(folder).name, privateManifest(folder).version]));

/** contract/src/bin.ts: `payments-contract`, whose one command is `diff`. The shebang must be its first line. */
const CONTRACT_BIN = `#!/usr/bin/env node
// Generated by generator/emit/packages.ts from spec/ — do not edit.
import { runDiff } from '@payments-contract/diff/main';

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

/**
 * A module's export entry: its TypeScript source in the repository (the `source` condition, which the pack
 * step strips: sources are not shipped), its declarations and its JavaScript in dist/.
 */
const moduleExport = (module: string) => ({
  source: `./src/${module}.ts`,
  types: `./dist/${module}.d.ts`,
  default: `./dist/${module}.js`,
});

/** The packages' own version (one release line for the three), written by `npm run release`. */
export const packagesVersionPath = fileURLToPath(new URL('../packages/version.json', import.meta.url));
export const readPackagesVersion = (path: string = packagesVersionPath): string =>
  (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;

/** src/contract-version.ts of every package: the contract's info.version, as data the package exposes. */
const contractVersionModule = (contract: JsonObject): GeneratedFile => ({
  path: 'src/contract-version.ts',
  contents: withHeader(
    SOURCE,
    `/** The version of the contract (its info.version) this package was generated from. */\nexport const contractVersion = '${String((contract.info as JsonObject).version)}';`,
  ),
});

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
  /** The private packages its sources import, which the build puts in its dist/. */
  bundles: readonly PrivateFolder[];
}

function manifest(plan: ManifestPlan, contract: JsonObject, version: string): string {
  const info = contract.info as JsonObject;
  const license = (info.license as JsonObject | undefined)?.name;
  return json({
    '//': HEADER_NOTE,
    name: packageName(plan.folder),
    // The packages' own release line, so a runtime fix ships without a new contract version; the contract's
    // version is data they carry (here and as `contractVersion`).
    version,
    'x-contract-version': String(info.version),
    description: plan.description,
    license: license === 'Apache 2.0' ? 'Apache-2.0' : String(license),
    type: 'module',
    engines: { node: NODE_ENGINES },
    ...(plan.bin ? { bin: plan.bin } : {}),
    exports: { ...plan.exports, './package.json': './package.json' },
    files: ['dist', ...(plan.files ?? []), 'README.md', 'LICENSE'],
    sideEffects: false,
    dependencies: pinned(plan.dependencies),
    // Needed to build the package, not to use it: the build puts what it takes from them in dist/.
    devDependencies: privateDependencies(plan.bundles),
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

/**
 * generated/tsconfig.package.json: what every package's build shares (strict ESM for Node, declarations); the
 * generated packages' build (generator/build-packages.ts) compiles their staged sources with it.
 */
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
  packagesVersion: string = readPackagesVersion(),
): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  const contractVersion = contractVersionModule(contract);
  for (const plan of PACKAGE_PLANS) {
    const doors = plan.runtimeExports.map((module) => door(`@payments-contract/runtime/${module}`));
    const exports = {
      ...Object.fromEntries(Object.entries(plan.exports).map(([subpath, module]) => [subpath, moduleExport(module)])),
      './contract-version': moduleExport('contract-version'),
      ...Object.fromEntries(doors.map(({ module }) => [`./${module}`, moduleExport(module)])),
    };
    const own = [
      ...emitted.filter((file) => plan.artifacts(file.path)).map((file) => ({ ...file, path: `src/${file.path}` })),
      contractVersion,
      ...doors.map(({ path, contents }) => ({ path, contents })),
      {
        path: 'package.json',
        contents: manifest({ ...plan, exports, bundles: ['runtime'] }, contract, packagesVersion),
      },
      ...documents(plan.folder),
    ];
    files.push(...inFolder(plan.folder, own));
  }
  // The contract's reader and its types, and the change check (its command's own modules come with src/bin.ts).
  const contractDoors = {
    './model': door('@payments-contract/model'),
    './model/types': door('@payments-contract/model/types'),
    './diff': door('@payments-contract/diff'),
  };
  const asIs = [
    ...CONTRACT_DOCUMENTS.map(({ spec }) => spec),
    'x-extensions.schema.json',
    ...CONTRACT_DOCUMENTS.map(({ page }) => page),
  ];
  const contractExports = {
    '.': moduleExport('index'),
    './contract-version': moduleExport('contract-version'),
    ...Object.fromEntries(
      Object.entries(contractDoors).map(([subpath, { module }]) => [subpath, moduleExport(module)]),
    ),
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
      bundles: ['model', 'diff'],
    },
    contract,
    packagesVersion,
  );
  files.push(
    ...inFolder('contract', [
      ...Object.values(contractDoors).map(({ path, contents }) => ({ path, contents })),
      contractVersion,
      { path: 'src/bin.ts', contents: CONTRACT_BIN },
      { path: 'bin/payments-contract.js', contents: CONTRACT_LAUNCHER, executable: true },
      { path: 'src/index.ts', contents: withHeader(SOURCE, CONTRACT_INDEX) },
      { path: 'package.json', contents: contractManifest },
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

export { contractVersion } from './contract-version.js';

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
