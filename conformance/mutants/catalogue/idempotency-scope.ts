// Mutants of what an idempotency key belongs to and which answers use it up (check idempotency_scope, from
// `x-idempotency`), and of what a rate-limit count belongs to (check rate_limit with the isolation keys,
// from the `scope` of `x-rate-limits`): keys shared between merchants or modes, compared after cutting or
// lower-casing them, used up by a request refused for its content or not used up by a remembered refusal,
// and one count for a merchant's two modes or for everyone.
import type { Mutant } from '../types.js';

const KEYS = 'platform/idempotency.ts';
const LIMITS = 'limits/rate-limits.ts';
const STORED_UNDER = (scope: string): Mutant['edits'] => [
  {
    file: KEYS,
    within: 'createIdempotency',
    find: 'await tx.findBy<KeyRecord>(IDEMPOTENCY_COLLECTION, scope,',
    replace: `await tx.findBy<KeyRecord>(IDEMPOTENCY_COLLECTION, ${scope},`,
  },
  {
    file: KEYS,
    within: 'createIdempotency',
    find: 'await tx.update(IDEMPOTENCY_COLLECTION, scope, record)',
    replace: `await tx.update(IDEMPOTENCY_COLLECTION, ${scope}, record)`,
  },
  {
    file: KEYS,
    within: 'createIdempotency',
    find: 'await tx.insert(IDEMPOTENCY_COLLECTION, scope, record)',
    replace: `await tx.insert(IDEMPOTENCY_COLLECTION, ${scope}, record)`,
  },
];
const RATE_KEY = 'const key = scopedKey(scope, group.group);';

export const mutants: Mutant[] = [
  {
    name: 'idempotency-keys-global',
    family: 'idempotency_scope',
    caught: { result: 'idempotency_scope:createDisbursement' },
    class: 'idempotency',
    mistake:
      'idempotency keys are kept in one table for every merchant, so a key another merchant used first answers this merchant with a duplicate or mismatch, in every operation that takes a key',
    edits: STORED_UNDER("{ merchantId: 'all-merchants', mode: scope.mode }"),
  },
  {
    name: 'idempotency-keys-shared-between-modes',
    family: 'idempotency_scope',
    caught: { result: 'idempotency_scope:createDisbursement' },
    class: 'idempotency',
    mistake:
      'idempotency keys are kept per merchant but not per mode, so a key used in test mode is refused as a duplicate in live mode (and the other way round)',
    edits: STORED_UNDER("{ merchantId: scope.merchantId, mode: 'test' }"),
  },
  {
    name: 'idempotency-key-lower-cased',
    family: 'idempotency_scope',
    caught: { result: 'idempotency_scope:createDisbursement' },
    class: 'idempotency',
    mistake:
      'the key is lower-cased before it is looked up (to be "forgiving"), so two keys differing only in letter case are one key',
    edits: [
      {
        file: KEYS,
        within: 'createIdempotency',
        find: 'const claim = `${operationId}\\n${key}`;',
        replace: 'const claim = `${operationId}\\n${key.toLowerCase()}`;',
      },
    ],
  },
  {
    name: 'idempotency-key-truncated',
    family: 'idempotency_scope',
    caught: { result: 'idempotency_scope:createDisbursement' },
    class: 'idempotency',
    mistake:
      'the key is cut to 64 characters before it is looked up (the width of an indexed column), so long keys differing only after that are one key',
    edits: [
      {
        file: KEYS,
        within: 'createIdempotency',
        find: 'const claim = `${operationId}\\n${key}`;',
        replace: 'const claim = `${operationId}\\n${key.slice(0, 64)}`;',
      },
    ],
  },
  {
    name: 'disbursement-refused-request-uses-key',
    family: 'idempotency_scope',
    caught: { result: 'idempotency_scope:createDisbursement' },
    class: 'idempotency',
    mistake:
      'every answer is stored against its key, a refusal of the request itself (a bank code not listed) included, so the corrected retry with the same key is refused as a mismatch',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers',
        find: 'if (!findDisbursementBank(body.bank_code)) {',
        replace:
          "if (!findDisbursementBank(body.bank_code)) {\n        const refusedKey = header['x-idempotency-key'];\n        if (refusedKey !== undefined) await ctx.store.transaction((tx) => ctx.idempotency.run(tx, principal, OPERATION, refusedKey, canonicalJson(body), async () => ({ ok: false }) as never, () => null));",
      },
    ],
  },
  {
    name: 'direct-debit-unknown-method-leaves-key-unused',
    family: 'idempotency_scope',
    caught: { result: 'idempotency_scope:createDirectDebitPayment' },
    class: 'idempotency',
    mistake:
      'a payment refused because its payment method does not exist is not remembered with its key, so a retry with the same key and another body is executed instead of refused as a mismatch',
    edits: [
      {
        file: 'direct-debit/payments.ts',
        within: 'paymentHandlers',
        find: "return { status: 400, body: { error_code: 'PAYMENT_METHOD_NOT_FOUND_ERROR', message: `Payment method ${body.payment_method_id} was not found.` } };",
        replace:
          "throw new NotStored({ status: 400, body: { error_code: 'PAYMENT_METHOD_NOT_FOUND_ERROR', message: `Payment method ${body.payment_method_id} was not found.` } } as never);",
      },
    ],
  },
  {
    name: 'rate-limit-counted-per-merchant',
    family: 'rate_limit',
    caught: { result: 'rate_limit:getBalance', alone: true },
    class: 'concurrency',
    mistake:
      "the rate limit is counted per merchant, not per key, so a merchant's test traffic spends its live key's window",
    edits: [
      {
        file: LIMITS,
        within: 'createRateLimiter',
        find: RATE_KEY,
        replace: 'const key = `${scope.merchantId}\\u0000${group.group}`;',
      },
    ],
  },
  {
    name: 'rate-limit-counted-globally',
    family: 'rate_limit',
    caught: { result: 'rate_limit:getBalance', alone: true },
    class: 'concurrency',
    mistake:
      "the rate limit is one count per group for every key, so one merchant's burst refuses every other merchant",
    edits: [{ file: LIMITS, within: 'createRateLimiter', find: RATE_KEY, replace: 'const key = group.group;' }],
  },
];
