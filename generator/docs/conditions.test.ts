import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@payments-contract/model/types';
import { withConditionNames } from './conditions.js';

const failedNeedsCode = {
  if: { properties: { status: { const: 'FAILED' } }, required: ['status'] },
  then: { required: ['failure_code'] },
  else: { properties: { failure_code: false } },
};
const doc: JsonObject = {
  'x-state-machines': {
    thing: { resource: 'Thing', field: 'status', states: ['PENDING', 'DONE', 'FAILED'], initial: 'PENDING' },
  },
  components: {
    schemas: {
      Thing: { allOf: [failedNeedsCode] },
      ThingCallback: { allOf: [failedNeedsCode] },
      Account: {
        allOf: [{ if: { properties: { bank: { not: { enum: ['A', 'B'] } } } }, then: { required: ['x'] } }],
      },
    },
  },
};
const shown = withConditionNames(doc).components as { schemas: Record<string, { allOf: JsonObject[] }> };
const names = (schema: string) =>
  shown.schemas[schema]?.allOf.map((part) => [
    (part.if as JsonObject)['x-displayName'],
    (part.else as JsonObject)['x-displayName'],
  ]);

describe('withConditionNames', () => {
  it("names a machine's branches by its states, the initial state's branch first, validating the same", () => {
    expect(names('Thing')).toEqual([['status is PENDING or DONE', 'status is FAILED']]);
    const [turned] = shown.schemas.Thing?.allOf ?? [];
    expect(turned).toEqual({
      if: { not: failedNeedsCode.if, 'x-displayName': 'status is PENDING or DONE' },
      then: failedNeedsCode.else,
      else: { ...failedNeedsCode.then, 'x-displayName': 'status is FAILED' },
    });
  });

  it('names other conditions in words, keeping their order; a missing else is an empty one', () => {
    expect(names('ThingCallback')).toEqual([['status is FAILED', 'status is not FAILED']]);
    expect(names('Account')).toEqual([['bank is none of A, B', 'bank is A or B']]);
    expect(shown.schemas.Account?.allOf[0]?.then).toEqual({ required: ['x'] });
  });
});
