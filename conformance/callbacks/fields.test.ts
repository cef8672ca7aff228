import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { duplicateFields, echoedIdentifiers, getAt, setAt, uniqueVariant, uniquify } from './fields.js';

const contract = loadContract();

describe('getAt and setAt', () => {
  it('reach nested fields and array items', () => {
    expect(getAt({ a: [{ id: 'x' }] }, 'a.0.id')).toBe('x');
    expect(getAt({ a: 1 }, 'a.b')).toBeUndefined();
  });

  it('set without touching the original', () => {
    const original = { properties: { id: 'old' } };
    expect(setAt(original, 'properties.id', 'new')).toEqual({ properties: { id: 'new' } });
    expect(setAt({}, 'a.b', 1)).toEqual({ a: { b: 1 } });
    expect(original.properties.id).toBe('old');
  });
});

describe('uniqueVariant', () => {
  it.each([
    ['keeps a digits-only pattern and length', '081234567890', /^08[0-9]{8,11}$/],
    ['keeps letters, digits and dashes', 'order-2026-11-21-7781', /^[A-Za-z0-9-]+$/],
    ['appends to a short value', 'ab', /^ab-[a-z][0-9][a-z][0-9]/],
  ])('%s', (_name, value, pattern) => {
    const variants = new Set(Array.from({ length: 20 }, () => uniqueVariant(value, (c) => pattern.test(c))));
    expect([...variants].every((v) => v !== undefined && v !== value && pattern.test(v))).toBe(true);
    expect(variants.size).toBeGreaterThan(15);
  });

  it('gives up when nothing fits', () => {
    expect(uniqueVariant('IDR', (c) => c === 'IDR')).toBeUndefined();
  });
});

describe('uniquify', () => {
  const schema = {
    type: 'object',
    properties: {
      external_id: { type: 'string', maxLength: 30, pattern: '^[a-z0-9-]+$' },
      bank: { type: 'string', enum: ['BNI'] },
      when: { type: 'string', format: 'date-time' },
    },
  };

  it('changes free strings within their schema and leaves enums and formats alone', () => {
    const body = { external_id: 'va-0001', bank: 'BNI', when: '2026-01-01T00:00:00Z' };
    const { body: unique, values } = uniquify(contract, schema, body, ['external_id', 'bank', 'when', 'absent']);
    expect(Object.keys(values)).toEqual(['external_id']);
    expect(unique.external_id).toMatch(/^[a-z0-9-]+$/);
    expect(unique.external_id).not.toBe('va-0001');
    expect({ ...unique, external_id: 'va-0001' }).toEqual(body);
  });
});

describe('which fields identify a request', () => {
  it('reads the duplicate-guarded fields from x-error-triggers', () => {
    for (const operation of contract.model.operations) {
      const declared = Object.values(operation.errorTriggers)
        .filter((t) => t.when === 'duplicate')
        .flatMap((t) => t.fields as string[]);
      expect(duplicateFields(operation.errorTriggers)).toEqual(declared);
    }
  });

  it('takes echoed *_id fields, not references to other objects', () => {
    const request = {
      type: 'object',
      properties: {
        external_id: { type: 'string' },
        payment_method_id: { type: 'string' },
        currency: { type: 'string' },
      },
    };
    const webhook = {
      type: 'object',
      properties: {
        external_id: { type: 'string' },
        payment_method_id: { type: 'string' },
        currency: { type: 'string' },
      },
    };
    const body = { external_id: 'a', payment_method_id: 'pm-1', currency: 'IDR' };
    expect(echoedIdentifiers(contract, request, webhook, body, ['payment_method_id'])).toEqual(['external_id']);
  });
});
