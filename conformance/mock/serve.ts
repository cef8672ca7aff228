// Starts the mock: Prism serving a contract on an internal loopback port, and the generated router in front
// of it (front.ts) on the address clients use. Stopping it stops both.
import type { AddressInfo } from 'node:net';
import { createNodeServer } from '@payments-contract/server/runtime/node-listener';
import { defaultSpecPath } from '../contract.js';
import { createMockFront, type MockExchange } from './front.js';
import { startPrism } from './prism.js';

export interface MockOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default: the bundled contract. */
  specPath?: string;
  onExchange?: (exchange: MockExchange) => void;
}

export interface RunningMock {
  /** Where clients send requests (the router in front of Prism). */
  url: string;
  /** Prism itself, behind the router. */
  prismUrl: string;
  /** Settles when Prism exits on its own (a crash) or after `stop`. */
  exited: Promise<number | null>;
  stop: () => Promise<void>;
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const specPath = options.specPath ?? defaultSpecPath;
  const prism = await startPrism({ specPath });
  const front = createMockFront({
    upstream: prism.url,
    ...(options.onExchange ? { onExchange: options.onExchange } : {}),
  });
  const server = createNodeServer(front, { origin: 'http://mock.local' });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
    });
  } catch (error) {
    await prism.stop();
    throw error;
  }
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      server.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), prism.stop()]);
    })();
    return stopping;
  };
  return { url: `http://${host}:${port}`, prismUrl: prism.url, exited: prism.exited, stop };
}
