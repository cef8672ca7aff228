import { fileURLToPath } from 'node:url';

/** The repository's root, for tests and benchmarks that run its commands (not part of the package). */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
