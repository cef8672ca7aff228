// A mutant counts as caught only where its mistake is: on the result it names, saying what it names, with the
// commands it names, and without a key in any reproducing command.
import { describe, expect, it } from 'vitest';
import type { CheckResult, RunSummary } from '../types.js';
import { failuresOf, keysInCommands, missedWhere, notRunResults } from './caught-where.js';

const failures = {
  'transitions:getDisbursement': [
    { message: 'expected status FAILED, got PENDING', curl: "curl -sS 'http://127.0.0.1/disbursements/d1'" },
    { message: 'the callback said FAILED' },
  ],
  'response_conformance:getDisbursement': [{ message: '/status must be one of …', curl: 'curl …' }],
};

describe('missedWhere', () => {
  it('is satisfied by the named result failing', () => {
    expect(missedWhere({ result: 'transitions:getDisbursement' }, failures)).toBeUndefined();
  });

  it('says when the named result did not fail, though others did', () => {
    expect(missedWhere({ result: 'transitions:getFixedPaymentCode' }, failures)).toBe(
      'transitions:getFixedPaymentCode did not fail',
    );
  });

  it('with alone, refuses other failed results', () => {
    expect(missedWhere({ result: 'transitions:getDisbursement', alone: true }, failures)).toMatch(
      /^response_conformance:getDisbursement failed too/,
    );
    expect(
      missedWhere({ result: 'transitions:getDisbursement', alone: true }, { 'transitions:getDisbursement': [] }),
    ).toBeUndefined();
  });

  it('needs each pattern of says matched by a failure finding', () => {
    expect(missedWhere({ result: 'transitions:getDisbursement', says: [/got PENDING/, /callback/] }, failures)).toBe(
      undefined,
    );
    expect(missedWhere({ result: 'transitions:getDisbursement', says: [/got PENDING/, /refund/] }, failures)).toMatch(
      /failed without saying \/refund\/ \(it said: expected status FAILED, got PENDING \| the callback said FAILED\)/,
    );
  });

  it('with shownBy, judges the command of the finding that says the first pattern', () => {
    const where = { result: 'transitions:getDisbursement', says: [/got PENDING/] };
    expect(missedWhere({ ...where, shownBy: /\/disbursements\/d1/ }, failures)).toBeUndefined();
    expect(missedWhere({ ...where, shownBy: /\/disbursements\?external_id=/ }, failures)).toMatch(/is not shown by/);
    expect(
      missedWhere({ result: 'transitions:getDisbursement', says: [/callback/], shownBy: /curl/ }, failures),
    ).toMatch(/\(no command\)$/);
  });

  it('with reproduced, needs a curl command on every failure finding of the result', () => {
    expect(missedWhere({ result: 'response_conformance:getDisbursement', reproduced: true }, failures)).toBe(undefined);
    expect(missedWhere({ result: 'transitions:getDisbursement', reproduced: true }, failures)).toBe(
      'transitions:getDisbursement: no command reproduces the callback said FAILED',
    );
  });
});

const result = (outcome: CheckResult['outcome'], findings: CheckResult['findings']): CheckResult => ({
  check: 'auth',
  subject: 'getBalance',
  outcome,
  cases: 1,
  findings,
});
const summary = (results: CheckResult[]): RunSummary => ({ results }) as unknown as RunSummary;

describe('what a trial reports of its run', () => {
  it('keeps the failure findings of failed results only, message and command', () => {
    const run = summary([
      result('failed', [
        { severity: 'failure', message: 'a', curl: 'curl x', status: 200 },
        { severity: 'warning', message: 'w' },
      ]),
      { ...result('passed', [{ severity: 'failure', message: 'ignored' }]), subject: 'getDisbursement' },
    ]);
    expect(failuresOf(run)).toEqual({ 'auth:getBalance': [{ message: 'a', curl: 'curl x' }] });
  });

  it('names every result, failed or not, whose command shows an API key', () => {
    const run = summary([
      result('passed', [{ severity: 'warning', message: 'w', curl: "curl -u 'sk_test_abc:' …" }]),
      {
        ...result('failed', [{ severity: 'failure', message: 'f', curl: 'curl -u "$PAYMENTS_API_KEY:"' }]),
        check: 'isolation',
      },
    ]);
    expect(keysInCommands(run)).toEqual(['auth:getBalance']);
  });

  it('names the results not run in full: skipped, or a part left unchecked, but not what does not apply', () => {
    const run = summary([
      { ...result('passed', []), unchecked: ["other keys' windows: not judged"] },
      { ...result('skipped', []), subject: 'getDisbursement', skippedReason: 'no key' },
      { ...result('skipped', []), subject: 'listCustomers', notApplicable: true },
      { ...result('passed', []), subject: 'getCustomer' },
    ]);
    expect(notRunResults(run)).toEqual(['auth:getBalance', 'auth:getDisbursement']);
  });
});
