// The dashboard callback settings a contract's webhooks are sent to, and pointing them at the suite's
// receiver through the sandbox control API (the callbacks check for its events, the whole run for all).

import type { WebhookModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import type { CallbackReceiver } from './receiver.js';
import type { SandboxStatus, SettingsChange } from './sandbox.js';

/** The dashboard settings the webhooks are sent to, each with the webhooks that use it. */
export function dashboardSettings(webhooks: readonly WebhookModel[]): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const webhook of webhooks) {
    const destination = webhook.delivery.destination;
    if ('dashboard_setting' in destination) {
      const setting = destination.dashboard_setting;
      settings.set(setting, [...(settings.get(setting) ?? []), webhook.operationId]);
    }
  }
  return settings;
}

/**
 * Points every dashboard callback setting at the receiver through the control API: a setting one webhook
 * uses gets a URL naming that webhook and `key`, so a delivery there is known by where it arrived.
 */
export async function pointDashboardAtReceiver(
  contract: Contract,
  sandbox: SandboxStatus,
  receiver: CallbackReceiver,
  key: string,
): Promise<SettingsChange | undefined> {
  const control = sandbox.control;
  if (!control?.callbackSettings) return undefined;
  const settings = dashboardSettings(contract.model.webhooks);
  if (settings.size === 0) return undefined;
  return control.configureCallbackUrls([...settings.keys()], (setting) => {
    const [only, ...others] = settings.get(setting) ?? [];
    return only !== undefined && others.length === 0 ? receiver.callbackUrl(only, key) : receiver.publicUrl;
  });
}
