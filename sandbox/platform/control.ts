// The control API's platform endpoints (spec/sandbox/paths/sandbox{,_clock,_settings,_balance_top_up,_reset,
// _callbacks}*.yaml): the sandbox itself, the clock, the dashboard settings, balance top-ups, reset, and
// callback deliveries.
import type { Handlers } from '@payments-contract/server/sandbox/server';
import { scopeOf, type Caller, type SandboxContext, type Scope } from '../context.js';
import type { Platform } from './index.js';
import { ClockRangeError } from './clock.js';
import { SettingsValidationError } from './settings.js';

type ControlHandlers = Handlers<Caller>;
export type PlatformControlHandlers = Pick<
  ControlHandlers,
  | 'getSandbox'
  | 'getClock'
  | 'advanceClock'
  | 'getSettings'
  | 'updateSettings'
  | 'topUpBalance'
  | 'resetSandbox'
  | 'listCallbackDeliveries'
  | 'resendCallbackDelivery'
>;

export function platformControlHandlers(ctx: SandboxContext, platform: Platform): PlatformControlHandlers {
  /** The clock of the caller's merchant and mode, the only one its key reads and moves. */
  const clockBody = (scope: Scope) => ({
    now: platform.clock.now(scope).toISOString(),
    offset_ms: platform.clock.offsetMs(scope),
  });
  /** What getSandbox answers, and resetSandbox after the reset. */
  const sandboxInfo = (scope: Scope) => ({
    merchant_id: scope.merchantId,
    mode: scope.mode,
    now: platform.clock.now(scope).toISOString(),
    callback_token: platform.callbackToken(scope),
    callback_retry_delay_ms: platform.callbackRetryDelayMs,
    auto_progress_delay_ms: platform.autoResolve.delayMs,
  });
  return {
    getSandbox: (_input, { principal }) => ({ status: 200, body: sandboxInfo(scopeOf(principal)) }),

    getClock: (_input, { principal }) => ({ status: 200, body: clockBody(scopeOf(principal)) }),

    advanceClock: async ({ body }, { principal }) => {
      const scope = scopeOf(principal);
      try {
        await platform.clock.advance(scope, body.milliseconds);
      } catch (error) {
        if (!(error instanceof ClockRangeError)) throw error;
        // Decision sandbox-clock-range: the contract's validation error, pointing at the amount, with how far the clock can still go.
        const latest = new Date(error.latestMs).toISOString();
        return {
          status: 400,
          body: {
            error_code: 'API_VALIDATION_ERROR',
            message: `The clock cannot be moved past ${latest}. See errors for each problem.`,
            errors: [
              {
                location: 'body' as const,
                path: '/milliseconds',
                message: `must be <= ${error.allowedMs}, which takes the clock to ${latest}`,
                keyword: 'maximum',
              },
            ],
          },
        };
      }
      return { status: 200, body: clockBody(scope) };
    },

    getSettings: async (_input, { principal }) => ({ status: 200, body: await ctx.settings.get(scopeOf(principal)) }),

    updateSettings: async ({ body }, { principal }) => {
      try {
        return { status: 200, body: await ctx.settings.update(scopeOf(principal), body) };
      } catch (error) {
        if (!(error instanceof SettingsValidationError)) throw error;
        const count = error.issues.length;
        return {
          status: 400,
          body: {
            error_code: 'API_VALIDATION_ERROR',
            message: `The settings have ${count} invalid value${count === 1 ? '' : 's'}. See errors for each problem.`,
            errors: error.issues.map((issue) => ({ location: 'body' as const, ...issue })),
          },
        };
      }
    },

    topUpBalance: async ({ body }, { principal }) => {
      const balance = await ctx.store.transaction((tx) =>
        ctx.balances.credit(tx, scopeOf(principal), body.account_type ?? 'CASH', body.amount),
      );
      return { status: 200, body: { balance } };
    },

    resetSandbox: async (_input, { principal }) => {
      const scope = scopeOf(principal);
      await ctx.store.transaction((tx) => tx.clearScope(scope));
      // The settings overrides, the clock's offset and the armed faults were among the cleared records; their
      // cached copies go too, so the settings are the defaults again, the scope's time is back where every
      // scope starts, and no fault is armed.
      platform.settings.forget(scope);
      platform.clock.forget(scope);
      platform.faults.forget(scope);
      return { status: 200, body: sandboxInfo(scope) };
    },

    listCallbackDeliveries: async ({ query }, { principal }) => ({
      status: 200,
      body: await platform.callbacks.list(scopeOf(principal), {
        ...(query.state ? { state: query.state } : {}),
        ...(query.webhook ? { webhook: query.webhook } : {}),
      }),
    }),

    resendCallbackDelivery: async ({ path }, { principal }) => {
      const outcome = await platform.callbacks.resend(scopeOf(principal), path.id);
      switch (outcome.kind) {
        case 'resent':
          return { status: 200, body: outcome.delivery };
        case 'not_found':
          return {
            status: 404,
            body: {
              error_code: 'CALLBACK_DELIVERY_NOT_FOUND_ERROR',
              message: `No callback delivery with id ${path.id} was found.`,
            },
          };
        case 'pending':
          return {
            status: 409,
            body: {
              error_code: 'SANDBOX_STATE_CONFLICT',
              message: `Callback delivery ${path.id} is pending; only a delivered or failed delivery can be resent.`,
            },
          };
      }
    },
  };
}
