// The repository's release is whole: the packages' one version, their pins and the lock file agree, and the
// contract's version is the same in the spec, its bundle, the packages' manifests and the changelog. When this
// fails, `npm run release` (never a hand edit) brings it back in step.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGELOG_END, CHANGELOG_START } from './changelog.js';
import { newestChangelogRow, outOfStep, PINNING } from './in-step.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('the release', () => {
  it('is in step in the repository', () => {
    expect(outOfStep(repoRoot)).toEqual([]);
  });

  describe('out of step in a copy', () => {
    const copy = mkdtempSync(join(tmpdir(), 'in-step-'));
    for (const path of [
      'spec/openapi.yaml',
      'spec/info-description.md',
      'generated/contract/openapi.json',
      'generator/packages/version.json',
      'package-lock.json',
      ...['contract', 'client', 'server'].map((name) => `generated/${name}/package.json`),
      ...PINNING.map((folder) => `${folder}/package.json`),
    ])
      cpSync(join(repoRoot, path), join(copy, path));
    afterAll(() => rmSync(copy, { recursive: true, force: true }));
    const edit = (path: string, change: (text: string) => string): void =>
      writeFileSync(join(copy, path), change(readFileSync(join(copy, path), 'utf8')));

    it('finds a pin edited by hand, a manifest and a bundle behind the spec', () => {
      edit('sandbox/package.json', (text) => text.replace(/("@payments-contract\/client": ")[^"]+/, '$10.0.1'));
      edit('spec/openapi.yaml', (text) => text.replace(/^( {2}version: ).*$/m, '$19.9.9'));
      expect(outOfStep(copy)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^sandbox\/package.json pins @payments-contract\/client 0.0.1/),
          expect.stringMatching(/^generated\/contract\/openapi.json is contract .*, spec\/openapi.yaml says 9.9.9$/),
          expect.stringMatching(/^the changelog's newest entry is .*, spec\/openapi.yaml says contract 9.9.9$/),
          expect.stringMatching(/^@payments-contract\/server carries contract .*, spec\/openapi.yaml says 9.9.9$/),
        ]),
      );
    });
  });

  it("reads the changelog's newest entry", () => {
    const description = `intro\n${CHANGELOG_START}\n**1.6.0**, unreleased:\n\n- a.\n\n**1.5.0**, 2026-01-01:\n\n- b.\n${CHANGELOG_END}\n`;
    expect(newestChangelogRow(description)).toBe('1.6.0');
  });
});
