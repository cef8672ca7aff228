// The repository's vitest configuration (`npm run test:unit`, or `npx vitest run --config .ci/vitest.config.ts
// <files>`). Workspace packages are entered through their declared `exports`; the `source` condition there
// points at the TypeScript sources, so tests run what is written, not a stale build.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
  },
});
