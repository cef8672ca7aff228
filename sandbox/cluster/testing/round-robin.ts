// A tiny round-robin front for tests and the cluster script: one address on 127.0.0.1 that hands each request
// to the next of several sandboxes in turn, as a load balancer would, and counts what each one served.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobin {
  url: string;
  /** Requests handed to each target, in the order given. */
  served: number[];
  close(): Promise<void>;
}

/** Hop-by-hop headers and the ones fetch recomputes: never passed on. */
const DROPPED = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
]);

async function bodyOf(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks);
}

export async function startRoundRobin(targets: readonly string[], port = 0): Promise<RoundRobin> {
  const served = targets.map(() => 0);
  let next = 0;
  const server = createServer((request, response) => {
    const index = next++ % targets.length;
    served[index]!++;
    void (async () => {
      try {
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers))
          if (!DROPPED.has(name) && value !== undefined)
            headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        const body = await bodyOf(request);
        const answer = await fetch(`${targets[index]!}${request.url ?? '/'}`, {
          method: request.method ?? 'GET',
          headers,
          ...(body ? { body: new Uint8Array(body) } : {}),
          redirect: 'manual',
        });
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!DROPPED.has(name)) out[name] = value;
        });
        const text = Buffer.from(await answer.arrayBuffer());
        response.writeHead(answer.status, out).end(text);
      } catch (error) {
        response.writeHead(502, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error_code: 'BAD_GATEWAY',
            message: `the sandbox behind the front did not answer: ${error instanceof Error ? error.message : String(error)}`,
          }),
        );
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
