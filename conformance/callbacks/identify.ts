// Which webhook a delivery is, and whether its token and body are what the contract says. The suite
// gives the target URLs ending in `/callbacks/<webhook operationId>/<event key>`, so a delivery to such a
// URL names its webhook and its event; a delivery to a URL the suite did not choose (a dashboard setting)
// is known by its `event` field, or by being valid against exactly one webhook's body schema.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { secretsEqual } from '@payments-contract/client/runtime/constant-time';
import type { Contract } from '../contract.js';

const PREFIX = 'callbacks';

export function callbackPath(webhook: string, key: string): string {
  return `/${PREFIX}/${encodeURIComponent(webhook)}/${encodeURIComponent(key)}`;
}

/** The webhook and event key of a path ending in `/callbacks/<webhook>/<key>` (a proxy may add a prefix). */
export function parseCallbackPath(pathname: string): { webhook: string; key: string } | undefined {
  const segments = pathname.split('/').filter((segment) => segment !== '');
  const [prefix, webhook, key] = segments.slice(-3);
  if (prefix !== PREFIX || webhook === undefined || key === undefined) return undefined;
  try {
    return { webhook: decodeURIComponent(webhook), key: decodeURIComponent(key) };
  } catch {
    return undefined;
  }
}

export interface Identification {
  /** The webhook's operationId, when known. */
  webhook?: string;
  by: 'path' | 'event' | 'schema' | 'none';
  /** The event key from the path, when the path is one the suite chose. */
  key?: string;
}

export function identifyWebhook(contract: Contract, pathname: string, json: unknown): Identification {
  const webhooks = contract.model.webhooks;
  const fromPath = parseCallbackPath(pathname);
  if (fromPath && webhooks.some((w) => w.operationId === fromPath.webhook))
    return { webhook: fromPath.webhook, by: 'path', key: fromPath.key };
  const key = fromPath ? { key: fromPath.key } : {};
  const event = typeof json === 'object' && json !== null && 'event' in json ? json.event : undefined;
  const named = webhooks.find((w) => w.name === event);
  if (named) return { webhook: named.operationId, by: 'event', ...key };
  const matching = json === undefined ? [] : webhooks.filter((w) => contract.validate(w.bodySchema, json).length === 0);
  const [only] = matching;
  return only && matching.length === 1 ? { webhook: only.operationId, by: 'schema', ...key } : { by: 'none', ...key };
}

/** What the token header held, judged against the configured token (constant time: it is a secret). */
export type TokenVerdict = 'match' | 'mismatch' | 'missing' | 'unchecked';

export function tokenVerdict(given: string | undefined, expected: string | undefined): TokenVerdict {
  if (given === undefined) return 'missing';
  if (expected === undefined) return 'unchecked';
  return secretsEqual(given, expected) ? 'match' : 'mismatch';
}

/** Schema violations of a delivery's body against a webhook's body schema. */
export function bodyIssues(contract: Contract, webhook: string, json: unknown): ErrorObject[] {
  return contract.validate(contract.webhook(webhook).bodySchema, json).filter((error) => error.keyword !== 'if');
}
