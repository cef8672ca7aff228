// The set-up most reliability tests share: a sandbox process whose callbacks go to a local receiver (so no
// callback leaves the machine), started before the file's tests and removed after them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type CallbackReceiver, startReceiver } from '@payments-contract/conformance/testing';
import { serviceContract } from './live-conformance.js';
import { startSandboxProcess, type SandboxProcessOptions, type SandboxProcess } from './sandbox-process.js';

export interface Started {
  sandbox: SandboxProcess;
  receiver: CallbackReceiver;
}

/** Registers the hooks; the returned object is filled once they have run. */
export function useSandbox(options: SandboxProcessOptions = {}): Started {
  const started = {} as Started;
  beforeAll(async () => {
    started.receiver = await startReceiver({ contract: serviceContract, host: '127.0.0.1', port: 0 });
    started.sandbox = await startSandboxProcess({
      ...options,
      env: { SANDBOX_CALLBACK_URL: started.receiver.publicUrl, ...options.env },
    });
  });
  afterAll(async () => {
    await started.sandbox?.remove();
    await started.receiver?.close();
  });
  return started;
}

/**
 * A temporary directory made before the file's tests and removed after them (after the hooks registered
 * later, such as a sandbox's on it); not made at all when a filter leaves the file's tests out.
 */
export function useTempDir(prefix: string): { readonly path: string } {
  const dir = { path: '' };
  beforeAll(() => {
    dir.path = mkdtempSync(join(tmpdir(), `sandbox-reliability-${prefix}-`));
  });
  afterAll(() => {
    if (dir.path !== '') rmSync(dir.path, { recursive: true, force: true });
  });
  return dir;
}
