// No product folder reaches into another's files, tests included: it imports the other package's declared
// entry points, and only packages its package.json depends on.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crossFolderImports, readRepository, undeclaredPackageImports, type Manifest } from './package-doors.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('relative imports', () => {
  it('are found wherever they leave their product folder: static, re-exported, dynamic and in types', () => {
    // Quoted by a function, so that this file's text holds no reach-in of its own for a grep to find.
    const quoted = (path: string): string => `'${path}'`;
    const text = [
      `import { http } from ${quoted('../../conformance/http.js')};`,
      `export * from ${quoted('../../generator/median.js')};`,
      `const app = await import(${quoted('../../spec/tests/document.js')});`,
      `type Server = typeof import(${quoted('../../generated/server/src/server.js')});`,
    ].join('\n');
    expect(crossFolderImports([{ path: 'sandbox/bench/x.ts', text }])).toEqual([
      'sandbox/bench/x.ts -> ../../conformance/http.js',
      'sandbox/bench/x.ts -> ../../generator/median.js',
      'sandbox/bench/x.ts -> ../../spec/tests/document.js',
      'sandbox/bench/x.ts -> ../../generated/server/src/server.js',
    ]);
    expect(crossFolderImports([{ path: 'spec/tests/y.ts', text: "import '../../sandbox/server.js';" }])).toEqual([
      'spec/tests/y.ts -> ../../sandbox/server.js',
    ]);
  });

  it('stay free inside their folder, and package names and file URLs are not imports of files', () => {
    const text = [
      "import { app } from '../app.js';",
      "import { a } from './a.js';",
      "import { run } from '@payments-contract/conformance/testing';",
      "const root = new URL('../..', import.meta.url);",
    ].join('\n');
    expect(crossFolderImports([{ path: 'sandbox/bench/x.ts', text }])).toEqual([]);
  });

  it('none in the repository leaves its product folder', () => {
    expect(crossFolderImports(readRepository(repoRoot).scripts)).toEqual([]);
  });
});

describe('imports of workspace packages', () => {
  const manifests: Manifest[] = [
    { folder: '', name: 'root', dependsOn: ['vitest'] },
    { folder: 'conformance', name: '@payments-contract/conformance', dependsOn: [] },
    { folder: 'sandbox', name: '@payments-contract/sandbox', dependsOn: ['@payments-contract/conformance'] },
  ];

  it('are found when the importing package does not depend on the one imported', () => {
    const scripts = [
      {
        path: 'conformance/tests/x.ts',
        text: "import { startTestSandbox } from '@payments-contract/sandbox/testing';",
      },
      { path: 'generator/y.ts', text: "import { runConformance } from '@payments-contract/conformance';" },
    ];
    expect(undeclaredPackageImports(scripts, manifests)).toEqual([
      'conformance/tests/x.ts -> @payments-contract/sandbox/testing (conformance/package.json does not depend on @payments-contract/sandbox)',
      'generator/y.ts -> @payments-contract/conformance (the root/package.json does not depend on @payments-contract/conformance)',
    ]);
  });

  it('pass when declared, of the package itself, or of packages outside the workspace', () => {
    const scripts = [
      { path: 'sandbox/reliability/x.ts', text: "import { http } from '@payments-contract/conformance/testing';" },
      { path: 'sandbox/y.ts', text: "import type { SandboxConfig } from '@payments-contract/sandbox/testing';" },
      { path: 'generator/z.ts', text: "import { it } from 'vitest';" },
    ];
    expect(undeclaredPackageImports(scripts, manifests)).toEqual([]);
  });

  it('every one in the repository is declared by the importing package', () => {
    const { scripts, manifests } = readRepository(repoRoot);
    expect(undeclaredPackageImports(scripts, manifests)).toEqual([]);
  });
});
