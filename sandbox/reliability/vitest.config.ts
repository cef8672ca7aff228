// The reliability suite (`npm run test:reliability`, RELIABILITY_SCALE=ci for the smaller run): its own
// files (`*.reliability.ts`), so the repository's `vitest run` never runs them a second time. Files run one
// after another: each starts its own sandboxes and drives them hard, and two at once would measure each
// other on a shared machine.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Packages are entered through their exports' `source` condition, as in .ci/vitest.config.ts: the suite
  // runs the TypeScript that is written (the testing doors are never built).
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['sandbox/reliability/**/*.reliability.ts'],
    fileParallelism: false,
    pool: 'forks',
    // One worker for every file, its modules loaded once (the contracts, the suite's checks): each file starts
    // and removes its own sandboxes, and nothing else of one file is left for the next.
    isolate: false,
    // Every test bounds its own loops; these only stop a run that went wrong.
    testTimeout: 20 * 60_000,
    hookTimeout: 5 * 60_000,
  },
});
