// A sandbox served on 127.0.0.1 as `npm start` serves it, in the test's process, for tests that need a real
// listener (a browser, a command line, the request record through HTTP).
import { parseConfig } from '../config.js';
import { startSandbox, type RunningSandbox } from '../main.js';

/** A sandbox on a free 127.0.0.1 port with its data in memory, configured by `env` beside that. */
export async function startLocalSandbox(env: Record<string, string> = {}): Promise<RunningSandbox> {
  const parsed = parseConfig({
    argv: [],
    env: { PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', LOG_LEVEL: 'warn', ...env },
  });
  if (parsed.kind !== 'config') throw new Error('the sandbox configuration did not parse');
  return startSandbox(parsed.config, { docs: false, log: () => {} });
}
