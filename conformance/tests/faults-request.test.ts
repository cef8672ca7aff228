// Proof that checks 2 and 3 catch the request-side fault classes: an in-test target that conforms except
// for one fault on one operation, run through the library with only the relevant checks and a few
// operations selected. Each fault must be reported against its operation and check, and nowhere else.
import { afterAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import type { CheckName } from '../types.js';
import { startTarget, type Target } from './target.js';
import {
  failed,
  resultOf,
  runSelected,
  VALID_KEY,
  validatingOverride,
  type RequestFaults,
} from './validating-target.js';

const contract = loadContract();
const targets: Target[] = [];
afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});

/** Runs `checks` on the faulty operation and on a conforming one beside it. */
async function runWith(
  faults: RequestFaults,
  checks: CheckName[],
  faulty: string,
  control: string,
): Promise<Awaited<ReturnType<typeof runSelected>>> {
  contract.operation(faulty);
  contract.operation(control);
  const target = await startTarget(contract, VALID_KEY, validatingOverride(contract, faults));
  targets.push(target);
  return runSelected(
    target.url,
    checks.flatMap((check) => [`${check}:${faulty}`, `${check}:${control}`]),
  );
}

const messages = (summary: Awaited<ReturnType<typeof runSelected>>, check: CheckName, subject: string): string[] =>
  resultOf(summary, check, subject).findings.map((f) => f.message);

describe('request-side faults are reported against the right operation and check', () => {
  it('a 2xx without a key: auth', async () => {
    const summary = await runWith({ ignoresAuth: 'getBalance' }, ['auth'], 'getBalance', 'listCustomers');
    expect(failed(summary)).toEqual(['auth:getBalance']);
    expect(messages(summary, 'auth', 'getBalance')).toEqual(
      expect.arrayContaining([
        '2xx without a valid key (no key)',
        '2xx without a valid key (malformed Authorization (Bearer scheme))',
      ]),
    );
  });

  it('a 5xx on bad input: negative_data', async () => {
    const summary = await runWith(
      { serverErrorOnInvalid: 'createDisbursement' },
      ['negative_data', 'response_conformance'],
      'createDisbursement',
      'createCustomer',
    );
    expect(failed(summary)).toEqual(['negative_data:createDisbursement']);
    const result = resultOf(summary, 'negative_data', 'createDisbursement');
    expect(result.findings.length).toBe(result.cases);
    expect(
      result.findings.every(
        (f) => /: 500 on invalid input \(expected \d{3} \w+ from x-/.test(f.message) && f.status === 500,
      ),
    ).toBe(true);
  });

  it('an undocumented error_code on a validation error: negative_data and response_conformance', async () => {
    for (const profile of ['stateless', 'stateful'] as const) {
      const target = await startTarget(
        contract,
        VALID_KEY,
        validatingOverride(contract, { undocumentedCode: 'createFixedPaymentCode' }),
      );
      targets.push(target);
      const summary = await runSelected(
        target.url,
        [
          'negative_data:createFixedPaymentCode',
          'negative_data:createFixedVirtualAccount',
          'response_conformance:createFixedPaymentCode',
          'response_conformance:createFixedVirtualAccount',
        ],
        profile,
      );
      expect(failed(summary).sort()).toEqual([
        'negative_data:createFixedPaymentCode',
        'response_conformance:createFixedPaymentCode',
      ]);
      // Each invalid request is judged by check 3 (the code its rule prescribes) and check 1 (a documented code).
      const result = resultOf(summary, 'negative_data', 'createFixedPaymentCode');
      expect(
        result.findings.filter((f) => /: expected error_code .* got CONFORMANCE_UNDOCUMENTED_CODE$/.test(f.message))
          .length,
      ).toBe(result.cases);
      expect(messages(summary, 'response_conformance', 'createFixedPaymentCode')).toContainEqual(
        expect.stringMatching(
          /^error_code CONFORMANCE_UNDOCUMENTED_CODE is not documented for createFixedPaymentCode at 400/,
        ),
      );
    }
  });

  it('a non-JSON error body: response_conformance (and negative_data, which finds no code)', async () => {
    const summary = await runWith(
      { nonJsonError: 'createEwalletPayment' },
      ['negative_data', 'response_conformance'],
      'createEwalletPayment',
      'createPaymentMethod',
    );
    expect(failed(summary).sort()).toEqual([
      'negative_data:createEwalletPayment',
      'response_conformance:createEwalletPayment',
    ]);
    const response = messages(summary, 'response_conformance', 'createEwalletPayment');
    expect(response).toContainEqual(expect.stringMatching(/body is not JSON$/));
    expect(response).toContainEqual(expect.stringMatching(/^content type is "text\/plain", not application\/json$/));
    const result = resultOf(summary, 'negative_data', 'createEwalletPayment');
    expect(result.findings.filter((f) => /: expected error_code .* got none$/.test(f.message)).length).toBe(
      result.cases,
    );
  });

  it('the same target without the fault passes: nothing above is noise', async () => {
    const summary = await runWith(
      {},
      ['auth', 'negative_data', 'response_conformance'],
      'createEwalletPayment',
      'getBalance',
    );
    expect(failed(summary)).toEqual([]);
    expect(summary.results.filter((r) => r.outcome === 'passed').length).toBe(6);
  });
});
