// `npm run release`, run on a copy of the repository's release files (the spec, generated/, the packages'
// version, the pins and the lock file): a contract release and a packages-only release leave everything in step.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../model/types.js';
import { outOfStep, PINNING } from './in-step.js';
import { packagesLevel, raise, withInfoVersion } from './make-release.js';
import { runRelease } from './release.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('raise', () => {
  it.each([
    ['major', '2.0.0'],
    ['minor', '1.6.0'],
    ['patch', '1.5.1'],
  ] as const)('1.5.0 by %s is %s', (level, raised) => {
    expect(raise('1.5.0', level)).toBe(raised);
  });
});

describe('withInfoVersion', () => {
  it("sets the info block's version, not another block's", () => {
    const yaml = 'openapi: 3.1.0\ninfo:\n  title: T\n  version: 1.5.0\n  summary: S\nx-other:\n  version: 7\n';
    expect(withInfoVersion(yaml, '1.6.0')).toBe(
      'openapi: 3.1.0\ninfo:\n  title: T\n  version: 1.6.0\n  summary: S\nx-other:\n  version: 7\n',
    );
  });
});

describe('packagesLevel: the change check decides how far the packages move', () => {
  const contract = JSON.parse(readFileSync(join(repoRoot, 'generated/contract/openapi.json'), 'utf8')) as JsonObject;
  const withPaths = (change: (paths: JsonObject) => void): JsonObject => {
    const copy = structuredClone(contract);
    change(copy.paths as JsonObject);
    return copy;
  };

  it('descriptions only: patch', () => {
    expect(packagesLevel(contract, { ...contract, info: { ...(contract.info as JsonObject), title: 'Other' } })).toBe(
      'patch',
    );
  });

  it('a new operation: minor', () => {
    const added = withPaths((paths) => {
      paths['/extra'] = { get: { operationId: 'getExtra', responses: { '204': { description: 'Nothing.' } } } };
    });
    expect(packagesLevel(contract, added)).toBe('minor');
  });

  it('an operation removed (clients calling it break): major', () => {
    const removed = withPaths((paths) => {
      delete paths['/balance'];
    });
    expect(packagesLevel(contract, removed)).toBe('major');
  });
});

describe('npm run release on a copy of the repository', () => {
  const copy = mkdtempSync(join(tmpdir(), 'release-'));
  const tracked = execFileSync('git', ['ls-files', 'spec', 'generated', 'redocly.yaml'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((path) => path !== '');
  for (const path of [
    ...tracked,
    'generator/packages/version.json',
    'package-lock.json',
    ...PINNING.map((folder) => `${folder}/package.json`),
  ])
    cpSync(join(repoRoot, path), join(copy, path));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));
  const json = (path: string): JsonObject => JSON.parse(readFileSync(join(copy, path), 'utf8')) as JsonObject;
  const printed: string[] = [];
  const release = (...args: string[]): Promise<number> => runRelease(args, copy, (text) => printed.push(text));
  const packagesVersion = String(json('generator/packages/version.json').version);

  it('--packages patch: the packages alone move, every manifest, pin and the lock file with them', async () => {
    expect(await release('--packages', 'patch')).toBe(0);
    const raised = raise(packagesVersion, 'patch');
    expect(json('generated/client/package.json')).toMatchObject({
      version: raised,
      'x-contract-version': String((json('generated/contract/openapi.json').info as JsonObject).version),
    });
    expect(json('sandbox/package.json').dependencies).toMatchObject({ '@payments-contract/server': raised });
    expect(outOfStep(copy)).toEqual([]);
  }, 120_000);

  it('--contract 1.6.0 --date: the spec, bundle, release record, changelog, packages and pins follow', async () => {
    expect(await release('--contract', '1.6.0', '--date', '2026-12-01')).toBe(0);
    expect(readFileSync(join(copy, 'spec/openapi.yaml'), 'utf8')).toMatch(/^ {2}version: 1\.6\.0$/m);
    expect((json('generated/contract/openapi.json').info as JsonObject).version).toBe('1.6.0');
    expect((json('spec/releases/releases.json').releases as JsonObject[]).at(-1)).toMatchObject({
      version: '1.6.0',
      date: '2026-12-01',
    });
    expect(readFileSync(join(copy, 'spec/info-description.md'), 'utf8')).toContain('**1.6.0**, 2026-12-01:');
    // Against the last release (1.4.11), 1.6.0 carries 1.5.0's new request bounds, which break clients.
    expect(json('generated/server/package.json')).toMatchObject({ version: '2.0.0', 'x-contract-version': '1.6.0' });
    expect(readFileSync(join(copy, 'generated/client/src/contract-version.ts'), 'utf8')).toContain("'1.6.0'");
    expect(printed.at(-1)).toMatch(/^Contract 1\.6\.0; packages 2\.0\.0 \(major\)/);
    expect(outOfStep(copy)).toEqual([]);
  }, 240_000);

  it('refuses a contract version not above the last release, and a level that is none', async () => {
    expect(await release('--contract', '1.4.0')).toBe(1);
    expect(await release('--packages', 'tiny')).toBe(2);
    expect(await release()).toBe(2);
  });
});
