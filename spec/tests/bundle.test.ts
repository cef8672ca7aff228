// generated/contract/openapi.json is the committed, bundled contract that every consumer reads. It must be exactly
// what bundling spec/ produces now, or consumers are reading a stale contract.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'bundle-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe.each([
  ['spec/openapi.yaml', 'generated/contract/openapi.json'],
  ['spec/sandbox.yaml', 'generated/contract/sandbox/openapi.json'],
])('%s bundled', (source, committed) => {
  it(`is identical to the committed ${committed} (run \`npm run bundle\` and commit when this fails)`, () => {
    const fresh = join(workDir, committed.replaceAll('/', '_'));
    execFileSync(join(repoRoot, 'node_modules/.bin/redocly'), ['bundle', source, '--ext', 'json', '--output', fresh], {
      cwd: repoRoot,
      stdio: 'pipe',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
    });
    expect(readFileSync(join(repoRoot, committed), 'utf8')).toBe(readFileSync(fresh, 'utf8'));
  }, 60_000);
});
