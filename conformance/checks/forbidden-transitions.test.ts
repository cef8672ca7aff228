// The forbidden_transitions check: what it reads from the contract (who acts on an object, in which states
// the machine allows it, which answer a forbidden action gets), how its windows keep other cases out, and
// its verdict on a target that lets a forbidden update through, on one that behaves, and on the sandbox.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { createControlApi, defaultControlSpecPath } from '../callbacks/sandbox.js';
import { createContract, loadContract } from '../contract.js';
import { createHttpClient } from '../http.js';
import { runMutant } from '../mutants/runner.js';
import { runConformance } from '../run.js';
import { startStatefulTarget, type StatefulFaults } from '../tests/fakes/stateful-target.js';
import type { Target } from '../tests/target.js';
import type { CheckResult } from '../types.js';
import { SharedExclusive } from '../workflows/forbidden-effects.js';
import { actorsOf, documentedRefusal, waysToTry, type Actor } from '../workflows/forbidden-cases.js';
import { stateMachines, type StateMachine } from '../workflows/machines.js';

const contract = loadContract();
// Never called: the planning only reads the control contract's data.
const http = createHttpClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test_unused', timeoutMs: 1_000 });
const control = createControlApi(
  http,
  createContract(JSON.parse(readFileSync(defaultControlSpecPath, 'utf8')) as JsonObject),
  'the bundled control contract',
);
const machine = (key: string): StateMachine => stateMachines(contract).get(key) ?? expect.fail(`no machine ${key}`);
const allowedBy = (key: string): Record<string, string[]> =>
  Object.fromEntries(actorsOf(contract, machine(key), control).actors.map((a) => [a.name, a.allowed]));
const actor = (key: string, name: string): Actor =>
  actorsOf(contract, machine(key), control).actors.find((a) => a.name === name) ?? expect.fail(`no actor ${name}`);

describe('who acts on an object, and where the machine allows it', () => {
  it('reads the operations the machine names and the simulations of its events, each allowed where a transition by it answers no error', () => {
    expect(allowedBy('fixedVirtualAccount')).toEqual({
      updateFixedVirtualAccount: ['PENDING', 'ACTIVE'],
      'simulateFixedVirtualAccountPayment (sandbox control API)': ['ACTIVE'],
    });
    expect(allowedBy('directDebitPayment')).toEqual({
      validateDirectDebitPaymentOtp: ['PENDING'],
      'completeDirectDebitPayment (sandbox control API)': ['PENDING'],
      'failDirectDebitPayment (sandbox control API)': ['PENDING'],
    });
    // Charging a payment method is the creation of another resource that names it; ACTIVE is the one state that allows it.
    expect(allowedBy('paymentMethod')).toMatchObject({ createDirectDebitPayment: ['ACTIVE'] });
    // The creation is no action on an existing object.
    expect(Object.keys(allowedBy('fixedPaymentCode'))).not.toContain('createFixedPaymentCode');
  });

  it('expects the machine’s error for the state, else the operation’s state trigger naming machine and state', () => {
    expect(
      documentedRefusal(
        machine('fixedVirtualAccount'),
        actor('fixedVirtualAccount', 'updateFixedVirtualAccount'),
        'INACTIVE',
      )?.code,
    ).toBe('INACTIVE_VIRTUAL_ACCOUNT_ERROR');
    expect(
      documentedRefusal(
        machine('fixedVirtualAccount'),
        actor('fixedVirtualAccount', 'simulateFixedVirtualAccountPayment (sandbox control API)'),
        'PENDING',
      )?.code,
    ).toBe('SANDBOX_STATE_CONFLICT');
    expect(
      documentedRefusal(
        machine('linkedAccountToken'),
        actor('linkedAccountToken', 'validateLinkedAccountTokenOtp'),
        'FAILED',
      )?.code,
    ).toBe('ACCOUNT_LINKING_ALREADY_FAILED');
    expect(
      documentedRefusal(machine('paymentMethod'), actor('paymentMethod', 'createDirectDebitPayment'), 'INACTIVE')?.code,
    ).toBe('INVALID_PAYMENT_METHOD_ERROR');
  });

  it('reads the instant of an expiry as data', () => {
    const timed = machine('fixedVirtualAccount').transitions.filter((t) => t.trigger.time === 'expiration_date');
    expect(timed.map((t) => t.trigger.boundary)).toEqual(['inclusive', 'inclusive']);
  });
});

describe('the ways into a state each actor is tried after', () => {
  const timed = (step: string): boolean => step.startsWith('time');
  const ways = [['update'], ['paid'], ['time']];

  it('gives every actor the expired object, and shares the other ways out so that together they go through each', () => {
    expect(waysToTry(ways, timed, 0, 2)).toEqual([['update'], ['time']]);
    expect(waysToTry(ways, timed, 1, 2)).toEqual([['paid'], ['time']]);
    // More actors than ways: an actor left without one of its own still gets one that is not the clock's.
    expect(waysToTry(ways, timed, 2, 3)).toEqual([['update'], ['time']]);
  });
});

describe('the window of a case', () => {
  it('waits for the steps under way and holds back new ones until it is over', async () => {
    const lock = new SharedExclusive();
    const events: string[] = [];
    let release: () => void = () => undefined;
    const step = lock.withShared(
      () => new Promise<void>((resolve) => (release = () => (events.push('step done'), resolve()))),
    );
    const window = lock.withExclusive(async () => void events.push('window'));
    await Promise.resolve();
    const later = lock.withShared(async () => void events.push('later step'));
    release();
    await Promise.all([step, window, later]);
    expect(events).toEqual(['step done', 'window', 'later step']);
  });
});

const apiKey = 'sk_test_forbidden';
let target: Target | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function againstFake(faults: StatefulFaults): Promise<CheckResult[]> {
  target = await startStatefulTarget(contract, apiKey, faults);
  const summary = await runConformance({
    baseUrl: target.url,
    apiKey,
    profile: 'stateful',
    only: ['forbidden_transitions'],
    timeoutMs: 5_000,
    concurrency: 8,
    strict: false,
  });
  return summary.results.filter((r) => r.check === 'forbidden_transitions');
}

describe('forbidden_transitions against targets', () => {
  it('fails the update a target lets through on an expired account or code, on that operation', async () => {
    const results = await againstFake({ updateWhenInactive: true });
    const failed = results.filter((r) => r.outcome === 'failed').map((r) => r.subject);
    expect(failed).toEqual(expect.arrayContaining(['updateFixedVirtualAccount', 'updateFixedPaymentCode']));
    const finding = results.find((r) => r.subject === 'updateFixedVirtualAccount')?.findings[0]?.message ?? '';
    expect(finding).toMatch(/INACTIVE_VIRTUAL_ACCOUNT_ERROR/);
  }, 60_000);

  it('passes the same target when it refuses them, and reports what it cannot reach there (no control API) as not run', async () => {
    const results = await againstFake({});
    // The fake counts no wrong OTP attempts, so the ways into a FAILED token or payment fail there: only the updates are its to judge.
    for (const subject of ['updateFixedVirtualAccount', 'updateFixedPaymentCode']) {
      const result = results.find((r) => r.subject === subject);
      expect(result?.outcome, result?.findings.map((f) => f.message).join('; ')).toBe('passed');
    }
    // An event needs the control API's simulation: without one its cases are not run, with the reason, never passed.
    const disbursement = results.find((r) => r.subject === 'getDisbursement');
    expect(disbursement?.outcome).toBe('skipped');
    expect(disbursement?.notApplicable).toBeUndefined();
    expect(disbursement?.notes?.join('\n')).toMatch(
      /bank_rejected_transfer where it is forbidden: not run: .*no sandbox control API/,
    );
  }, 60_000);

  it('passes the sandbox, where every action is tried', async () => {
    const summary = await runMutant(undefined, { only: ['forbidden_transitions'] });
    const results = summary.results.filter((r) => r.check === 'forbidden_transitions');
    expect(
      results
        .filter((r) => r.outcome !== 'passed')
        .map((r) => `${r.subject}: ${r.outcome} ${r.findings.map((f) => f.message).join('; ')}`),
    ).toEqual([]);
    expect(results.map((r) => r.subject)).toEqual(
      expect.arrayContaining([
        'updateFixedVirtualAccount',
        'getFixedVirtualAccount',
        'validateDirectDebitPaymentOtp',
        'getDisbursement',
        'getEwalletPaymentStatus',
        'createDirectDebitPayment',
      ]),
    );
  }, 120_000);
});
