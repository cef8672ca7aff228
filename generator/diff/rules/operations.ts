// Paths and operations: an operation is the same when its method and path are; one found under another
// path with the same operationId was moved. Removing or moving one breaks clients; adding one obliges
// every server to implement it.
import type { JsonObject } from '@payments-contract/model/types';
import { child, isObject, resolve } from '../json.js';
import type { Finding, Located } from '../types.js';
import { explicit, findings } from '../verdicts.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationAt {
  method: string;
  path: string;
  operationId: string;
  /** `createDisbursement (POST /disbursements)`: how sentences name it. */
  name: string;
  operation: Located;
  pathItem: Located;
}

/** The operations of a contract by `METHOD path`, references followed. */
export function operationsOf(doc: JsonObject): Map<string, OperationAt> {
  const operations = new Map<string, OperationAt>();
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const path of Object.keys(paths)) {
    const pathItem = resolve({ doc, node: paths[path], pointer: child('#/paths', path) });
    if (!isObject(pathItem.node)) continue;
    for (const method of METHODS) {
      const operation = resolve({ doc, node: pathItem.node[method], pointer: child(pathItem.pointer, method) });
      if (!isObject(operation.node)) continue;
      const operationId =
        typeof operation.node.operationId === 'string' ? operation.node.operationId : `${method.toUpperCase()} ${path}`;
      operations.set(`${method.toUpperCase()} ${path}`, {
        method,
        path,
        operationId,
        name: `${operationId} (${method.toUpperCase()} ${path})`,
        operation,
        pathItem,
      });
    }
  }
  return operations;
}

/** Operations present in both contracts, by method and path. */
export function matchedOperations(old: JsonObject, neu: JsonObject): [OperationAt, OperationAt][] {
  const after = operationsOf(neu);
  return [...operationsOf(old)].flatMap(([key, operation]) => {
    const match = after.get(key);
    return match ? [[operation, match] as [OperationAt, OperationAt]] : [];
  });
}

export function compareOperations(old: JsonObject, neu: JsonObject): Finding[] {
  const out: Finding[] = [];
  const before = operationsOf(old);
  const after = operationsOf(neu);
  for (const [key, operation] of before) {
    const match = after.get(key);
    if (match) {
      if (match.operationId !== operation.operationId) {
        out.push(
          ...findings(
            {
              rule: 'operation-id-changed',
              family: 'operations',
              old: child(operation.operation.pointer, 'operationId'),
              new: child(match.operation.pointer, 'operationId'),
              change: `${key}: operationId changed from ${operation.operationId} to ${match.operationId}.`,
            },
            explicit(
              ['client', 'potentially-breaking', 'code generated from the contract renames the method that calls it'],
              [
                'server',
                'breaking',
                'the generated handler for it is renamed: a server must rename its implementation',
              ],
            ),
          ),
        );
      }
      continue;
    }
    const moved = [...after.values()].find(
      (candidate) =>
        candidate.operationId === operation.operationId &&
        !before.has(`${candidate.method.toUpperCase()} ${candidate.path}`),
    );
    if (moved) {
      out.push(
        ...findings(
          {
            rule: 'operation-moved',
            family: 'operations',
            old: operation.operation.pointer,
            new: moved.operation.pointer,
            change: `${operation.operationId} moved from ${key} to ${moved.method.toUpperCase()} ${moved.path}.`,
          },
          explicit(
            ['client', 'breaking', 'a client calling the old method and path gets 404 or 405'],
            ['server', 'breaking', 'a server must serve it at the new method and path'],
          ),
        ),
      );
      continue;
    }
    out.push(
      ...findings(
        {
          rule: 'operation-removed',
          family: 'operations',
          old: operation.operation.pointer,
          change: `${operation.name} was removed.`,
        },
        explicit(
          ['client', 'breaking', 'a client that calls it gets 404 or 405'],
          ['server', 'non-breaking', 'a server may stop serving it'],
        ),
      ),
    );
  }
  for (const [key, operation] of after) {
    if (
      before.has(key) ||
      [...before.values()].some(
        (candidate) =>
          candidate.operationId === operation.operationId &&
          !after.has(`${candidate.method.toUpperCase()} ${candidate.path}`),
      )
    )
      continue;
    out.push(
      ...findings(
        {
          rule: 'operation-added',
          family: 'operations',
          new: operation.operation.pointer,
          change: `${operation.name} was added.`,
        },
        explicit(
          ['client', 'non-breaking', 'a client may call it'],
          ['server', 'breaking', 'a server must implement it'],
        ),
      ),
    );
  }
  return out;
}
