// The repository's vitest configuration (`npm run test:unit`, or `npx vitest run --config .ci/vitest.config.ts
// <files>`). Workspace packages are entered through their declared `exports`; the `source` condition there
// points at the TypeScript sources, so tests run what is written, not a stale build.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take longest (measured on the 2-core machine, most of it spent waiting: a full profile paced to
 * the contract's rate limits, callbacks, browsers, child processes), longest first. They start first so that
 * none of them is left to run alone at the end; the rest follow as vitest orders them (by last run's times
 * where it has them, by size on a fresh clone, which would put these small files last).
 */
const LONGEST_FIRST = [
  'conformance/tests/sandbox-postgres-cluster.test.ts',
  'generator/packed.test.ts',
  'conformance/tests/faults-transitions.test.ts',
  'conformance/tests/sandbox-full-manual.test.ts',
  'conformance/tests/sandbox-full.test.ts',
  'conformance/tests/faults-existing-families.test.ts',
  'conformance/tests/faults-boundaries-money.test.ts',
  'conformance/tests/faults-isolation.test.ts',
  'conformance/checks/balance-rules.test.ts',
  'spec/tests/docs.browser.test.ts',
  'conformance/mock/serve.test.ts',
  'generator/tests/commands.test.ts',
  'generator/generate.test.ts',
  'conformance/tests/faults-rate-limit.test.ts',
  'conformance/tests/faults-callbacks-sandbox.test.ts',
  'sandbox/store/journal-store.large.test.ts',
  'conformance/tests/faults-callbacks.test.ts',
  'sandbox/store/postgres/postgres-store.test.ts',
];

const root = fileURLToPath(new URL('..', import.meta.url));

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
    // Most files wait (on timers, sockets, child processes, browsers) far more than they compute, so more files
    // run at once than there are cores; vitest's default (cores - 1) ran one at a time on the 2-core machine.
    pool: 'forks',
    maxWorkers: Math.max(4, availableParallelism() * 2),
    sequence: { sequencer: LongestFirst },
  },
});
