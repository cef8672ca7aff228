// No request example is born stale: every value a rule compares with the current time (the model's
// time-bound fields) is a time, and one the service refuses in the past lies after the moment the examples are
// written against (x-examples-reference-time), so that, moved to any later date, it is still ahead of it.
import { describe, expect, it } from 'vitest';
import { readModel, timeOfValue } from '@payments-contract/contract/model';
import { deref, isObject, loadBundled, type Json, type JsonObject } from './document.js';

const doc = loadBundled();
const model = readModel(doc);

/** Every named example of the operation's request body, in every media type. */
function requestExamples(pointer: string): [string, Json][] {
  const operation = deref(doc, { $ref: pointer });
  const body = isObject(operation) ? deref(doc, operation.requestBody) : undefined;
  const content = isObject(body) ? deref(doc, body.content) : undefined;
  return Object.entries(isObject(content) ? content : {}).flatMap(([mediaType, media]) => {
    const examples = isObject(media) ? deref(doc, (media as JsonObject).examples) : undefined;
    return Object.entries(isObject(examples) ? examples : {}).flatMap(([name, example]) => {
      const resolved = deref(doc, example);
      return isObject(resolved) && resolved.value !== undefined
        ? [[`${mediaType} "${name}"`, resolved.value] as [string, Json]]
        : [];
    });
  });
}

const valueAt = (value: Json, field: string): Json | undefined =>
  field.split('.').reduce<Json | undefined>((node, key) => (isObject(node) ? node[key] : undefined), value);

const cases = model.operations.flatMap((operation) =>
  operation.timeBound.flatMap(({ field, pastRefused }) =>
    requestExamples(operation.pointer).flatMap(([example, value]) => {
      const held = valueAt(value, field);
      return held === undefined ? [] : [{ what: `${operation.operationId} ${example} ${field}`, held, pastRefused }];
    }),
  ),
);

describe('time-bound values of request examples', () => {
  const reference = Date.parse(model.examplesReferenceTime ?? '');

  it('are written against a declared moment, and there are some (the rules name them)', () => {
    expect(Number.isNaN(reference)).toBe(false);
    expect(cases.map((c) => c.what)).toEqual(
      expect.arrayContaining([
        'createFixedPaymentCode application/json "ownCodeSingleUse" expiration_date',
        'updateFixedVirtualAccount application/json "expireNow" expiration_date',
      ]),
    );
  });

  it.each(cases.map((c) => [c.what, c] as const))(
    '%s is a time, after the reference time where a past one is refused',
    (_what, { held, pastRefused }) => {
      const at = timeOfValue(held);
      expect(at, `${JSON.stringify(held)} is no time`).toBeTypeOf('number');
      if (pastRefused)
        expect(at, `${String(held)} is not after ${model.examplesReferenceTime}`).toBeGreaterThan(reference);
    },
  );
});
