// Creations as a write load: every creation of the contract that refers to nothing else and can be read
// back (by id, or by its lookup), with the conformance suite's fresh example bodies and a fresh idempotency
// key where the operation takes one, sent by many clients at once; and the checks that a write is there.
import { randomUUID } from 'node:crypto';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import {
  bodyReferences,
  buildRequest,
  freshBody,
  identifierField,
  isIdempotencyHeader,
  lookupRequest,
  type RequestSpec,
  resourceOperations,
  successStatuses,
  type UniqueValues,
} from '@payments-contract/conformance/testing';
import { liveContext, liveScenario, serviceContract } from './live-conformance.js';

/** The creations the load is made of: no references to other resources, and a way to read each back. */
export function writableOperations(): OperationModel[] {
  return serviceContract.model.operations.filter((operation) => {
    if (operation.method !== 'post' || operation.parameters.some((p) => p.in === 'path') || !operation.body)
      return false;
    const { read, lookup } = resourceOperations(serviceContract, operation);
    return bodyReferences(serviceContract, operation).length === 0 && (read !== undefined || lookup !== undefined);
  });
}

/** One creation as sent: its request (kept, so one without an answer can be sent again) and, once acknowledged, its id. */
export interface Write {
  operation: OperationModel;
  body: Json;
  request: RequestSpec;
  id?: string;
  /** It got no answer: the process died with it. */
  cutOff?: boolean;
  /** Sent again (with its idempotency key) after a restart. */
  retried?: boolean;
}

/** Whether the acknowledged write is there: read by its id, or found by its lookup. */
export async function isPresent(url: string, write: Write): Promise<boolean> {
  const context = liveContext({ baseUrl: url, key: 'aTest' });
  const { read } = resourceOperations(serviceContract, write.operation);
  if (read) {
    const parameter = read.parameters.find((p) => p.in === 'path')!;
    const exchange = await context.http.send(
      buildRequest(serviceContract, read, { parameters: { [parameter.name]: write.id! } }),
    );
    return (
      successStatuses(read).includes(exchange.status) &&
      (exchange.json as Record<string, unknown> | undefined)?.[
        identifierField(serviceContract, write.operation, read)
      ] === write.id
    );
  }
  return (await found(url, write)).includes(write.id!);
}

/** The ids the operation's lookup finds for a write's identifiers. */
export async function found(url: string, write: Write): Promise<string[]> {
  const context = liveContext({ baseUrl: url, key: 'aTest' });
  const { scenario } = liveScenario(context, 'lookup');
  const lookup = resourceOperations(serviceContract, write.operation).lookup!;
  const exchange = await context.http.send(lookupRequest(scenario, lookup, write.body).request);
  if (!successStatuses(lookup).includes(exchange.status)) return [];
  const items = Array.isArray(exchange.json) ? exchange.json : [exchange.json];
  const field = identifierField(serviceContract, write.operation);
  return items.map((item) => String((item as Record<string, unknown>)[field]));
}

/** Many clients creating until `stop()`: each write is recorded with its outcome; `onAnswer` hears every answer. */
export function load(
  url: string,
  operations: OperationModel[],
  unique: UniqueValues,
  writes: Write[],
  clients: number,
  onAnswer?: (status: number, body: string) => void,
): { stop: () => Promise<void> } {
  const context = liveContext({ baseUrl: url, key: 'aTest', timeoutMs: 10_000 });
  const { scenario, env } = liveScenario(context, 'load', unique);
  let stopped = false;
  let next = 0;
  const client = async (): Promise<void> => {
    while (!stopped) {
      const operation = operations[next++ % operations.length]!;
      const body = freshBody(scenario, env, operation);
      // A key on every creation that takes one (optional or not), so one cut off can be sent again safely.
      const key = operation.parameters.find(isIdempotencyHeader);
      const write: Write = {
        operation,
        body,
        request: buildRequest(serviceContract, operation, {
          body,
          ...(key ? { parameters: { [key.name]: randomUUID() } } : {}),
        }),
      };
      const exchange = await context.http.send(write.request);
      onAnswer?.(exchange.status, exchange.bodyText);
      if (exchange.status === 0) {
        writes.push({ ...write, cutOff: true });
        // The process is gone: this client has nothing left to do until it is told to stop.
        while (!stopped) await new Promise((resolve) => setTimeout(resolve, 20));
        return;
      }
      if (successStatuses(operation).includes(exchange.status)) {
        const id = (exchange.json as Record<string, unknown> | undefined)?.[
          identifierField(serviceContract, operation, resourceOperations(serviceContract, operation).read)
        ];
        if (typeof id === 'string') writes.push({ ...write, id });
      }
    }
  };
  const running = Array.from({ length: clients }, client);
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}
