// Mutants of the callback_deliveries check: every callback the target sends while the run lasts must report
// an object the run made with the run's key, carry the values x-callback-source derives from that object,
// follow a transition the state machines say sends it, and not come again once acknowledged with any status
// x-delivery.acknowledging_statuses allows. Each stands for a class: the dispatcher's mistakes touch every
// webhook; the others a field relation, a refused request, another scope's settings. Each is judged with the
// checks whose requests cause the deliveries it spoils (`judgedBy`), not the whole profile: the callbacks check
// for the webhooks' own triggers, forbidden_transitions for a refused update. The live-mode one keeps the whole
// profile: with idempotency_scope alone, a live disbursement's callback the receiver refused is left for a retry
// 30 s later that no check's clock move brings, and the unmutated sandbox fails that set.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'callback-ack-only-200',
    family: 'callback_deliveries',
    judgedBy: ['callbacks', 'callback_deliveries'],
    caught: { result: 'callback_deliveries:disbursementFinished' },
    class: 'callbacks',
    mistake:
      'only a 200 answer counts as acknowledged, so a receiver answering 201, 202 or 204 gets every callback again',
    edits: [
      {
        file: 'callbacks/dispatcher.ts',
        within: 'isSuccess',
        find: 'status >= 200 && status < 300',
        replace: 'status === 200',
      },
    ],
  },
  {
    name: 'callback-resent-after-ack',
    family: 'callback_deliveries',
    judgedBy: ['callbacks', 'callback_deliveries'],
    caught: { result: 'callback_deliveries:disbursementFinished' },
    class: 'callbacks',
    mistake:
      'the first acknowledged attempt is not recorded as delivered, so every acknowledged callback is sent once more a retry interval later',
    edits: [
      {
        file: 'callbacks/dispatcher.ts',
        within: 'createDispatcher.record',
        find: 'const acknowledged = attempt?.status != null && isSuccess(attempt.status);',
        replace: 'const acknowledged = attempt?.status != null && isSuccess(attempt.status) && attempts.length > 1;',
      },
    ],
  },
  {
    name: 'fva-paid-callback-full-account-number',
    family: 'callback_deliveries',
    judgedBy: ['callbacks', 'callback_deliveries'],
    caught: { result: 'callback_deliveries:fixedVirtualAccountPaid' },
    class: 'callbacks',
    mistake:
      "the virtual account payment callback carries the account's full number, prefix included, where the contract derives it without the merchant_code prefix",
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountControlHandlers.simulateFixedVirtualAccountPayment',
        find: 'account_number: account.account_number.slice(account.merchant_code.length),',
        replace: 'account_number: account.account_number,',
      },
    ],
  },
  {
    name: 'disbursement-callback-id-from-user-id',
    family: 'callback_deliveries',
    judgedBy: ['callbacks', 'callback_deliveries'],
    caught: { result: 'callback_deliveries:disbursementFinished' },
    class: 'callbacks',
    mistake:
      "the disbursement callback's disbursement_id is filled with the merchant's user_id instead of the disbursement's id",
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'callbackOf',
        find: 'disbursement_id: record.id',
        replace: 'disbursement_id: record.user_id',
      },
    ],
  },
  {
    name: 'fva-refused-update-sends-callback',
    family: 'callback_deliveries',
    judgedBy: ['forbidden_transitions', 'callback_deliveries'],
    caught: { result: 'callback_deliveries:fixedVirtualAccountChanged' },
    class: 'callbacks',
    mistake:
      'an update of an inactive virtual account is refused, but the changed callback is sent anyway, as if the update had been applied',
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountHandlers.updateFixedVirtualAccount',
        find: "if (account.status === 'INACTIVE') return fail(400, 'INACTIVE_VIRTUAL_ACCOUNT_ERROR',",
        replace:
          "if (account.status === 'INACTIVE') await enqueueDashboardCallback(ctx, tx, principal, 'fixedVirtualAccountChanged', accountView(account), settings);\n        if (account.status === 'INACTIVE') return fail(400, 'INACTIVE_VIRTUAL_ACCOUNT_ERROR',",
      },
    ],
  },
  {
    name: 'callback-settings-of-test-mode',
    family: 'callback_deliveries',
    // The live changed callback of an account carries the test mode's token: the finding that names the mistake.
    caught: {
      result: 'callback_deliveries:fixedVirtualAccountChanged',
      says: [/is not this merchant's callback token for this mode/],
    },
    class: 'callbacks',
    mistake:
      "a merchant's settings are read for test mode whatever the key's mode, so live objects' callbacks go to the test-mode callback URLs",
    edits: [
      {
        file: 'platform/settings.ts',
        within: 'createSettings.settingsOf',
        find: 'const key = scopeKey(scope);',
        replace: "const key = scopeKey({ ...scope, mode: 'test' });",
      },
    ],
  },
  {
    name: 'fva-paid-callback-names-the-payment',
    family: 'callback_deliveries',
    judgedBy: ['callbacks', 'callback_deliveries'],
    caught: { result: 'callback_deliveries:fixedVirtualAccountPaid' },
    class: 'callbacks',
    mistake:
      "the virtual account payment callback's callback_virtual_account_id holds the payment's id, an object the merchant never made, instead of the account's",
    edits: [
      {
        file: 'fixed-virtual-accounts/index.ts',
        within: 'fixedVirtualAccountControlHandlers.simulateFixedVirtualAccountPayment',
        find: 'callback_virtual_account_id: account.id,\n          owner_id: account.owner_id,',
        replace: 'callback_virtual_account_id: payment.id,\n          owner_id: account.owner_id,',
      },
    ],
  },
];
