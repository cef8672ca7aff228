// What the command-line tests share: a sandbox served on 127.0.0.1 as `npm start` serves it (in the test's
// process, in memory), a port nothing listens on, and a merchant's receiver that records what it gets.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen, type ListenOptions } from './listen.js';

export { startLocalSandbox } from '../testing/local-sandbox.js';

/** A port nothing listens on (one just closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A callback a receiver got: its headers, the merchant's token among them, and its JSON body. */
export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  token: string | undefined;
  body: Record<string, unknown>;
}

export interface RecordingReceiver {
  url: string;
  received: ReceivedCallback[];
  close(): Promise<void>;
}

/** A merchant's receiver on 127.0.0.1 recording every callback, answering `status()` (default 200). */
export async function startRecordingReceiver(status: () => number = () => 200): Promise<RecordingReceiver> {
  const received: ReceivedCallback[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const token = request.headers['x-callback-token'];
      received.push({
        headers: request.headers,
        token: typeof token === 'string' ? token : undefined,
        body: JSON.parse(body) as Record<string, unknown>,
      });
      response.statusCode = status();
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A listener (`payments-sandbox listen`) running until `stop()`, its output captured; polls wait 2 s. */
export function startListening(options: Omit<ListenOptions, 'signal' | 'stdout' | 'stderr'>) {
  const output = { stdout: '', stderr: '' };
  const stopping = new AbortController();
  const done = listen({
    waitMs: 2000,
    ...options,
    signal: stopping.signal,
    stdout: { write: (text: string) => ((output.stdout += text), true) },
    stderr: { write: (text: string) => ((output.stderr += text), true) },
  });
  return { output, done, stop: () => (stopping.abort(), done) };
}
