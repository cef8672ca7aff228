import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageVersion } from './package-version.js';

const root = mkdtempSync(join(tmpdir(), 'package-version-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const moduleIn = (dir: string): string => pathToFileURL(join(dir, 'main.ts')).href;

describe('packageVersion', () => {
  it('reads the nearest package.json: a package inside the repository has its own version', () => {
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'outer', version: '1.0.0' }));
    mkdirSync(join(root, 'inner', 'src'), { recursive: true });
    writeFileSync(join(root, 'inner', 'package.json'), JSON.stringify({ name: 'inner', version: '2.3.4' }));
    expect(packageVersion(moduleIn(join(root, 'inner', 'src')))).toBe('2.3.4');
    expect(packageVersion(moduleIn(join(root, 'inner')))).toBe('2.3.4');
    mkdirSync(join(root, 'plain', 'deeper'), { recursive: true });
    expect(packageVersion(moduleIn(join(root, 'plain', 'deeper')))).toBe('1.0.0');
  });

  it('refuses a nearest package.json without a version rather than reading one further up', () => {
    mkdirSync(join(root, 'unversioned'));
    writeFileSync(join(root, 'unversioned', 'package.json'), JSON.stringify({ name: 'unversioned' }));
    expect(() => packageVersion(moduleIn(join(root, 'unversioned')))).toThrow(/has no version/);
  });
});
