// Mutants of check 6 (idempotency): a retried request with the same key must not execute twice, a reused
// key with another request must be refused, and the replay must be answered as the contract documents.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'disbursement-idempotency-header-misread',
    family: 'idempotency',
    caught: { result: 'idempotency:createDisbursement' },
    class: 'idempotency',
    mistake:
      'the disbursement handler reads the key from Idempotency-Key instead of X-IDEMPOTENCY-KEY, so every retry sends the money again',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: "const key = header['x-idempotency-key'];",
        replace: "const key = (header as Record<string, string | undefined>)['idempotency-key'];",
      },
    ],
  },
  {
    name: 'idempotency-mismatch-answered-as-replay',
    family: 'idempotency',
    caught: { result: 'idempotency:createDisbursement' },
    class: 'idempotency',
    mistake: 'a reused key is always treated as a replay, without comparing the request with the first one',
    edits: [
      {
        file: 'platform/idempotency.ts',
        within: 'createIdempotency.run',
        find: "return existing.fingerprint === fingerprint ? { kind: 'replay', originalId: existing.resource_id } : { kind: 'mismatch' };",
        replace: "return { kind: 'replay', originalId: existing.resource_id };",
      },
    ],
  },
  {
    name: 'disbursement-replay-answers-original',
    family: 'idempotency',
    caught: { result: 'idempotency:createDisbursement' },
    class: 'idempotency',
    mistake:
      'a replayed disbursement request is answered 200 with the original disbursement (as some providers do) instead of the documented DUPLICATE_TRANSACTION_ERROR',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: "if (answer.kind === 'replay') {",
        replace:
          "if (answer.kind === 'replay' && answer.originalId !== null) {\n        const original = await ctx.store.get<DisbursementRecord>(COLLECTION, principal, answer.originalId);\n        if (original) return { status: 200, body: resourceOf(original) };\n      }\n      if (answer.kind === 'replay') {",
      },
    ],
  },
  {
    name: 'disbursement-fingerprint-ignores-amount',
    family: 'idempotency',
    caught: {
      result: 'idempotency:createDisbursement',
      says: [/same key, other values: createDisbursement should answer IDEMPOTENCY_KEY_MISMATCH_ERROR/],
      reproduced: true,
    },
    class: 'idempotency',
    mistake:
      'the disbursement request fingerprint covers who is paid (external_id, bank, account) but not the amount, so a retry with another amount is answered as a replay, not as a mismatch',
    edits: [
      {
        file: 'disbursements/index.ts',
        within: 'disbursementHandlers.createDisbursement',
        find: 'canonicalJson(body)',
        replace:
          'canonicalJson({ external_id: body.external_id, bank_code: body.bank_code, account_number: body.account_number })',
      },
    ],
  },
];
