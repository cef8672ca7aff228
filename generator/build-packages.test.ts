// What `npm run build` (run by `npm install`) leaves in the packages: compiled JavaScript with declarations,
// the compiled validators beside it, and the contract's Redoc pages. These read the build of this checkout.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGE_BUILDS } from './build-packages.js';

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
  ])('contract: %s is a self-contained Redoc page', (page, title, operation) => {
    const html = readFileSync(join(repoRoot, 'generated/contract', page), 'utf8');
    expect(html).toContain(`<title>${title}</title>`);
    // --inlineBundle: the page carries Redoc itself, so it works offline.
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).toContain(operation);
  });
});
