// A fetch-standard handler (the webhook receiver) mounted on Node's http server and on the frameworks built on
// it, in one line:
//   http.createServer(toNodeHandler(receive))
//   app.post('/callbacks', toNodeHandler(receive))                                         // Express
//   app.post('/callbacks', (req, reply) => toNodeHandler(receive)(fastifyRequest(req), reply.hijack().raw)) // Fastify
// The handler sees the request as the fetch form would (method, URL, headers, body) and its answer is written
// back as it is, so the verification and the answers are the fetch form's own. The client's light version of
// the server's node-listener: no protocol handling of its own, nothing but the adaptation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** A Node request, possibly with the body a framework has already read (Express's `express.json()`, Fastify). */
export type NodeRequest = IncomingMessage & { body?: unknown };

/**
 * The body as the fetch form needs it: what a framework parsed, sent on as JSON; else the stream itself, which
 * the handler reads as far as it wants (the receiver stops at its size limit, and reads nothing before the
 * token matched).
 */
function bodyOf(request: NodeRequest): BodyInit | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  const parsed = request.body;
  if (typeof parsed === 'string') return parsed;
  if (parsed instanceof Uint8Array) return new TextDecoder().decode(parsed);
  if (parsed !== undefined) return JSON.stringify(parsed);
  return Readable.toWeb(request) as ReadableStream<Uint8Array>;
}

/** A Node request's headers as fetch Headers, repeated ones kept. */
export function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/**
 * `handler` as a Node request listener. A handler that throws answers 500 with a JSON error and nothing of the
 * error (the fetch form's callers see a rejection instead).
 */
export function toNodeHandler(
  handler: (request: Request) => Promise<Response>,
): (request: NodeRequest, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    let answer: Response;
    try {
      const host = request.headers.host ?? 'localhost';
      const body = bodyOf(request);
      // A stream body needs `duplex: 'half'`, which Node's fetch requires and the DOM typings do not list yet.
      const init: RequestInit & { duplex?: 'half' } = {
        method: request.method ?? 'GET',
        headers: headersOf(request),
        ...(body === undefined ? {} : { body, duplex: 'half' }),
      };
      answer = await handler(new Request(new URL(request.url ?? '/', `http://${host}`), init));
    } catch {
      answer = Response.json({ error_code: 'SERVER_ERROR', message: 'The receiver failed.' }, { status: 500 });
    }
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => (headers[name] = value));
    response.writeHead(answer.status, headers);
    response.end(Buffer.from(await answer.arrayBuffer()));
  };
}

/** A Fastify request as a Node request carrying its parsed body (Fastify reads the body before the route). */
export function fastifyRequest(request: { raw: IncomingMessage; body?: unknown }): NodeRequest {
  return Object.assign(request.raw, { body: request.body });
}
