import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { callbackPath, identifyWebhook, parseCallbackPath, tokenVerdict } from './identify.js';

const contract = loadContract();
const [first, second] = contract.model.webhooks;
if (!first || !second) throw new Error('the contract has fewer than two webhooks');

/** A webhook's first documented example body. */
function exampleBody(operationId: string): unknown {
  const raw = contract.deref({ $ref: contract.webhook(operationId).pointer }) as {
    requestBody: { content: { 'application/json': { examples: Record<string, { value: unknown }> } } };
  };
  return Object.values(raw.requestBody.content['application/json'].examples)[0]?.value;
}

describe('callback paths', () => {
  it.each([
    ["the suite's own path", callbackPath('ewalletPayment', 'run-1'), { webhook: 'ewalletPayment', key: 'run-1' }],
    ['behind a proxy prefix', `/hooks/x${callbackPath('a b', 'k/1')}`, { webhook: 'a b', key: 'k/1' }],
    ['another path', '/dashboard', undefined],
    ['too short', '/callbacks/ewalletPayment', undefined],
  ])('%s', (_name, path, want) => {
    expect(parseCallbackPath(path)).toEqual(want);
  });
});

describe('identifyWebhook', () => {
  it('believes the path first', () => {
    expect(identifyWebhook(contract, callbackPath(second.operationId, 'k'), exampleBody(first.operationId))).toEqual({
      webhook: second.operationId,
      by: 'path',
      key: 'k',
    });
  });

  it('then the event field', () => {
    const named = contract.model.webhooks.find(
      (w) => (exampleBody(w.operationId) as { event?: unknown }).event === w.name,
    );
    if (!named) throw new Error('no webhook example carries an event field');
    expect(identifyWebhook(contract, '/dashboard', { event: named.name })).toEqual({
      webhook: named.operationId,
      by: 'event',
    });
  });

  it('then the one schema the body is valid against, for every webhook example', () => {
    for (const webhook of contract.model.webhooks) {
      const body = exampleBody(webhook.operationId) as Record<string, unknown>;
      const { event: _event, ...withoutEvent } = body;
      const identified = identifyWebhook(contract, '/dashboard', withoutEvent);
      // Without its event field a body may fit several schemas; it is never taken for another webhook.
      expect([webhook.operationId, undefined]).toContain(identified.webhook);
    }
  });

  it('gives up on a body no schema accepts', () => {
    expect(identifyWebhook(contract, '/dashboard', { nothing: true })).toEqual({ by: 'none' });
    expect(identifyWebhook(contract, '/dashboard', undefined)).toEqual({ by: 'none' });
  });
});

describe('tokenVerdict', () => {
  it.each([
    [undefined, 'secret', 'missing'],
    ['secret', 'secret', 'match'],
    ['secreT', 'secret', 'mismatch'],
    ['secret-longer', 'secret', 'mismatch'],
    ['anything', undefined, 'unchecked'],
  ] as const)('%s against %s', (given, configured, want) => {
    expect(tokenVerdict(given, configured)).toBe(want);
  });
});
