// Test support: the in-process sandbox (as the full profile runs it) for check tests, and the same sandbox
// with one mistake in its answers behind a rewriting proxy, so a test sees a check pass against the reference
// and fail against the mistake.
import { defaultConfig } from '@payments-contract/sandbox/testing';
import { serveInProcess, type ServedSandbox } from '../full-profile.js';
import { startRewritingProxy, type Proxy, type Rewrite } from './rewriting-proxy.js';

export interface TestSandbox {
  served: ServedSandbox;
  apiKey: string;
  /** The sandbox behind a proxy that rewrites its JSON answers. */
  withMistake: (rewrite: Rewrite) => Promise<Proxy>;
}

export async function startTestSandbox(): Promise<TestSandbox> {
  const config = defaultConfig({
    dataDir: ':memory:',
    host: '127.0.0.1',
    port: 0,
    validateResponses: true,
    autoProgress: true,
  });
  const merchant = config.merchants[0];
  if (!merchant) throw new Error('the sandbox configuration has no merchant');
  const served = await serveInProcess(config, { onError: () => undefined, onAlert: () => undefined });
  return { served, apiKey: merchant.keys.test, withMistake: (rewrite) => startRewritingProxy(served.url, rewrite) };
}
