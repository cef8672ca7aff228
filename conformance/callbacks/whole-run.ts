// The callback receiver of the whole run: started before the first check when the run has a callback
// receiver configured, it records every delivery the target makes while the run lasts (the callbacks
// check shares it), and the callback_deliveries check judges them all at the end against what the run did
// (run-log.ts). The dashboard callback settings are pointed at it for the whole run where the target's
// sandbox control API allows, and put back afterwards. It answers every acknowledging status the
// contract allows in turn (x-delivery.acknowledging_statuses), and fails the first attempt of the first
// callback of each webhook once, with a status outside them, so that the end of the run can watch it retried.
import type { WebhookModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import type { HttpClient } from '../http.js';
import type { RunOptions } from '../types.js';
import { pointDashboardAtReceiver } from './dashboard.js';
import { startReceiver, type CallbackReceiver, type Delivery } from './receiver.js';
import { recordingClient, type RunLog } from './run-log.js';
import { probeSandbox, type SandboxStatus, type SettingsChange } from './sandbox.js';

/** The event key of the URLs the whole run gives the dashboard settings. */
export const WHOLE_RUN_KEY = 'whole-run';

/** The registered 2xx statuses (RFC 9110 and its registry), answered in turn where the contract says they acknowledge. */
const SUCCESS_STATUSES = [200, 201, 202, 203, 204, 205, 206, 207, 208, 226];
/** Answers that never acknowledge (no redirect: a target that followed one would try another URL). */
const FAILING_STATUSES = [503, 400, 409, 404, 410, 422, 500, 502];

export interface WholeRun {
  receiver: CallbackReceiver;
  log: RunLog;
  sandbox: SandboxStatus;
  /** Whether the webhooks sent to a dashboard setting reach the receiver for the whole run, and how. */
  dashboard: { reaches: true; how: string } | { reaches: false; reason: string };
  /** The deliveries (by `seq`) the receiver failed on purpose, each with the status it answered. */
  failedOnPurpose: () => ReadonlyMap<number, number>;
  close: () => Promise<void>;
}

export type WholeRunSetup = { http: HttpClient; run?: WholeRun; reason?: string };

export const acknowledges = (webhook: WebhookModel, status: number): boolean =>
  status >= webhook.deliveryRules.acknowledgingStatuses.minimum &&
  status <= webhook.deliveryRules.acknowledgingStatuses.maximum;

/**
 * The receiver's answers: per webhook, each acknowledging status in turn; the first attempt of the first
 * callback of each webhook sent to the whole run's own URL fails once (when the target's clock can be moved
 * to bring its retry on: else the retry would come only after the contract's interval, past the run).
 */
export function answerPolicy(
  contract: Contract,
  failOnce: boolean,
): { answer: (delivery: Delivery) => number; failed: Map<number, number> } {
  const turns = new Map<string, number>();
  const failedBodies = new Map<string, string>();
  const failed = new Map<number, number>();
  const answer = (delivery: Delivery): number => {
    const id = delivery.identified.webhook;
    const webhook = contract.model.webhooks.find((w) => w.operationId === id);
    if (!webhook) return 200;
    if (failOnce && delivery.identified.key === WHOLE_RUN_KEY && !failedBodies.has(webhook.operationId)) {
      // Another failing status for each webhook, so that more than one kind of refusal is seen retried.
      const failing = FAILING_STATUSES.filter((s) => !acknowledges(webhook, s));
      const chosen = failing[failedBodies.size % failing.length] ?? 599;
      failedBodies.set(webhook.operationId, delivery.bodyText);
      failed.set(delivery.seq, chosen);
      return chosen;
    }
    const allowed = SUCCESS_STATUSES.filter((s) => acknowledges(webhook, s));
    const turn = turns.get(webhook.operationId) ?? 0;
    turns.set(webhook.operationId, turn + 1);
    return allowed[turn % allowed.length] ?? 200;
  };
  return { answer, failed };
}

/** Starts the whole run's receiver and log; without one (none configured, or it cannot listen) the client is returned as it was. */
export async function startWholeRun(
  contract: Contract,
  settings: NonNullable<RunOptions['callbacks']>,
  http: HttpClient,
  apiKey: string,
): Promise<WholeRunSetup> {
  const recorded = recordingClient(http, apiKey);
  const sandbox = await probeSandbox(recorded.http);
  const policy = answerPolicy(contract, sandbox.control?.clock !== undefined);
  let receiver: CallbackReceiver;
  try {
    receiver = await startReceiver({
      contract,
      ...settings.listen,
      ...(settings.publicUrl ? { publicUrl: settings.publicUrl } : {}),
      ...(settings.token ? { token: settings.token } : {}),
      answer: policy.answer,
    });
  } catch (error) {
    return {
      http,
      reason: `the callback receiver could not listen on ${settings.listen.host}:${settings.listen.port}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const pointed: SettingsChange | undefined = await pointDashboardAtReceiver(
    contract,
    sandbox,
    receiver,
    WHOLE_RUN_KEY,
  );
  const operation = sandbox.control?.callbackSettings?.operation.operationId;
  const dashboard: WholeRun['dashboard'] = pointed?.ok
    ? {
        reaches: true,
        how: `pointed at the receiver for the whole run through the sandbox control API (${operation ?? 'x-callback-settings'})`,
      }
    : settings.publicUrl !== undefined
      ? { reaches: true, how: `said to reach the receiver (--callback-public-url ${settings.publicUrl})` }
      : {
          reaches: false,
          reason: pointed
            ? pointed.reason
            : (sandbox.reason ?? 'the target offers no way to set its dashboard callback settings'),
        };
  return {
    http: recorded.http,
    run: {
      receiver,
      log: recorded.log,
      sandbox,
      dashboard,
      failedOnPurpose: () => policy.failed,
      close: async () => {
        if (pointed?.ok) await pointed.undo();
        await receiver.close();
      },
    },
  };
}
