// `@payments-contract/sandbox/testing`: what the repository's other packages test with. The sandbox in their
// own process (its app, configuration and site, listening on a port they choose), as a child process, as a
// PostgreSQL cluster, and the test merchants. Repository tooling, not a published API: its export has only
// the `source` condition, so it is never built and a published package (which drops that condition) does
// not export it.
export { createSandboxApp, type SandboxApp, type SandboxAppOptions } from '../app.js';
export { startInProcessCluster, type InProcessCluster } from '../cluster/testing/in-process-cluster.js';
export {
  contractRetryDelayMs,
  DEFAULT_LIVE_SECRET_KEY,
  DEFAULT_TEST_CALLBACK_TOKEN,
  DEFAULT_TEST_SECRET_KEY,
  defaultConfig,
  type SandboxConfig,
} from '../config.js';
export { startSandboxProcess } from '../reliability/sandbox-process.js';
export { createSite, DOCS, listen, readDocs, type Listening } from '../server.js';
export { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
export { TEST_MERCHANTS } from './index.js';
