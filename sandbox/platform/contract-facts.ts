// Facts the platform services take from the service's contract rather than restating them: the banks of
// fixed virtual accounts, the retail outlets of payment codes and the dashboard settings that hold callback
// URLs. Taken from the sandbox's one reading of the contract (../contract.ts) and the webhook metadata.
import { isObject } from '@payments-contract/contract/model';
import { webhookMetadata, type WebhookKind } from '@payments-contract/client/webhooks';
import { componentSchema } from '../contract.js';

/** The string `enum` of a property of a component schema; the sandbox cannot run without it. */
function stringEnum(schemaName: string, property: string): string[] {
  const properties = componentSchema(schemaName).properties;
  const values = isObject(properties) && isObject(properties[property]) ? properties[property].enum : undefined;
  if (!Array.isArray(values) || !values.every((value): value is string => typeof value === 'string')) {
    throw new Error(`the contract has no string enum at ${schemaName}.${property}`);
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
  const settingOf = (webhook: WebhookKind): string | null => {
    const destination = webhookMetadata[webhook].delivery.destination;
    return 'dashboard_setting' in destination ? destination.dashboard_setting : null;
  };
  const kinds = Object.keys(webhookMetadata) as WebhookKind[];
  cached = {
    virtualAccountBanks: stringEnum('CreateFixedVirtualAccountRequest', 'bank_code'),
    retailOutlets: stringEnum('CreateFixedPaymentCodeRequest', 'retail_outlet_name'),
    callbackSettings: [...new Set(kinds.map(settingOf).filter((setting): setting is string => setting !== null))],
    callbackSettingOf: settingOf,
  };
  return cached;
}

export function isWebhookKind(value: string): value is WebhookKind {
  return Object.hasOwn(webhookMetadata, value);
}
