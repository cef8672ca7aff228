// Test support: a target that is the sandbox with one mistake in its answers. It forwards every request to a
// sandbox and passes the answer back, its JSON body first through `rewrite` (the request's method and path
// beside it), so a test breaks one rule of what the service answers (a timestamp, the order of a list)
// without a fake of every resource. Listens on 127.0.0.1, port chosen by the OS.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from '@payments-contract/contract/model/types';

export interface ProxiedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
}

/** The JSON body to answer instead, or undefined to pass the sandbox's on. */
export type Rewrite = (request: ProxiedRequest, body: Json) => Json | undefined;

export interface Proxy {
  url: string;
  close: () => Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

export async function startRewritingProxy(upstream: string, rewrite: Rewrite): Promise<Proxy> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const method = request.method ?? 'GET';
      const url = request.url ?? '/';
      const headers = Object.fromEntries(
        Object.entries(request.headers).flatMap(([name, value]) =>
          HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
        ),
      );
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      void fetch(new URL(url, upstream), {
        method,
        headers,
        ...(body && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
      })
        .then(async (answer) => {
          let text = await answer.text();
          if ((answer.headers.get('content-type') ?? '').includes('json') && text !== '') {
            const replaced = rewrite({ method, url }, JSON.parse(text) as Json);
            if (replaced !== undefined) text = JSON.stringify(replaced);
          }
          const out: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
          });
          response.writeHead(answer.status, out).end(text);
        })
        .catch((error: unknown) =>
          response
            .writeHead(502, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error_code: 'PROXY_ERROR', message: String(error) })),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
