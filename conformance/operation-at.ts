// Which operation of the contract a request went to, from its method and URL: for answers met outside the
// check that sent them (a 429 the HTTP client waited out), so they are judged against that operation.
import type { OperationModel } from '@payments-contract/contract/model/types';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function operationLocator(
  operations: readonly OperationModel[],
  baseUrl: string,
): (method: string, url: string) => OperationModel | undefined {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const routes = operations.map((operation) => ({
    operation,
    // A parameter is one segment's worth of characters; a trailing slash is the same resource.
    pattern: new RegExp(
      `^${operation.path
        .split(/\{[^}]+\}/)
        .map(escape)
        .join('[^/]+')
        .replace(/\/$/, '')}/?$`,
    ),
  }));
  return (method, url) => {
    const { pathname } = new URL(url);
    if (!pathname.startsWith(basePath)) return undefined;
    const path = pathname.slice(basePath.length) || '/';
    const upper = method.toUpperCase();
    return routes.find(({ operation, pattern }) => operation.method.toUpperCase() === upper && pattern.test(path))
      ?.operation;
  };
}
