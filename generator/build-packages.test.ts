// What `npm run build` (run by `npm install`) leaves in the packages: compiled JavaScript with declarations,
// the compiled validators beside it, and the contract's Redoc pages. These read the build of this checkout.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PACKAGE_BUILDS, stagedSources } from './build-packages.js';
import { LIBRARY_FILE, LIBRARY_URL } from './docs/page.js';
import { privatePackageDir } from './emit/private-packages.js';
import { publishedManifest } from './packed.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

describe('the built packages', () => {
  it.each(PACKAGE_BUILDS.map((build) => [build.name, build] as const))(
    '%s: every export and bin points at a built file',
    (_name, build) => {
      const folder = join(repoRoot, build.folder);
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
        exports: Record<string, string | Record<string, string>>;
        bin?: Record<string, string>;
      };
      const targets = Object.values(manifest.exports).flatMap((entry) =>
        typeof entry === 'string' ? [entry] : Object.values(entry),
      );
      const missing = [...targets, ...Object.values(manifest.bin ?? {})].filter(
        (target) => !existsSync(join(folder, target)),
      );
      expect(missing).toEqual([]);
    },
  );

  it.each([
    ['docs/index.html', 'Payments API', 'createDisbursement'],
    ['docs/sandbox/index.html', 'Payments sandbox control API', 'getSandbox'],
  ])('contract: %s is a Redoc page that loads Redoc from beside it', (page, title, operation) => {
    const html = readFileSync(join(repoRoot, 'generated/contract', page), 'utf8');
    expect(html).toContain(`<title>${title}</title>`);
    // --inlineBundle, then the library taken apart: the page loads it from the docs/ folder, so it works offline.
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).toContain(`import { hydrate } from '${LIBRARY_URL}';`);
    expect(readFileSync(join(repoRoot, 'generated/contract/docs', LIBRARY_FILE), 'utf8')).toMatch(
      /export\{RedocStandalone,hydrate,init\};\n$/,
    );
    expect(html).toContain(operation);
  });
});

describe('stagedSources: a generated package with the private modules it reaches', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  function src(files: Record<string, string>): string {
    const folder = mkdtempSync(join(tmpdir(), 'staged-sources-'));
    folders.push(folder);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(folder, path)), { recursive: true });
      writeFileSync(join(folder, path), text);
    }
    return folder;
  }
  const door = "// Generated.\nexport * from '@payments-contract/runtime/router';\n";

  it('puts the modules reached under src/<package>/, the door giving way to the module, with relative imports', () => {
    const staged = stagedSources(
      src({
        'sandbox/server.ts': "import { createRouter } from '@payments-contract/runtime/router';\n",
        'runtime/router.ts': door,
      }),
    );
    expect(staged.get('sandbox/server.ts')).toBe("import { createRouter } from '../runtime/router.js';\n");
    expect(staged.get('runtime/router.ts')).toBe(readFileSync(join(privatePackageDir('runtime'), 'router.ts'), 'utf8'));
    // What the router imports comes along, and nothing else of the runtime: a client never carries the router.
    expect([...staged.keys()]).toContain('runtime/path-matcher.ts');
    expect([...staged.keys()]).not.toContain('runtime/client.ts');
    expect([...staged.values()].filter((text) => text.includes('@payments-contract/'))).toEqual([]);
  });

  it('follows one private package into another: the change check brings the model and the command line', () => {
    const staged = stagedSources(src({ 'bin.ts': "import { runDiff } from '@payments-contract/diff/main';\n" }));
    expect(staged.get('bin.ts')).toBe("import { runDiff } from './diff/main.js';\n");
    expect([...staged.keys()]).toEqual(expect.arrayContaining(['model/types.ts', 'runtime/command-line.ts']));
    expect(staged.get('diff/json.ts')).toContain("from '../model/read-model.js'");
  });

  it('refuses an emitted file in the place of a private module it reaches', () => {
    const folder = src({ 'server.ts': door, 'runtime/router.ts': 'export const router = 1;\n' });
    expect(() => stagedSources(folder)).toThrow(/src\/runtime\/router\.ts is in the place of the private module/);
  });

  it('refuses a subpath the private package does not export', () => {
    const folder = src({ 'client.ts': "import '@payments-contract/runtime/router.test';\n" });
    expect(() => stagedSources(folder)).toThrow(/exports no module \.\/router\.test/);
  });
});

describe('the built generated packages', () => {
  it.each(PACKAGE_BUILDS.filter((build) => build.tsconfig === undefined).map((build) => [build.name, build] as const))(
    '%s: no shipped module names a private package (what it needs is inside it)',
    (_name, build) => {
      const dist = join(repoRoot, build.folder, 'dist');
      const naming = readdirSync(dist, { recursive: true, encoding: 'utf8' })
        .filter((path) => /\.(js|d\.ts)$/.test(path))
        .filter((path) => /@payments-contract\/(runtime|model|diff)\b/.test(readFileSync(join(dist, path), 'utf8')));
      expect(naming).toEqual([]);
    },
  );
});

describe('publishedManifest: the package.json a tarball carries', () => {
  it('drops the source condition, and an entry only the repository resolves', () => {
    const manifest = {
      name: 'p',
      exports: {
        '.': { source: './index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
        './testing': { source: './testing/index.ts' },
        './package.json': './package.json',
      },
    };
    expect(publishedManifest(manifest)).toEqual({
      name: 'p',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
    });
  });
});
