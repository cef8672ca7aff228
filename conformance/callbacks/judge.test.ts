import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import { belongsTo, judgeDelivery, judgeRetryEvent } from './judge.js';
import type { Delivery } from './receiver.js';
import type { CallbackEvent } from './events.js';

const contract = loadContract();
const [first, second] = contract.model.webhooks;
if (!first || !second) throw new Error('the contract has fewer than two webhooks');
const webhook = first;
const other = second;
const raw = contract.deref({ $ref: webhook.pointer }) as { requestBody: { content: { 'application/json': { examples: Record<string, { value: JsonObject }> } } } };
const valid = Object.values(raw.requestBody.content['application/json'].examples)[0]?.value as JsonObject;
const firstField = Object.keys(valid)[0] as string;

const event: CallbackEvent = { key: 'run-1', webhook: webhook.operationId, label: 'the test event', expect: [{ field: firstField, allowed: [valid[firstField] ?? null], source: 'the test' }], correlation: { [firstField]: String(valid[firstField]) }, fire: async () => ({ fired: false, reason: 'not fired in tests' }) };

function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return { seq: 0, receivedAt: 0, at: '', method: 'POST', path: '/callbacks/x/run-1', headers: {}, token: { [webhook.tokenHeader]: 'match' }, bodyText: JSON.stringify(valid), json: valid, tooLarge: false, identified: { webhook: webhook.operationId, by: 'path', key: 'run-1' }, answered: 200, ...overrides };
}

describe('judgeDelivery', () => {
  it('finds nothing wrong with a valid delivery', () => {
    expect(judgeDelivery(contract, event, delivery(), 'curl …')).toEqual([]);
  });

  const { [firstField]: _dropped, ...missingFirst } = valid;
  it.each([
    ['another method', { method: 'PUT' }, /sent with PUT, not POST/],
    ['another webhook by its event field', { identified: { webhook: other.operationId, by: 'event' } }, new RegExp(`arrived as ${other.operationId} \\(by its event\\)`)],
    ['no token', { token: { [webhook.tokenHeader]: 'missing' } }, /no x-callback-token header/],
    ['a wrong token', { token: { [webhook.tokenHeader]: 'mismatch' } }, /does not match the callback token/],
    ['a body that is not JSON', { json: undefined, bodyText: '<html>' }, /the body is not JSON/],
    ['a body too large', { json: undefined, tooLarge: true }, /larger than the receiver accepts/],
    ['a body the schema refuses', { json: missingFirst }, /body does not match the .* schema/],
    ['a field other than the one expected', { json: { ...valid, [firstField]: 'something else' } }, /says/],
  ] as [string, Partial<Delivery>, RegExp][])('reports %s', (_name, overrides, pattern) => {
    const findings = judgeDelivery(contract, event, delivery(overrides), 'curl …');
    expect(findings.map((f) => f.message).join('\n')).toMatch(pattern);
    expect(findings.every((f) => f.severity === 'failure' && f.curl === 'curl …')).toBe(true);
  });

  it('gives the schema path of a schema violation', () => {
    const [finding] = judgeDelivery(contract, event, delivery({ json: missingFirst }), 'curl …');
    expect(finding?.schemaPath).toMatch(/#\/.*required$/);
  });
});

describe('belongsTo', () => {
  it.each([
    ['its key', delivery(), true],
    ['a unique value of its request, at a URL without its key', delivery({ identified: { by: 'event' } }), true],
    ['another key and none of its values', delivery({ identified: { by: 'path', key: 'run-2' }, json: { [firstField]: 'other' } }), false],
    ['its values at a URL that names another webhook', delivery({ identified: { webhook: other.operationId, by: 'path', key: 'dashboard' } }), false],
    ['its values in a body only the schema matched to another webhook', delivery({ identified: { webhook: other.operationId, by: 'schema' } }), true],
  ])('claims a delivery by %s: %s', (_name, d, want) => {
    expect(belongsTo(event, d)).toBe(want);
  });
});

describe('judgeRetryEvent', () => {
  const expected = { attempts: 3, intervalMs: 100, earlyToleranceMs: 25, lateToleranceMs: 50 };
  it('judges each distinct callback of the event on its own attempts', () => {
    const at = (receivedAt: number, bodyText: string): Delivery => delivery({ receivedAt, bodyText });
    const deliveries = [at(0, 'a'), at(5, 'b'), at(100, 'a'), at(105, 'b'), at(200, 'a')];
    const findings = judgeRetryEvent(event, deliveries, expected, 'curl …');
    expect(findings.map((f) => f.message)).toEqual([`${webhook.operationId} retries for the test event: 2 attempt(s) while every attempt failed; x-delivery.attempts is 3`]);
  });
});
