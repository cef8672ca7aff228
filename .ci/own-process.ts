// The test files that run each in a worker process of its own (vitest's `isolate`); every other file shares
// worker processes with the files run before it, so the contract's packages, the sandbox and the suite are
// loaded once per worker instead of once per file. Measured on the 2-core machine (148 small files, each
// alone under 3 s of CPU): 324 s of CPU in processes of their own, 206 s sharing them. Shared files get their
// spies, stubbed globals and environment variables restored after each test (vitest.config.ts).
//
// A file belongs here when it starts a whole service or a browser and measures it, when it replaces a module
// (vi.mock), when it changes the process in a way a restore does not undo, or when it judges its own memory.
// A name here that no file has fails the configuration, so the list cannot go stale silently.
export const OWN_PROCESS = [
  // The full profile, the catalogue and the suite's checks against in-process sandboxes: long runs whose
  // timings (rate-limit windows, callback waits) a neighbour's leftovers must not move.
  'conformance/tests/sandbox-checks.test.ts',
  'conformance/tests/sandbox-full.test.ts',
  'conformance/tests/sandbox-full-manual.test.ts',
  'conformance/tests/faults-simulations.test.ts',
  'conformance/tests/faults-callbacks.test.ts',
  'conformance/tests/faults-request.test.ts',
  'conformance/tests/faults-callback-deliveries.test.ts',
  'conformance/tests/faults-idempotency.test.ts',
  'conformance/tests/prism.test.ts',
  'conformance/mutants/catalogue.test.ts',
  'conformance/mutants/runner.test.ts',
  'conformance/checks/idempotency-scope.test.ts',
  'conformance/checks/forbidden-transitions.test.ts',
  'conformance/checks/stateful-workflows.test.ts',
  'conformance/checks/auth.test.ts',
  'conformance/checks/negative-data.test.ts',
  'conformance/checks/timestamps.test.ts',
  'conformance/checks/balance-rules.test.ts',
  'conformance/checks/lookups.test.ts',
  'conformance/checks/boundaries.test.ts',
  'conformance/cli.test.ts',
  'conformance/preflight.test.ts',
  'sandbox/main.test.ts',
  'sandbox/cluster/cluster.test.ts',
  'sandbox/limits/rate-limits.whole-sandbox.test.ts',
  'sandbox/callbacks/outbox.list.test.ts',
  'sandbox/customers/customers.test.ts',
  'sandbox/direct-debit/payments.test.ts',
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
  'generator/tests/no-unknown-types.test.ts',
  'generator/tests/install.test.ts',
  'generator/tests/webhooks-round-trip.test.ts',
  'generator/tests/webhook-node-receiver.test.ts',
  'generator/model/assert-never.test.ts',
  'generator/model/extension-types.test.ts',
  'generator/emit/client.test.ts',
  'generator/emit/webhooks.test.ts',
  'spec/tests/examples.test.ts',
  // Memory judged by the process's own peak; a module replaced with vi.mock; a prototype's method spied on.
  'sandbox/store/journal/store.large.test.ts',
  'sandbox/store/journal/store.write-failure.test.ts',
  'sandbox/store/journal/store.test.ts',
];
