// Serves a fetch-standard handler, `(request: Request) => Promise<Response>` (the generated router, the
// webhook receiver), on Node's http/https servers: `createServer(toNodeListener(router)).listen(...)`.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export type FetchHandler = (request: Request) => Promise<Response>;

function toRequest(message: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = message.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(message.url ?? '/', origin), {
    method,
    headers,
    // The body streams through: the handler decides how much of it to read (and refuses oversized ones).
    ...(hasBody ? { body: Readable.toWeb(message) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

async function writeResponse(response: Response, out: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  });
  out.writeHead(response.status, headers);
  if (response.body) {
    const reader = response.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out.write(chunk.value);
  }
  out.end();
}

/**
 * Adapts a fetch-standard handler to Node. `origin` fills the scheme and host of the request URL (Node
 * only sees the path). A handler that throws gets a generic JSON 500; the error goes to `onError`.
 */
export function toNodeListener(handler: FetchHandler, options: { origin: string; onError?: (error: unknown) => void }): RequestListener {
  return (message, out) => {
    void (async () => {
      try {
        await writeResponse(await handler(toRequest(message, options.origin)), out);
      } catch (error) {
        options.onError?.(error);
        // Once the status line is out, all that is left is to cut the response short.
        if (out.headersSent) {
          out.destroy();
          return;
        }
        out.writeHead(500, { 'content-type': 'application/json' });
        out.end(JSON.stringify({ error_code: 'SERVER_ERROR', message: 'The server failed to answer.' }));
      }
    })();
  };
}
