// Requests from the contract's examples are sent with their time-bound values moved to the target's time,
// keeping what each example means, whatever the date: here a target whose clock reads years after the
// moment the examples are written against.
import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { createTargetClock } from '../target-clock.js';
import { bodyExamples, buildRequest, redatedNotes } from './requests.js';

const TARGET_NOW = Date.parse('2031-05-01T00:00:00.000Z');
// This machine's clock is pinned too, so that the target's time does not move during the test.
const contract = { ...loadContract(), clock: createTargetClock(() => TARGET_NOW) };
contract.clock.observe(TARGET_NOW, 'a clock pinned for the test');
const reference = Date.parse(contract.model.examplesReferenceTime ?? '');

const example = (operationId: string, name: string) => {
  const found = bodyExamples(contract, contract.operation(operationId)).find((e) => e.name === name);
  if (!found) throw new Error(`${operationId} has no example ${name}`);
  return found;
};
const field = (value: unknown, name: string): string => String((value as Record<string, unknown>)[name]);

describe('bodyExamples', () => {
  it('moves a future expiry to as far ahead of the target’s time as it was ahead of the reference time', () => {
    const code = example('createFixedPaymentCode', 'ownCodeSingleUse');
    const written = Date.parse('2026-11-24T23:59:00.000Z');
    expect(field(code.value, 'expiration_date')).toBe(new Date(TARGET_NOW + (written - reference)).toISOString());
    expect(code.redated).toEqual([
      { field: 'expiration_date', from: '2026-11-24T23:59:00.000Z', to: field(code.value, 'expiration_date') },
    ]);
  });

  it('keeps a past expiry in the past (an update that expires the account now)', () => {
    const expireNow = example('updateFixedVirtualAccount', 'expireNow');
    expect(Date.parse(field(expireNow.value, 'expiration_date'))).toBeLessThan(TARGET_NOW);
  });

  it('moves a card expiry MM/YY the same way, and leaves every other value as written', () => {
    const card = example('initializeLinkedAccountTokenization', 'briDebitCard');
    expect(card.redated.map((r) => [r.field, r.from])).toEqual([['properties.card_expiry', '06/29']]);
    expect(card.redated[0]?.to).toMatch(/^\d{2}\/3[3-4]$/);
    const untimed = example('createFixedPaymentCode', 'randomCode');
    expect(untimed.redated).toEqual([]);
  });

  it('is what buildRequest sends by default', () => {
    const operation = contract.operation('createFixedPaymentCode');
    const first = bodyExamples(contract, operation)[0];
    expect(buildRequest(contract, operation).body?.text).toBe(JSON.stringify(first?.value));
  });

  it('says in notes which values were moved, from what to what', () => {
    const notes = redatedNotes(contract, bodyExamples(contract, contract.operation('createFixedPaymentCode')));
    expect(notes).toEqual([
      expect.stringMatching(
        /^example "ownCodeSingleUse": expiration_date 2026-11-24T23:59:00.000Z sent as 2031-05-04T14:29:00.000Z \(re-dated .*2026-11-21T09:30:00.000Z.*a clock pinned for the test\)$/,
      ),
    ]);
  });
});
