import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import type { Exchange, HttpClient } from '../http.js';
import type { CheckContext } from '../types.js';
import { runScenario } from './scenario.js';

const contract = loadContract();
const operation = contract.operation('getFixedVirtualAccount');

/** A context whose target answers every request with the given status and body. */
function context(status: number, body: unknown): CheckContext {
  const exchange: Exchange = {
    request: { method: 'GET', url: 'http://target/x', headers: {}, auth: 'valid' },
    status,
    headers: { 'content-type': 'application/json' },
    bodyText: JSON.stringify(body),
    json: body,
    durationMs: 1,
  };
  const http: HttpClient = {
    send: async () => exchange,
    requestCount: () => 0,
    curl: () => 'curl -X GET http://target/x',
    basicAuthorization: () => '',
    withKey: () => http,
  };
  return {
    contract,
    http,
    options: {
      baseUrl: 'http://target',
      apiKey: 'k',
      profile: 'stateful',
      timeoutMs: 1000,
      concurrency: 1,
      strict: false,
    },
    observe: () => [],
    selected: () => true,
  };
}

const request = { method: 'get', path: '/callback_virtual_accounts/x' };

describe('scenarios', () => {
  it('stops at the first failed step and names the steps not reached', async () => {
    const result = await runScenario(
      context(500, { error_code: 'SERVER_ERROR', message: 'x' }),
      'stateful_workflows',
      'w',
      ['one', 'two', 'three'],
      async (s) => {
        await s.succeed('one', operation, request);
        await s.succeed('two', operation, request);
      },
    );
    expect(result.outcome).toBe('failed');
    expect(result.cases).toBe(1);
    expect(result.findings.map((f) => f.message)).toEqual([
      'one (getFixedVirtualAccount): expected status 200, got 500 (steps not reached: two, three)',
    ]);
  });

  it('turns an unexpected error into a failure of its subject, not a crash', async () => {
    const result = await runScenario(context(200, {}), 'stateful_workflows', 'w', ['one'], async () => {
      throw new Error('boom');
    });
    expect(result).toMatchObject({
      outcome: 'failed',
      findings: [{ severity: 'failure', message: expect.stringContaining('boom') }],
    });
  });

  it('skips with the reason, unless a failure came first', async () => {
    const skipped = await runScenario(context(200, {}), 'stateful_workflows', 'w', [], async (s) => s.skip('not here'));
    expect(skipped).toMatchObject({ outcome: 'skipped', skippedReason: 'not here' });
    const failed = await runScenario(context(200, {}), 'stateful_workflows', 'w', ['one'], async (s) => {
      s.flag(false, 'one', await s.send('one', operation, request), 'wrong');
      s.skip('not here');
    });
    expect(failed.outcome).toBe('failed');
  });

  it('skips when the target refuses for its configuration (a merchant setting)', async () => {
    const create = contract.operation('createFixedVirtualAccount');
    const result = await runScenario(
      context(400, { error_code: 'BANK_NOT_SUPPORTED_ERROR', message: 'x' }),
      'stateful_workflows',
      'w',
      ['create'],
      async (s) => {
        await s.succeed('create', create, { method: 'post', path: '/callback_virtual_accounts' });
      },
    );
    expect(result).toMatchObject({
      outcome: 'skipped',
      skippedReason: expect.stringMatching(/merchant_setting \(virtual_account_bank_activation\)/),
    });
  });
});
