// The test files that run each in a worker process of its own (vitest's `isolate`); every other file shares
// worker processes with the files run before it, so the contract's packages, the sandbox and the suite are
// loaded once per worker instead of once per file, and a document's schemas are compiled once per worker
// (conformance/contract.ts). Measured on the 2-core machine: 148 small files took 324 s of CPU in processes
// of their own and 206 s sharing them; the suite's check and fault tests 94 s and 58 s. Shared files get their
// spies, stubbed globals and environment variables restored after each test (vitest.config.ts).
//
// A file belongs here when it starts a whole service or a browser and measures it, when it replaces a module
// (vi.mock), when it changes the process in a way a restore does not undo, or when it judges its own memory.
// A name here that no file has fails the configuration, so the list cannot go stale silently.
export const OWN_PROCESS = [
  // The full profile and the catalogue against in-process sandboxes, a cluster, a scheduler on PostgreSQL,
  // `npm start`: long runs whose timings (rate-limit windows, callback waits) a neighbour's leftovers must not
  // move.
  'conformance/tests/sandbox-checks.test.ts',
  'conformance/tests/sandbox-full.test.ts',
  'conformance/tests/sandbox-full-manual.test.ts',
  'conformance/tests/prism.test.ts',
  'conformance/mutants/catalogue.test.ts',
  'conformance/mutants/runner.test.ts',
  'sandbox/main.test.ts',
  'sandbox/cluster/cluster.test.ts',
  'sandbox/platform/scheduler.test.ts',
  // Browsers.
  'spec/tests/docs.browser.test.ts',
  'sandbox/dashboard/dashboard.browser.test.ts',
  'sandbox/browser-protections.browser.test.ts',
  // The generator, the packages as users install them, third-party generators, installs and releases.
  'generator/packed.test.ts',
  'generator/generate.test.ts',
  'generator/releases/release.test.ts',
  'generator/tests/third-party-generators.test.ts',
  'generator/tests/client-network.test.ts',
  'generator/tests/install.test.ts',
  // Memory judged by the process's own peak; a module replaced with vi.mock; a prototype's method spied on.
  'sandbox/store/journal/store.large.test.ts',
  'sandbox/store/journal/store.write-failure.test.ts',
  'sandbox/store/journal/store.test.ts',
];
