// What the command-line tests share: a sandbox served on 127.0.0.1 as `npm start` serves it (in the test's
// process, in memory), and a port nothing listens on.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** A port nothing listens on (one just closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
