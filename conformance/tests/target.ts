// Test support: a small in-test target that answers from the contract's own examples (a valid key gets the
// first example of the operation's lowest documented 2xx, anything else the documented 401 example), with
// per-operation overrides to break it on purpose. Listens on 127.0.0.1, port chosen by the OS.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OperationModel } from '@payments-contract/contract/model/types';
import { parseBasicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { createPathMatcher } from '@payments-contract/server/runtime/path-matcher';
import type { Contract } from '../contract.js';
import { responseExamples } from '../mock/examples.js';

export interface TargetRequest {
  operation: OperationModel;
  authorized: boolean;
  body: string;
  request: IncomingMessage;
}

/** An answer to send, 'hang' (never answer), or undefined for the default answer. */
export type Override = (
  call: TargetRequest,
  response: ServerResponse,
) => { status: number; contentType?: string; body: string | Buffer } | 'hang' | 'handled' | undefined;

export interface Target {
  url: string;
  /** Requests received per operationId. */
  calls: Map<string, number>;
  close: () => Promise<void>;
}

export async function startTarget(
  contract: Contract,
  validKey: string,
  override: Override = () => undefined,
): Promise<Target> {
  const match = createPathMatcher(
    contract.model.operations.map((operation) => ({
      method: operation.method.toUpperCase(),
      path: operation.path,
      value: operation,
    })),
  );
  const calls = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const found = match(
        (request.method ?? 'GET').toUpperCase(),
        new URL(request.url ?? '/', 'http://target.local').pathname,
      );
      if (found.kind !== 'found') {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error_code":"NOT_FOUND","message":"No operation has this path."}');
        return;
      }
      const operation = found.value;
      calls.set(operation.operationId, (calls.get(operation.operationId) ?? 0) + 1);
      // As the contract's scheme (Decision `basic-scheme-case-insensitive`): any letter case of the scheme name, the key exactly, no password.
      const credentials = parseBasicAuthorization(request.headers.authorization);
      const authorized = credentials !== null && credentials.username === validKey && credentials.password === '';
      const answer = override(
        { operation, authorized, body: Buffer.concat(chunks).toString('utf8'), request },
        response,
      );
      if (answer === 'hang' || answer === 'handled') return;
      if (answer) {
        response
          .writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' })
          .end(answer.body);
        return;
      }
      const status = authorized
        ? Math.min(...operation.responses.filter((r) => r.status < 300).map((r) => r.status))
        : 401;
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify(responseExamples(contract, operation, status)[0] ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: async () => {
      // Hanging requests hold their sockets open; close them so the server (and the test) can stop.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
