// The command line: arguments, formats, --party, --fail-on exit statuses, and contracts it cannot read.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readReleases } from '../releases/releases.js';
import { runDiff } from './main.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'diff-command-'));
const releases = readReleases();
const [v1410, v1411] = [releases.find((r) => r.version === '1.4.10')!, releases.find((r) => r.version === '1.4.11')!];
const oldFile = join(scratch, 'openapi-1.4.10.json');
const newFile = join(scratch, 'openapi-1.4.11.json');
writeFileSync(oldFile, JSON.stringify(v1410.doc));
writeFileSync(newFile, JSON.stringify(v1411.doc));

function run(...argv: string[]): { status: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const status = runDiff(
    argv,
    { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) } },
    repoRoot,
  );
  return { status, stdout, stderr };
}

describe('payments-contract diff', () => {
  it('prints the changes as text and exits 0 without --fail-on', () => {
    const { status, stdout } = run('diff', oldFile, newFile);
    expect(status).toBe(0);
    expect(stdout).toContain('Payments API 1.4.10 → 1.4.11: 1 change (1 breaking');
  });

  it('exits 1 with --fail-on breaking when a reported party is broken, 0 when only other parties are', () => {
    expect(run(oldFile, newFile, '--fail-on', 'breaking').status).toBe(1);
    const clientsOnly = run(
      oldFile,
      newFile,
      '--fail-on',
      'breaking',
      '--party',
      'client,callback-receiver',
      '--format',
      'json',
    );
    expect(clientsOnly.status).toBe(0);
    expect(JSON.parse(clientsOnly.stdout).findings).toMatchObject([{ party: 'client', severity: 'non-breaking' }]);
  });

  it('writes Markdown for a pull-request comment', () => {
    expect(run(oldFile, newFile, '--format', 'markdown').stdout).toMatch(/^### Contract changes\n/);
  });

  it('refuses a command line it cannot use with status 2', () => {
    expect(run(oldFile).status).toBe(2);
    expect(run(oldFile, newFile, '--fail-on', 'sometimes').stderr).toContain(
      '--fail-on must be one of breaking, potentially-breaking',
    );
    expect(run(oldFile, newFile, '--party', 'auditor').status).toBe(2);
  });

  it('says why a contract argument cannot be read', () => {
    const notJson = join(scratch, 'contract.yaml');
    writeFileSync(notJson, 'openapi: 3.1.0\n');
    expect(run(notJson, newFile)).toMatchObject({ status: 2, stderr: expect.stringContaining('is not JSON') });
    expect(run('no-such-file-or-revision', newFile)).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('neither a file nor a git revision'),
    });
  });

  it('bundles spec/ at a git revision itself', () => {
    const { status, stdout } = run('git:HEAD', 'HEAD', '--format', 'json');
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ old: { title: 'Payments API' }, findings: [] });
  }, 60_000);
});
