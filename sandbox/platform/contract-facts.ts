// Facts the platform services take from the service's contract rather than restating them: the banks of
// fixed virtual accounts, the retail outlets of payment codes and the dashboard settings that hold callback
// URLs. Read once from the bundled document and the generated webhook metadata.
import { readFileSync } from 'node:fs';
import { webhookMetadata, type WebhookKind } from '../../generated/webhooks.js';

type JsonNode = null | boolean | number | string | JsonNode[] | { [key: string]: JsonNode };

function at(node: JsonNode | undefined, path: string[]): JsonNode | undefined {
  let current = node;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = current[key];
  }
  return current;
}

function stringEnum(doc: JsonNode, path: string[]): string[] {
  const values = at(doc, path);
  if (!Array.isArray(values) || !values.every((value): value is string => typeof value === 'string')) {
    throw new Error(`generated/openapi.json has no string enum at ${path.join('/')}`);
  }
  return values;
}

export interface ContractFacts {
  /** `bank_code` values of `createFixedVirtualAccount`. */
  virtualAccountBanks: readonly string[];
  /** `retail_outlet_name` values of `createFixedPaymentCode`. */
  retailOutlets: readonly string[];
  /** Every `x-delivery.destination.dashboard_setting` the webhooks name. */
  callbackSettings: readonly string[];
  /** The dashboard setting holding a webhook's URL, or null when the webhook goes to a URL of the request. */
  callbackSettingOf(webhook: WebhookKind): string | null;
}

let cached: ContractFacts | undefined;

export function contractFacts(): ContractFacts {
  if (cached) return cached;
  const doc = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as JsonNode;
  const schemas = ['components', 'schemas'];
  const settingOf = (webhook: WebhookKind): string | null => {
    const destination = webhookMetadata[webhook].delivery.destination;
    return 'dashboard_setting' in destination ? destination.dashboard_setting : null;
  };
  const kinds = Object.keys(webhookMetadata) as WebhookKind[];
  cached = {
    virtualAccountBanks: stringEnum(doc, [...schemas, 'CreateFixedVirtualAccountRequest', 'properties', 'bank_code', 'enum']),
    retailOutlets: stringEnum(doc, [...schemas, 'CreateFixedPaymentCodeRequest', 'properties', 'retail_outlet_name', 'enum']),
    callbackSettings: [...new Set(kinds.map(settingOf).filter((setting): setting is string => setting !== null))],
    callbackSettingOf: settingOf,
  };
  return cached;
}

export function isWebhookKind(value: string): value is WebhookKind {
  return Object.hasOwn(webhookMetadata, value);
}
