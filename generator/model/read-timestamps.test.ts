// x-timestamps of resource schemas and x-matches of list operations, read into the model: as written, and
// refused when they say something the extensions do not define.
import { describe, expect, it } from 'vitest';
import { readModel } from './read-model.js';
import type { JsonObject } from './types.js';

const document = (schema: JsonObject, matches: JsonObject | undefined): JsonObject => ({
  openapi: '3.1.0',
  info: { title: 'Mini', version: '0.0.1' },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        ...(matches ? { 'x-matches': matches } : {}),
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } },
            },
          },
        },
      },
    },
  },
  components: { schemas: { Thing: schema } },
});

const thing = (timestamps: JsonObject): JsonObject => ({
  type: 'object',
  title: 'Thing',
  'x-timestamps': timestamps,
  properties: {},
});

describe('x-timestamps', () => {
  it('reads each field’s rule by the schema’s title, with its states, null until a change and decision', () => {
    const model = readModel(
      document(
        thing({
          created: { set: 'creation' },
          updated: { set: 'change', null_until_change: true, decision: 'timestamps-move' },
          paid_at: { set: 'transition', states: ['PAID'] },
        }),
        undefined,
      ),
    );
    expect(model.timestamps).toEqual({
      Thing: [
        { field: 'created', set: 'creation', states: [], nullUntilChange: false },
        { field: 'updated', set: 'change', states: [], nullUntilChange: true, decision: 'timestamps-move' },
        { field: 'paid_at', set: 'transition', states: ['PAID'], nullUntilChange: false },
      ],
    });
  });

  it('refuses a rule the extension does not define, and a transition time without states', () => {
    expect(() => readModel(document(thing({ created: { set: 'sometimes' } }), undefined))).toThrow(
      /set "sometimes" is not creation, change or transition/,
    );
    expect(() => readModel(document(thing({ paid_at: { set: 'transition' } }), undefined))).toThrow(
      /names the states that set it/,
    );
  });
});

describe('x-matches', () => {
  it('reads the order and its decision onto the operation; an operation without has none', () => {
    const plain = { type: 'object', title: 'Thing', properties: {} };
    expect(
      readModel(document(plain, { order: 'newest_first', decision: 'list-order' })).operations[0]?.matches,
    ).toEqual({ order: 'newest_first', decision: 'list-order' });
    expect(readModel(document(plain, undefined)).operations[0]?.matches).toBeUndefined();
  });

  it('refuses an order the extension does not define', () => {
    expect(() =>
      readModel(document({ type: 'object', properties: {} }, { order: 'by_name', decision: 'list-order' })),
    ).toThrow(/order "by_name" is neither newest_first nor oldest_first/);
  });
});
