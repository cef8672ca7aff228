// The full profile against the in-process sandbox, as conformance/tests/sandbox-full*.test.ts run it: the
// sandbox is the reference target, started on 127.0.0.1 (store in memory, response validation on, callback
// attempts the contract's 30 s apart, as `npm start` has them); it must pass every check of every subject,
// and no callback may be skipped or left untriggered for want of a trigger: the sandbox control API's
// simulations cause what the service's own operations cannot, and the suite points the dashboard callback
// settings at its receiver through that API. The suite is not told the retry spacing: it reads it from the
// sandbox (x-callback-retry-delay of the control contract), brings the retries on by moving the sandbox's
// clock (x-clock-advance) and times them from its delivery records (x-callback-deliveries), so the 30 s
// spacing costs no waiting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSandboxApp,
  createSite,
  defaultConfig,
  listen,
  type Listening,
  type SandboxAppOptions,
  type SandboxConfig,
} from '@payments-contract/sandbox/testing';
import { formatSummary } from '../report/summary.js';
import { runConformance } from '../run.js';
import type { RunSummary } from '../types.js';
import { isNotRun, notRunReasons } from '../verdict.js';

/** A second merchant, whose key (with the first merchant's live key) lets the isolation check try every case. */
const OTHER_MERCHANT = {
  id: 'merchant_full_profile_other',
  ownerId: 'merchant_full_profile_other',
  keys: { test: 'sk_test_full_profile_other_3b9e1c', live: 'sk_live_full_profile_other_3b9e1c' },
  callbackTokens: { test: 'cbt_test_full_profile_other_3b9e1c', live: 'cbt_live_full_profile_other_3b9e1c' },
};

/** A sandbox (or several behind one address) serving `config`, started for a run. */
export interface ServedSandbox {
  url: string;
  stop(): Promise<void>;
}
export type ServeSandbox = (config: SandboxConfig, appOptions: SandboxAppOptions) => Promise<ServedSandbox>;

/** One in-process sandbox, served as `npm start` serves it (x-request-id on every answer, the request record). */
export const serveInProcess: ServeSandbox = async (config, appOptions) => {
  const app = await createSandboxApp(config, appOptions);
  await app.start();
  const server: Listening = await listen(
    createSite({ service: app.service, control: app.control, observer: app.observer }),
    { host: config.host, port: config.port },
  );
  return {
    url: server.url,
    stop: async () => {
      await server.close();
      await app.close();
    },
  };
};

/**
 * The full profile against an in-process sandbox, and the assertions every such run must pass. `autoProgress`
 * is the sandbox's SANDBOX_AUTO_PROGRESS: on, disbursements and direct debits finish by themselves and the
 * suite holds them where a case needs them to wait; off, nothing finishes by itself and the suite turns it on
 * where a case watches it happen.
 */
export function describeFullProfile(
  label: string,
  options: { autoProgress: boolean; serve?: ServeSandbox; timeoutMs?: number },
): void {
  let served: ServedSandbox | undefined;
  const routerErrors: string[] = [];
  let summary: RunSummary;

  beforeAll(async () => {
    const base = defaultConfig({
      dataDir: ':memory:',
      host: '127.0.0.1',
      port: 0,
      validateResponses: true,
      autoProgress: options.autoProgress,
    });
    const config = { ...base, merchants: [...base.merchants, OTHER_MERCHANT] };
    served = await (options.serve ?? serveInProcess)(config, {
      // An answer off the contract is a 500 to the suite, which reports it; the cause is kept for the message.
      onError: (error) => void routerErrors.push(error instanceof Error ? error.message : String(error)),
      // The suite fails every attempt of one callback per webhook on purpose to time the retries.
      onAlert: () => undefined,
    });
    const merchant = config.merchants[0];
    if (!merchant) throw new Error('the sandbox configuration has no merchant');
    summary = await runConformance({
      baseUrl: served.url,
      apiKey: merchant.keys.test,
      profile: 'full',
      timeoutMs: 5_000,
      concurrency: 8,
      strict: false,
      callbacks: { listen: { host: '127.0.0.1', port: 0 }, token: merchant.callbackTokens.test, waitMs: 5_000 },
      isolation: { otherMerchantKey: OTHER_MERCHANT.keys.test, otherModeKey: merchant.keys.live },
    });
  }, options.timeoutMs ?? 120_000);

  afterAll(async () => {
    await served?.stop();
  }, 60_000);

  /** The report a person would read, for the message of a failing assertion. */
  const report = (): string =>
    `${formatSummary(summary, { verbose: true })}${routerErrors.length > 0 ? `\nSandbox router errors:\n${routerErrors.join('\n')}\n` : ''}`;

  describe(label, () => {
    it('passes every check', () => {
      expect(summary.counts.failed, report()).toBe(0);
      expect(routerErrors, report()).toEqual([]);
    });

    it('leaves nothing unchecked for want of a trigger, a receiver, a key or a control API: the run is complete', () => {
      // Only skips that say the check has nothing to try on that subject are allowed (not applicable).
      const notRun = summary.results.filter(isNotRun);
      expect(
        notRun.map((r) => `${r.check} ${r.subject}: ${notRunReasons(r).join('; ')}`),
        report(),
      ).toEqual([]);
      expect(summary.verdict, report()).toBe('pass');
    });

    it('triggers and judges every webhook of the contract, each event it derives included', () => {
      const callbacks = summary.results.filter((r) => r.check === 'callbacks');
      expect(callbacks.length).toBeGreaterThan(0);
      for (const result of callbacks) {
        expect(result.outcome, report()).toBe('passed');
        expect(result.cases, result.subject).toBeGreaterThan(1);
        // An event derived but not fired (a simulation refused, a step failing) shows as a note.
        expect(
          (result.notes ?? []).filter((note) => note.startsWith('not triggered: ')),
          result.subject,
        ).toEqual([]);
      }
    });

    it("brings the retries on with the sandbox's clock at the contract's spacing, timed from its delivery records", () => {
      const callbacks = summary.results.filter((r) => r.check === 'callbacks');
      for (const result of callbacks) {
        expect(result.notes ?? [], result.subject).toContain(
          "retries brought on by moving the target's clock (advanceClock) and timed in its own time from its delivery records (listCallbackDeliveries)",
        );
        expect(
          (result.notes ?? []).filter((note) => note.startsWith('retry spacing judged against')),
          result.subject,
        ).toEqual([]);
      }
    });
  });
}
