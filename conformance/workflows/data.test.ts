import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import {
  getPath,
  identifierFields,
  setPath,
  unknownIdentifier,
  UniqueValues,
  uniquify,
  withFutureTime,
} from './data.js';

const contract = loadContract();

describe('unique values', () => {
  const unique = new UniqueValues(contract);
  it.each([
    ['a plain string', { type: 'string' }, 'order-1'],
    ['a short maximum', { type: 'string', maxLength: 6 }, 'order-1'],
    ['letters, digits and hyphens only', { type: 'string', pattern: '^[A-Za-z0-9]+$' }, 'order1'],
    ['a required prefix', { type: 'string', pattern: '^la-' }, 'la-1234'],
  ])('fits %s', (_name, schema, original) => {
    const value = unique.next(schema, original);
    expect(value).not.toBe(original);
    expect(contract.validate(schema, value)).toEqual([]);
    expect(unique.next(schema, original)).not.toBe(value);
  });

  it('keeps a value no candidate can replace (an enum)', () => {
    expect(unique.next({ enum: ['OVO'] }, 'OVO')).toBe('OVO');
  });

  it('tells the values it made from those it kept', () => {
    expect(unique.made(unique.next({ type: 'string' }, 'order-1'))).toBe(true);
    expect(unique.made(unique.next({ enum: ['OVO'] }, 'OVO'))).toBe(false);
    expect(unique.made(new UniqueValues(contract).next({ type: 'string' }, 'order-1'))).toBe(false);
    expect(unique.made(undefined)).toBe(false);
  });

  it('makes the fields a duplicate rule or a lookup uses unique', () => {
    expect(identifierFields(contract, contract.operation('createEwalletPayment')).sort()).toEqual([
      'ewallet_type',
      'external_id',
    ]);
    expect(identifierFields(contract, contract.operation('createDirectDebitPayment'))).toEqual(['reference_id']);
    const body = { external_id: 'order-1', amount: 1, phone: '081234567890', ewallet_type: 'OVO' };
    const fresh = uniquify(contract, contract.operation('createEwalletPayment'), body, unique);
    expect(getPath(fresh, 'external_id')).not.toBe('order-1');
    expect(getPath(fresh, 'ewallet_type')).toBe('OVO');
  });
});

describe('request data', () => {
  it('sets and reads dotted paths without changing the original', () => {
    const original = { properties: { id: 'la-1', other: true } };
    const changed = setPath(original, 'properties.id', 'la-2');
    expect(getPath(changed, 'properties.id')).toBe('la-2');
    expect(getPath(changed, 'properties.other')).toBe(true);
    expect(original.properties.id).toBe('la-1');
  });

  it('moves an expiry into the future only where the schema says date-time', () => {
    const operation = contract.operation('updateFixedVirtualAccount');
    const moved = withFutureTime(contract, operation, { expiration_date: '2000-01-01T00:00:00Z' }, 'expiration_date');
    expect(Date.parse(String(getPath(moved, 'expiration_date')))).toBeGreaterThan(Date.now());
  });

  it.each([
    [{ type: 'string', pattern: '^lat-' }, 'lat-a08fba1b-100c-445b-b788-aaeaf8215e8f'],
    [{ type: 'string', pattern: '^ddpy-' }, 'ddpy-623dca10-5dad-4916-b14d-81aaa76b5d14'],
    [{ type: 'string', minLength: 1 }, '5f6ee8de3a733c1d2e1a1b2c'],
  ])('makes an unknown identifier valid against %j', (schema, example) => {
    const value = unknownIdentifier(contract, schema, example);
    expect(value).not.toBe(example);
    expect(contract.validate(schema, value)).toEqual([]);
  });
});
