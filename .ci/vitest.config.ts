// The repository's vitest configuration (`npm run test:unit`, or `npx vitest run --config .ci/vitest.config.ts
// <files>`). Workspace packages are entered through their declared `exports`; the `source` condition there
// points at the TypeScript sources, so tests run what is written, not a stale build. The files in ALONE run
// with `VITEST_ALONE=1` in front of the same command.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { OWN_PROCESS } from './own-process.js';

/**
 * Files that take longest (measured one at a time on the 2-core machine), started first so that none is left to
 * run alone at the end; the rest follow as vitest orders them (by the last run's times where it has them, by
 * size on a fresh clone, which would put these small files last). Those that mostly wait (W: a full profile
 * paced to the contract's rate limits, child processes, a browser, a database) alternate with those that
 * mostly compute (C: a sandbox copy started per mutant, a 1 GiB journal, the generator), so the two cores
 * are not shared by several computing files at once while the waiting ones idle.
 */
const LONGEST_FIRST = [
  'conformance/tests/sandbox-checks.test.ts', // C 40 s
  'generator/packed.test.ts', // W 54 s
  'conformance/tests/sandbox-full-manual.test.ts', // W 51 s
  'conformance/tests/sandbox-full.test.ts', // W 50 s
  'spec/tests/docs.browser.test.ts', // W 29 s alone; 100 to 185 s beside others since it opens all 27 samples
  'generator/docs/samples.test.ts', // C 55 s (tsc over the 27 TypeScript samples, 27 curl against a sandbox)
  'sandbox/walkthrough.test.ts', // W 45 s (the README walkthrough 4 times in bash and zsh)
  'conformance/mock/serve.test.ts', // W 28 s
  'sandbox/store/journal/store.large.test.ts', // C 20 s
  'conformance/checks/balance-rules.test.ts', // C 35 s
  'generator/tests/commands.test.ts', // W 26 s
  'sandbox/store/postgres/store.test.ts', // W 14 s
  'generator/generate.test.ts', // C 25 s
  'conformance/tests/faults-callbacks.test.ts', // C 20 s
];

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Files that measure the machine itself (a sandbox cluster on PostgreSQL paced to the contract's rate limits and
 * callback timings) and fail when several unit files share its cores: they run apart from the others, one at a
 * time (VITEST_ALONE=1 selects them; `npm run test:unit` runs them after the others, `npm test` beside the
 * mutant catalogue and the reliability suite, which mostly wait). The 1 GiB journal's memory test runs with the
 * others: it judges the reopening's own peak (reset just before it), which files beside it do not move.
 */
export const ALONE = ['conformance/tests/sandbox-postgres-cluster.test.ts'];
const alone = process.env.VITEST_ALONE === '1';

const stale = OWN_PROCESS.filter((file) => !existsSync(join(root, file)));
if (stale.length > 0) throw new Error(`.ci/own-process.ts names files that do not exist: ${stale.join(', ')}`);

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const index = LONGEST_FIRST.indexOf(spec.moduleId.slice(root.length));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the rest keep the base order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    root,
    // The compiled validators (3.3 and 3.7 MB of plain ESM) load as Node loads them: through vitest's transform
    // they took 5.7 s to transform and 1.2 s to load in each worker process, natively 0.2 s (measured).
    server: { deps: { external: [/\/validators\/strict\.js$/] } },
    // Most files wait (on timers, sockets, child processes, browsers) far more than they compute, so more files
    // run at once than there are cores; vitest's default (cores - 1) ran one at a time on the 2-core machine.
    // Four at once on two cores: with the mutants judged by the catalogue alone (no sandbox copy per mutant here)
    // three files kept the two cores 63% busy (825 s of CPU over 653 s). More than that would starve the checks
    // that judge timing (a rate-limit window, a callback's wait).
    pool: 'forks',
    maxWorkers: alone ? 1 : Math.max(4, availableParallelism() + 2),
    ...(alone
      ? { include: ALONE }
      : {
          projects: [
            { extends: true, test: { name: 'own-process', include: OWN_PROCESS } },
            {
              extends: true,
              test: {
                name: 'shared',
                exclude: [...configDefaults.exclude, ...ALONE, ...OWN_PROCESS],
                isolate: false,
                // What a file changes for its tests is undone after each, so the next file in the process
                // starts as it would in a process of its own.
                restoreMocks: true,
                unstubGlobals: true,
                unstubEnvs: true,
              },
            },
          ],
        }),
    sequence: { sequencer: LongestFirst },
    // vitest's defaults (5 s a test, 10 s a hook) are for a file that has the machine to itself; a file sharing
    // it with two others may take twice as long. Tests and hooks that need more still say so themselves.
    testTimeout: 15_000,
    hookTimeout: 30_000,
    // expect.poll waits for something another process or a browser does; its default second is an ask for
    // speed, which a loaded machine does not keep. A poll that never comes true still fails, later.
    expect: { poll: { timeout: 10_000 } },
  },
});
