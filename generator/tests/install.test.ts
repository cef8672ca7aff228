// What `npm install` does in this repository: it runs only the install scripts the root package.json
// approves (none that reports the install anywhere), and links every workspace's commands, so `npx <bin>`
// runs this checkout instead of asking the public registry for a package of that name.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

interface Manifest {
  workspaces?: string[];
  bin?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
  scarfSettings?: { enabled?: boolean };
}
const manifestOf = (folder: string): Manifest =>
  JSON.parse(readFileSync(join(repoRoot, folder, 'package.json'), 'utf8')) as Manifest;
const root = manifestOf('.');

describe('installing the repository', () => {
  it('runs no install script the root package.json has not reviewed', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NPM_CONFIG_UPDATE_NOTIFIER: 'false' };
    const { stdout } = await run('npm', ['install-scripts', 'ls', '--json'], { cwd: repoRoot, env, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ allowScripts: [] });
    // The native SQLite store and the bundler need theirs.
    expect(root.allowScripts).toMatchObject({ 'better-sqlite3': true, esbuild: true });
  });

  it("keeps Spectral's install telemetry (@scarf/scarf) from reporting: its script denied, and off by its own switch", () => {
    expect(root.allowScripts?.['@scarf/scarf']).toBe(false);
    // What @scarf/scarf's report.js reads from the root package, for npm versions that run the script anyway.
    expect(root.scarfSettings?.enabled).toBe(false);
  });

  it.each((root.workspaces ?? []).map((folder) => [folder] as const))(
    '%s: every bin names a file the repository holds before the build, as the lockfile says',
    (folder) => {
      // A fresh install links what the lockfile records, not the manifest: both must name the same files.
      const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, Manifest>;
      };
      expect(lock.packages[folder]?.bin).toEqual(manifestOf(folder).bin);
      // npm links bins before the root `prepare` builds dist/, and skips one whose file is not there yet.
      for (const [name, target] of Object.entries(manifestOf(folder).bin ?? {})) {
        const file = join(folder, target);
        expect(existsSync(join(repoRoot, file)), `${name} -> ${file}`).toBe(true);
        const ignored = spawnSync('git', ['check-ignore', '--quiet', file], { cwd: repoRoot }).status === 0;
        expect(ignored, `${name} -> ${file} is a build output (ignored by git)`).toBe(false);
        // Executable as committed and on disk: npm makes it so at install, which must not show as a change.
        expect(
          spawnSync('git', ['ls-files', '--stage', file], { cwd: repoRoot, encoding: 'utf8' }).stdout,
          `${name} -> ${file} in git`,
        ).toMatch(/^100755 /);
        expect(statSync(join(repoRoot, file)).mode & 0o111, `${name} -> ${file} on disk`).toBe(0o111);
      }
    },
  );
});
