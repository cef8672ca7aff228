import { describe, expect, it } from 'vitest';
import { repoRoot } from './repo-root.js';
import { nodeFlagsOf, startScriptNodeFlags } from './start-script.js';

describe("the bench's sandbox command", () => {
  it('takes the flags between node and the entry of the start script', () => {
    expect(nodeFlagsOf('exec node --max-semi-space-size=64 --import tsx sandbox/main.ts')).toEqual([
      '--max-semi-space-size=64',
      '--import',
      'tsx',
    ]);
    expect(nodeFlagsOf('exec node sandbox/main.ts')).toEqual([]);
  });

  it('refuses a start script of another form rather than guess its flags', () => {
    expect(() => nodeFlagsOf('node --import tsx sandbox/main.ts')).toThrow(/exec node/);
    expect(() => nodeFlagsOf('exec tsx sandbox/main.ts')).toThrow(/exec node/);
    expect(() => nodeFlagsOf('exec node --import tsx sandbox/main.ts --port 3000')).toThrow(/exec node/);
  });

  it("is npm start's: TypeScript through tsx, and a young generation of 64 MiB semi-spaces", () => {
    // The larger young generation: fewer scavenges under load, fewer short-lived objects promoted (bench README).
    expect(startScriptNodeFlags(repoRoot)).toEqual(['--max-semi-space-size=64', '--import', 'tsx']);
  });
});
