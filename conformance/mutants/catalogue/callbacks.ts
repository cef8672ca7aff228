// Mutants of check 7 (callbacks): each callback a transition's effects list must arrive with the merchant's
// token, carry the change the transition made (an update's values, the state it led to), and be retried as
// `x-delivery` says: the contract's number of attempts, a retry interval apart, and no more.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'callback-token-of-live-mode',
    family: 'callbacks',
    caught: { result: 'callbacks:fixedVirtualAccountPaid' },
    class: 'callbacks',
    mistake:
      "every callback carries the merchant's live-mode callback token, whatever the mode of the object it reports",
    edits: [
      {
        file: 'merchants.ts',
        within: 'createMerchants.callbackToken',
        find: 'return merchant.callbackTokens[scope.mode];',
        replace: 'return merchant.callbackTokens.live;',
      },
    ],
  },
  {
    name: 'fva-update-callback-stale-account',
    family: 'callbacks',
    caught: {
      result: 'callbacks:fixedVirtualAccountChanged',
      says: [/carried the change updateFixedVirtualAccount made \(expected_amount 275000/],
      alone: true,
    },
    class: 'callbacks',
    mistake:
      'the changed callback of a virtual account update is built from the account as it was read, before the update was applied',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: "const view = accountView(changed);\n        await enqueueDashboardCallback(ctx, tx, principal, 'fixedVirtualAccountChanged', view, settings);",
        replace:
          "const view = accountView(changed);\n        await enqueueDashboardCallback(ctx, tx, principal, 'fixedVirtualAccountChanged', accountView(account), settings);",
      },
    ],
  },
  {
    name: 'fva-update-sends-no-callback',
    family: 'callbacks',
    caught: { result: 'callbacks:fixedVirtualAccountChanged' },
    class: 'callbacks',
    mistake: 'a virtual account update is stored and answered but sends no changed callback (only creation does)',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: "const view = accountView(changed);\n        await enqueueDashboardCallback(ctx, tx, principal, 'fixedVirtualAccountChanged', view, settings);",
        replace: 'const view = accountView(changed);',
      },
    ],
  },
  {
    name: 'direct-debit-callback-reports-pending',
    family: 'callbacks',
    caught: { result: 'callbacks:directDebitPayment' },
    class: 'callbacks',
    mistake:
      "the direct debit payment callback is built from the payment as it was read, so a completed or failed payment's callback still says PENDING",
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'finish',
        find: 'storedJson(callbackOf(finished, now))',
        replace: 'storedJson(callbackOf(payment, now))',
      },
    ],
  },
  {
    name: 'callback-retries-without-spacing',
    family: 'callbacks',
    caught: {
      result: 'callbacks:fixedVirtualAccountPaid',
      says: [
        /attempt 2 came \d+ ms after attempt 1; expected 30000 ms .*in the target's time \(listCallbackDeliveries\)/,
      ],
    },
    class: 'callbacks',
    mistake: 'a failed callback attempt is retried at once instead of the retry interval later',
    edits: [
      {
        file: 'callbacks/dispatcher.ts',
        within: 'createDispatcher.record',
        find: 'next.next_attempt_at = new Date(ended + retryDelayMs).toISOString();',
        replace: 'next.next_attempt_at = new Date(ended).toISOString();',
      },
    ],
  },
  {
    name: 'callback-one-attempt-too-many',
    family: 'callbacks',
    caught: {
      result: 'callbacks:disbursementFinished',
      says: [
        /the receiver got 4 attempt\(s\) while it failed every one; x-delivery\.attempts is 3/,
        /4 attempt\(s\) while every attempt failed; x-delivery\.attempts is 3, in the target's time/,
      ],
    },
    class: 'callbacks',
    mistake:
      "the attempts are counted off by one, so a callback nobody acknowledges is sent once more than x-delivery's attempts",
    edits: [
      {
        file: 'callbacks/dispatcher.ts',
        within: 'createDispatcher.record',
        find: 'const spent = attempts.length >= current.max_attempts;',
        replace: 'const spent = attempts.length > current.max_attempts;',
      },
    ],
  },
];
