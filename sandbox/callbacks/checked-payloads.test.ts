import { describe, expect, it } from 'vitest';
import { buildWebhookDelivery, WebhookPayloadError, type WebhookEvents } from '@payments-contract/client/webhooks';
import { createCheckedPayloads } from './checked-payloads.js';
import { webhookExample } from './testing.js';

const options = { callbackToken: 'cbt_test_sandbox_5ed75086a883856178afc12e', url: 'http://127.0.0.1:9/callbacks' };
const valid = webhookExample('disbursementFinished') as unknown as WebhookEvents['disbursementFinished'];
/** A payload the schema refuses: the webhook's required id left out. */
const broken = { ...valid, id: undefined } as unknown as WebhookEvents['disbursementFinished'];

describe("a callback attempt's request", () => {
  it('is the one the contract builds, for a payload checked as it was recorded and for one that was not', () => {
    const checked = createCheckedPayloads();
    checked.add('recorded-here');
    const expected = buildWebhookDelivery('disbursementFinished', valid, options);
    expect(checked.build('recorded-here', 'disbursementFinished', valid, options)).toEqual(expected);
    expect(checked.build('recorded-elsewhere', 'disbursementFinished', valid, options)).toEqual(expected);
  });

  it('checks the payload of a delivery this process did not check as it recorded it (another sandbox, an earlier run)', () => {
    expect(() => createCheckedPayloads().build('recorded-elsewhere', 'disbursementFinished', broken, options)).toThrow(
      WebhookPayloadError,
    );
  });

  it('takes a payload checked as it was recorded as checked at its first attempt only: a later one checks it again', () => {
    const checked = createCheckedPayloads();
    checked.add('recorded-here');
    // What went out is what was checked at the record; `broken` stands for it here to show no second check is made.
    expect(() => checked.build('recorded-here', 'disbursementFinished', broken, options)).not.toThrow();
    expect(() => checked.build('recorded-here', 'disbursementFinished', broken, options)).toThrow(WebhookPayloadError);
  });

  it('forgets the oldest deliveries past its limit, which are then checked at their attempt', () => {
    const checked = createCheckedPayloads(2);
    for (const id of ['first', 'second', 'third']) checked.add(id);
    expect(() => checked.build('first', 'disbursementFinished', broken, options)).toThrow(WebhookPayloadError);
    expect(() => checked.build('second', 'disbursementFinished', broken, options)).not.toThrow();
    expect(() => checked.build('third', 'disbursementFinished', broken, options)).not.toThrow();
  });
});
