// Check `balance_rules`: the rules it reads from the contract, the sandbox passing every case, a target
// without a control API leaving the balance cases not run (never passed), and the faults its mutants stand for
// (the catalogue judges each: `npm run conformance:mutants`).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxOpenapiPath } from '@payments-contract/contract';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { createContract, loadContract } from '../contract.js';
import { balanceRules, balanceTopUp, otherAmounts } from '../data/balance-rules.js';
import { mutants } from '../mutants/catalogue/balance-rules.js';
import { startMutant } from '../mutants/runner.js';
import { runCheck } from '../tests/check-context.js';
import { startStatefulTarget } from '../tests/fakes/stateful-target.js';
import type { Target } from '../tests/target.js';
import type { CheckResult } from '../types.js';
import { balanceRulesCheck } from './balance-rules.js';

const contract = loadContract();
const control = createContract(JSON.parse(readFileSync(sandboxOpenapiPath, 'utf8')) as JsonObject);
const EDGE = 'createDisbursement DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR equality edge';
const CONCURRENT = 'createDisbursement DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR concurrent writes';

const describeResults = (results: CheckResult[]): string =>
  results
    .map(
      (r) =>
        `${r.subject}: ${r.outcome}${r.skippedReason ? ` (${r.skippedReason})` : ''}${r.findings.map((f) => `\n  ${f.message}`).join('')}`,
    )
    .join('\n');

describe('the balance rules the contract states', () => {
  it('reads the disbursement rule: the CASH balance covers the body amount, an equal amount accepted', () => {
    const [rule, ...others] = balanceRules(contract);
    expect(others).toEqual([]);
    expect(rule?.operation.operationId).toBe('createDisbursement');
    expect(rule?.code).toBe('DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR');
    expect(rule?.account).toEqual({ operation: 'getBalance', field: 'balance', query: { account_type: 'CASH' } });
    expect(rule?.amountField).toBe('amount');
    expect(rule?.equalAmount).toBe('accepted');
  });

  it('reads the control API operation that adds money to a balance', () => {
    expect(balanceTopUp(control)).toEqual({ operation: 'topUpBalance', field: 'amount', account: 'account_type' });
  });

  it("offers amounts within the schema only: the smallest, an odd one, and none a bank's limits refuse", () => {
    const operation = contract.operation('createDisbursement');
    const schema = operation.body?.schema;
    expect(
      otherAmounts(
        contract,
        schema,
        {
          external_id: 'x',
          bank_code: 'BCA',
          account_holder_name: 'A',
          account_number: '1234567890',
          description: 'd',
          amount: 17500000,
        },
        'amount',
        operation,
      ),
    ).toEqual([1, 5833340]);
    // Another bank takes 10000 to 100000000: 1 is not offered there.
    expect(
      otherAmounts(
        contract,
        schema,
        {
          external_id: 'x',
          bank_code: 'DANAMON',
          account_holder_name: 'A',
          account_number: '123',
          description: 'd',
          amount: 2450000,
        },
        'amount',
        operation,
      ),
    ).toEqual([816673]);
  });

  it('never offers an amount that selects a test-mode outcome', () => {
    const operation = contract.operation('createEwalletPayment');
    const outcomes = (operation.testMode?.outcomes ?? []) as JsonObject[];
    const selected = outcomes.map((outcome) => outcome.amount);
    const example = { amount: Number(selected[0]) * 3 - 21 };
    const offered = otherAmounts(
      contract,
      { type: 'object', properties: { amount: { type: 'number', minimum: Number(selected[0]) } } },
      example,
      'amount',
      operation,
    );
    expect(selected[0]).toBeTypeOf('number');
    expect(offered).not.toContain(selected[0]);
  });
});

describe('the balance_rules check', () => {
  let target: Target | undefined;
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });

  it('passes the sandbox on every subject, skipping none', async () => {
    const sandbox = await startMutant(undefined, { rateLimits: false });
    try {
      const { results } = await runCheck(balanceRulesCheck, { baseUrl: sandbox.url, apiKey: sandbox.keys.test });
      expect(
        results.filter((r) => r.outcome !== 'passed'),
        describeResults(results),
      ).toEqual([]);
      expect(results.map((r) => r.subject)).toEqual(
        expect.arrayContaining([
          EDGE,
          CONCURRENT,
          'createDisbursement',
          'failDisbursement',
          'simulateFixedVirtualAccountPayment',
          'simulateFixedPaymentCodePayment',
          'approveEwalletPayment',
          'completeDirectDebitPayment',
        ]),
      );
    } finally {
      await sandbox.close();
    }
  }, 60_000);

  it('leaves the balance cases not run, never passed, on a target without a control API', async () => {
    const apiKey = 'sk_test_balance_rules';
    target = await startStatefulTarget(contract, apiKey, {});
    const { results } = await runCheck(balanceRulesCheck, {
      baseUrl: target.url,
      apiKey,
      only: [`balance_rules:${EDGE}`, `balance_rules:${CONCURRENT}`],
    });
    expect(results.map((r) => [r.subject, r.outcome, r.notApplicable ?? false])).toEqual([
      [EDGE, 'skipped', false],
      [CONCURRENT, 'skipped', false],
    ]);
  }, 30_000);
});

describe('the balance_rules check against a target refusing for the balance', () => {
  let target: Target | undefined;
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });

  it('fails a refusal for the balance where the balance it reports covers the amount, instead of not running', async () => {
    const apiKey = 'sk_test_balance_rules_refusing';
    target = await startStatefulTarget(contract, apiKey, { insufficientBalance: true });
    const { results } = await runCheck(balanceRulesCheck, {
      baseUrl: target.url,
      apiKey,
      only: ['balance_rules:createDisbursement'],
    });
    const [disbursement, ...others] = results;
    expect(others).toEqual([]);
    expect(disbursement?.outcome, describeResults(results)).toBe('failed');
    expect(disbursement?.findings.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /with \{"amount":1\}: refused for the balance .* though getBalance\?account_type=CASH \d+ covers the amount$/,
      ),
      expect.stringMatching(
        /with \{"amount":5833340\}: refused for the balance .* though getBalance\?account_type=CASH \d+ covers the amount$/,
      ),
    ]);
  }, 30_000);
});

describe('the balance_rules mutants', () => {
  // Each is judged by the catalogue (`npm run conformance:mutants`): balance_rules alone against the mutated sandbox.
  it('stand for the money and concurrency faults the check is there to catch', () => {
    expect(mutants.length).toBeGreaterThanOrEqual(5);
    expect(new Set(mutants.map((m) => m.class))).toEqual(new Set(['money', 'concurrency']));
  });
});
