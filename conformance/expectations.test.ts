// Check 1 on one answer: what the contract says of its headers is judged like its body.
import { describe, expect, it } from 'vitest';
import { loadContract } from './contract.js';
import { responseFindings } from './expectations.js';
import { createHttpClient, type Exchange } from './http.js';

const contract = loadContract();
const http = createHttpClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test_unused', timeoutMs: 1_000 });
const getBalance = contract.model.operations.find((operation) => operation.operationId === 'getBalance');
if (!getBalance) throw new Error('the contract has no getBalance');

function balanceAnswer(headers: Record<string, string>): Exchange {
  const body = JSON.stringify({ balance: 1000 });
  return {
    request: { method: 'GET', url: 'http://127.0.0.1:9/balance', headers: {}, auth: 'valid' },
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
    bodyText: body,
    json: JSON.parse(body) as unknown,
    durationMs: 1,
  };
}

describe('headers the contract says are never sent', () => {
  it('an answer without them passes', () => {
    expect(
      responseFindings(contract, http, getBalance, balanceAnswer({}), false).filter((f) => f.severity === 'failure'),
    ).toEqual([]);
  });

  it('an answer that carries Access-Control-Allow-Origin fails, since it lets a web page read what a secret key fetched', () => {
    const findings = responseFindings(
      contract,
      http,
      getBalance,
      balanceAnswer({ 'access-control-allow-origin': '*' }),
      false,
    );
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['failure', 'the answer carries the access-control-allow-origin header, which the contract says is never sent'],
    ]);
  });
});
