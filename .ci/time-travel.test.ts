// `npm run test:time-travel` runs a named list of suites under faketime: a name that no file has any more must
// stop it, never leave that suite out of the run in silence.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const script = join(root, '.ci/time-travel.sh');

/** The suites the script names, from its `suites=( … )` list. */
function listedSuites(): string[] {
  const list = /^suites=\(\n([\s\S]*?)^\)/m.exec(readFileSync(script, 'utf8'))?.[1] ?? '';
  return list
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

describe('the time-travel run', () => {
  it('names suites that exist', () => {
    const suites = listedSuites();
    expect(suites.length).toBeGreaterThan(0);
    expect(suites.filter((suite) => !existsSync(join(root, suite)))).toEqual([]);
  });

  it('stops, naming the suite, when one it names does not exist', () => {
    // A copy of the script in a folder that holds none of the suites.
    const elsewhere = mkdtempSync(join(tmpdir(), 'time-travel-'));
    try {
      mkdirSync(join(elsewhere, '.ci'));
      cpSync(script, join(elsewhere, '.ci/time-travel.sh'));
      const ran = spawnSync('bash', [join(elsewhere, '.ci/time-travel.sh')], { encoding: 'utf8', timeout: 60_000 });
      expect(ran.status).toBe(1);
      expect(ran.stderr).toContain(`${listedSuites()[0]} does not exist`);
      expect(ran.stdout).not.toContain('faketime');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
