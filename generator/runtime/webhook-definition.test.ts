import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { conforms } from './webhook-definition.js';

const validate = new Ajv2020({ allErrors: true, verbose: true }).compile({
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
});

describe('conforms', () => {
  it.each([
    ['a payload the schema accepts', { id: 'x' }, true],
    ['a payload the schema refuses', { id: 1 }, false],
    ['no object at all', null, false],
  ])('%s -> %s', (_name, payload, want) => {
    expect(conforms<{ id: string }>(validate, payload)).toBe(want);
  });

  it('narrows the payload to the webhook’s type when the validator accepts it', () => {
    const payload: unknown = { id: 'x' };
    if (conforms<{ id: string }>(validate, payload)) expectTypeOf(payload).toEqualTypeOf<{ id: string }>();
    else expect.unreachable();
  });
});
