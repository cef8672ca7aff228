import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import {
  belongsTo,
  isStepDelivery,
  judgeDelivery,
  judgeEvent,
  judgeRecordedRetries,
  judgeRetryEvent,
} from './judge.js';
import type { Delivery } from './receiver.js';
import type { CallbackEvent, Change } from './events.js';

const contract = loadContract();
const [first, second] = contract.model.webhooks;
if (!first || !second) throw new Error('the contract has fewer than two webhooks');
const webhook = first;
const other = second;
const raw = contract.deref({ $ref: webhook.pointer }) as {
  requestBody: { content: { 'application/json': { examples: Record<string, { value: JsonObject }> } } };
};
const valid = Object.values(raw.requestBody.content['application/json'].examples)[0]?.value as JsonObject;
const firstField = Object.keys(valid)[0] as string;

const event: CallbackEvent = {
  key: 'run-1',
  webhook: webhook.operationId,
  label: 'the test event',
  expect: [{ field: firstField, allowed: [valid[firstField] ?? null], source: 'the test' }],
  correlation: { [firstField]: String(valid[firstField]) },
  fire: async () => ({ fired: false, reason: 'not fired in tests' }),
};

function delivery(overrides: Partial<Delivery> = {}): Delivery {
  return {
    seq: 0,
    receivedAt: 0,
    at: '',
    method: 'POST',
    path: '/callbacks/x/run-1',
    headers: {},
    token: { [webhook.tokenHeader]: 'match' },
    bodyText: JSON.stringify(valid),
    json: valid,
    tooLarge: false,
    identified: { webhook: webhook.operationId, by: 'path', key: 'run-1' },
    answered: 200,
    ...overrides,
  };
}

describe('judgeDelivery', () => {
  it('finds nothing wrong with a valid delivery', () => {
    expect(judgeDelivery(contract, event, delivery(), 'curl …')).toEqual([]);
  });

  const { [firstField]: _dropped, ...missingFirst } = valid;
  it.each([
    ['another method', { method: 'PUT' }, /sent with PUT, not POST/],
    [
      'another webhook by its event field',
      { identified: { webhook: other.operationId, by: 'event' } },
      new RegExp(`arrived as ${other.operationId} \\(by its event\\)`),
    ],
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
    [
      'another key and none of its values',
      delivery({ identified: { by: 'path', key: 'run-2' }, json: { [firstField]: 'other' } }),
      false,
    ],
    [
      'its values at a URL that names another webhook',
      delivery({ identified: { webhook: other.operationId, by: 'path', key: 'dashboard' } }),
      false,
    ],
    [
      'its values in a body only the schema matched to another webhook',
      delivery({ identified: { webhook: other.operationId, by: 'schema' } }),
      true,
    ],
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
    expect(findings.map((f) => f.message)).toEqual([
      `${webhook.operationId} retries for the test event: 2 attempt(s) while every attempt failed; x-delivery.attempts is 3`,
    ]);
  });
});

describe('judgeEvent: the callback of a step after the creation carries the change', () => {
  // A field of the webhook's body that the step set to a value the created object did not have.
  const change: Change = {
    step: 'theUpdate',
    marks: [{ field: firstField, allowed: ['updated value'], source: 'the theUpdate request' }],
    expect: [],
    earlier: true,
  };
  const creationCallback = delivery({ seq: 0 });
  const updateCallback = delivery({ seq: 1, json: { ...valid, [firstField]: 'updated value' }, bodyText: 'update' });
  const plain: CallbackEvent = { ...event, expect: [] };

  it("tells the step's callback from the creation's by the values only the step set", () => {
    expect(isStepDelivery(change, creationCallback)).toBe(false);
    expect(isStepDelivery(change, updateCallback)).toBe(true);
    expect(isStepDelivery({ ...change, earlier: false }, creationCallback)).toBe(true);
    expect(isStepDelivery(undefined, creationCallback)).toBe(true);
  });

  it("holds only the step's callback to the step's values; the creation's callback is judged for token and schema", () => {
    const findings = judgeEvent(contract, plain, { curl: 'curl …', change }, [creationCallback, updateCallback], 1_000);
    // The update's callback may fail its own schema with the made-up value; nothing says the creation's lacks the update.
    expect(findings.map((f) => f.message).filter((m) => m.includes('delivery 1 '))).toEqual([]);
    expect(findings.map((f) => f.message).filter((m) => m.includes('carried the change'))).toEqual([]);
  });

  it('reports an update whose every callback carries the object as it was before', () => {
    const findings = judgeEvent(
      contract,
      plain,
      { curl: 'curl …', change },
      [creationCallback, delivery({ seq: 1 })],
      1_000,
    );
    expect(findings.map((f) => f.message)).toEqual([
      `no ${webhook.operationId} delivery for the test event carried the change theUpdate made (${firstField} "updated value") within 1000 ms; 2 delivery(ies) carried the object as it was before (the earlier transition's callback, or a stale one)`,
    ]);
  });
});

describe('judgeRecordedRetries: retries timed in the target time, from its delivery records', () => {
  const expected = { attempts: 3, intervalMs: 30_000, earlyToleranceMs: 7_500, lateToleranceMs: 15_000 };
  const arrivals = [0, 1, 2].map((seq) => delivery({ seq, receivedAt: seq * 10 }));
  const record = (attemptTimes: number[]): { payload: unknown; attemptTimes: number[] } => ({
    payload: valid,
    attemptTimes,
  });
  const judge = (deliveries: Delivery[], records: { payload: unknown; attemptTimes: number[] }[]): string[] =>
    judgeRecordedRetries(
      event,
      deliveries,
      { records, listedBy: 'listDeliveries', moves: [] },
      expected,
      'curl …',
    ).findings.map((f) => f.message.replace(`${webhook.operationId} retries for the test event: `, ''));

  it('passes three attempts a retry interval apart in the target time, however close they came in real time', () => {
    expect(judge(arrivals, [record([0, 30_020, 60_050])])).toEqual([]);
  });

  it.each([
    [
      'attempts without spacing',
      arrivals,
      [record([0, 3, 6])],
      /attempt 2 came 3 ms after attempt 1; expected 30000 ms .*, in the target's time \(listDeliveries\)/,
    ],
    [
      'an attempt after the last',
      [...arrivals, delivery({ seq: 3 })],
      [record([0, 30_000, 60_000, 90_000])],
      /the receiver got 4 attempt\(s\) while it failed every one; x-delivery.attempts is 3/,
    ],
    [
      'records that do not match what arrived',
      arrivals,
      [record([0, 30_000])],
      /listDeliveries records 2 attempt\(s\) of it; the receiver got 3/,
    ],
    ['no record of the callback', arrivals, [], /listDeliveries lists no delivery with this body/],
  ] as [string, Delivery[], { payload: unknown; attemptTimes: number[] }[], RegExp][])(
    'reports %s',
    (_name, deliveries, records, pattern) => {
      expect(judge(deliveries, records).join('\n')).toMatch(pattern);
    },
  );

  it("reports a gap stretched by the suite's own move as not judged, not as a failure", () => {
    const stretched = judgeRecordedRetries(
      event,
      arrivals,
      { records: [record([0, 33_000, 63_000])], listedBy: 'listDeliveries', moves: [{ ms: 20_000, now: 33_000 }] },
      expected,
      'curl …',
    );
    expect(stretched.findings).toEqual([]);
    expect(stretched.unjudged).toEqual([
      expect.stringMatching(
        /^\S+ retries for the test event: attempt 2 came 33000 ms after attempt 1, at the end of a 20000 ms move .* in the target's time \(listDeliveries\)$/,
      ),
    ]);
  });
});
