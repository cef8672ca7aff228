import { describe, expect, it } from 'vitest';
import { asObject, scopeOf, useBench } from '../disbursements/testing.js';
import { findCustomer } from './customers.js';
import { listLimit } from '../contract.js';

const individual = {
  external_id: 'cust-000123',
  customer_type: 'INDIVIDUAL',
  given_name: 'Budi',
  surname: 'Santoso',
  date_of_birth: '1990-04-17',
  email: 'budi.santoso@example.co.id',
  mobile_number: '+6281234567890',
  address: { country_code: 'ID', city: 'Jakarta Selatan', line_1: 'Jl. Senopati No. 45' },
  identification: { ktp_number: '3171021704900003', passport_number: 'X1234567', country: 'ID' },
};
const business = {
  external_id: 'cust-biz-0042',
  customer_type: 'BUSINESS',
  business_name: 'PT Toko Berkah Abadi',
  identification: { business_tax_id: '012345678901000', business_tax_id_country: 'ID' },
};

type Json = Record<string, unknown>;

const bench = useBench();

const create = async (body: unknown, key: 'aTest' | 'aLive' | 'bTest' = 'aTest') =>
  bench.call('POST', '/customers', { key, body });
const createdId = async (body: unknown): Promise<string> => {
  const answer = await create(body);
  expect(answer.status).toBe(200);
  return String(asObject(answer.json).id);
};
const update = (id: string, body: unknown) => bench.call('PUT', `/customers/${id}`, { body });

describe('createCustomer', () => {
  it('stores the customer with an id and timestamps, leaving out fields the contract does not declare', async () => {
    const answer = await create({
      ...individual,
      loyalty_tier: 'gold',
      address: { ...individual.address, floor: '3' },
      identification: { ...individual.identification, tax_office: 'X' },
    });
    expect(answer.status).toBe(200);
    const customer = asObject(answer.json);
    expect(customer).toEqual({
      ...individual,
      id: customer.id,
      created: '2026-11-21T09:30:00.000Z',
      updated: '2026-11-21T09:30:00.000Z',
    });
    expect(String(customer.id)).toMatch(/^[0-9a-f]{24}$/);
    expect(await bench.ctx.store.transaction((tx) => findCustomer(tx, scopeOf('aTest'), String(customer.id)))).toEqual(
      customer,
    );
    expect(
      await bench.ctx.store.transaction((tx) => findCustomer(tx, scopeOf('bTest'), String(customer.id))),
    ).toBeUndefined();
  });

  it('answers DUPLICATE_CUSTOMER_ERROR to an external_id the merchant used in this mode, and only then', async () => {
    await createdId(individual);
    expect(await create({ ...business, external_id: individual.external_id })).toMatchObject({
      status: 400,
      json: { error_code: 'DUPLICATE_CUSTOMER_ERROR' },
    });
    expect((await create(individual, 'bTest')).status).toBe(200);
    expect((await create(individual, 'aLive')).status).toBe(200);
  });

  it('answers API_VALIDATION_ERROR to a field the type does not allow, and INVALID_JSON_FORMAT to a broken body', async () => {
    expect(await create({ ...individual, business_name: 'PT Budi' })).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR', errors: [{ path: '/business_name' }] },
    });
    expect(await create({ ...business, identification: { ktp_number: '3171021704900003' } })).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(await create('{"external_id"')).toMatchObject({ status: 400, json: { error_code: 'INVALID_JSON_FORMAT' } });
    expect((await bench.call('GET', '/customers')).json).toEqual([]);
  });
});

describe('updateCustomer', () => {
  it('changes the fields sent, keeps the others, replaces objects as a whole and moves updated', async () => {
    const id = await createdId(individual);
    await bench.advance(60_000);
    const answer = await update(id, {
      email: 'budi.s@example.co.id',
      address: { country_code: 'ID', city: 'Surabaya' },
      unknown_field: 1,
    });
    expect(answer).toEqual({
      status: 200,
      json: {
        ...individual,
        id,
        email: 'budi.s@example.co.id',
        address: { country_code: 'ID', city: 'Surabaya' },
        created: '2026-11-21T09:30:00.000Z',
        updated: '2026-11-21T09:31:00.000Z',
      },
    });
    expect((await bench.call('GET', `/customers?external_id=${individual.external_id}`)).json).toEqual([answer.json]);
  });

  it("answers CUSTOMER_NOT_FOUND_ERROR (400) for an unknown id and for another merchant's customer", async () => {
    const id = await createdId(individual);
    expect(await update('5f6ee8de3a733c1d2e1a1c99', { email: 'x@example.co.id' })).toMatchObject({
      status: 400,
      json: { error_code: 'CUSTOMER_NOT_FOUND_ERROR' },
    });
    expect(
      await bench.call('PUT', `/customers/${id}`, { key: 'bTest', body: { email: 'x@example.co.id' } }),
    ).toMatchObject({ status: 400, json: { error_code: 'CUSTOMER_NOT_FOUND_ERROR' } });
  });

  it('judges the type rules against the stored type when the body has none (API_VALIDATION_ERROR with errors)', async () => {
    const id = await createdId(individual);
    const answer = await update(id, { business_name: 'PT Budi', date_of_registration: '2015-08-03' });
    expect(answer).toMatchObject({ status: 400, json: { error_code: 'API_VALIDATION_ERROR' } });
    expect((asObject(answer.json).errors as Json[]).map((issue) => issue.path).sort()).toEqual([
      '/business_name',
      '/date_of_registration',
    ]);
    expect(
      await update(id, { identification: { business_tax_id: '012345678901000', business_tax_id_country: 'ID' } }),
    ).toMatchObject({ status: 400, json: { error_code: 'API_VALIDATION_ERROR' } });
    const [stored] = (await bench.call('GET', '/customers')).json as Json[];
    expect(stored).toMatchObject({ given_name: 'Budi' });
    expect(stored).not.toHaveProperty('business_name');
  });

  it('needs the new name field to change the type, then drops what only the old type allows', async () => {
    const id = await createdId(individual);
    expect(await update(id, { customer_type: 'BUSINESS' })).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR', errors: [{ path: '/business_name', keyword: 'required' }] },
    });
    const answer = await update(id, { customer_type: 'BUSINESS', business_name: 'PT Budi Santoso' });
    expect(answer.status).toBe(200);
    const customer = asObject(answer.json);
    expect(customer).toMatchObject({
      customer_type: 'BUSINESS',
      business_name: 'PT Budi Santoso',
      email: individual.email,
      address: individual.address,
    });
    for (const gone of ['given_name', 'surname', 'date_of_birth', 'identification'])
      expect(customer).not.toHaveProperty(gone);
  });

  it("drops identification fields the new type does not allow; the body's identification replaces the stored one", async () => {
    const id = await createdId(business);
    const answer = await update(id, { customer_type: 'INDIVIDUAL', given_name: 'Agus' });
    expect(answer.status).toBe(200);
    expect(answer.json).not.toHaveProperty('identification');
    expect(answer.json).not.toHaveProperty('business_name');
    const mixed = await createdId({ ...individual, external_id: 'cust-mixed' });
    const changed = await update(mixed, {
      customer_type: 'BUSINESS',
      business_name: 'PT Mixed',
      identification: { business_tax_id: '012345678901000', business_tax_id_country: 'ID' },
    });
    expect(changed).toMatchObject({
      status: 200,
      json: { identification: { business_tax_id: '012345678901000', business_tax_id_country: 'ID' } },
    });
  });

  it('answers DUPLICATE_CUSTOMER_ERROR when the new external_id belongs to another customer, and accepts its own', async () => {
    const id = await createdId(individual);
    await createdId(business);
    expect(await update(id, { external_id: business.external_id })).toMatchObject({
      status: 400,
      json: { error_code: 'DUPLICATE_CUSTOMER_ERROR' },
    });
    expect((await update(id, { external_id: individual.external_id })).status).toBe(200);
    expect((await update(id, { external_id: 'cust-000999' })).json).toMatchObject({ external_id: 'cust-000999' });
    expect((await bench.call('GET', `/customers?external_id=${individual.external_id}`)).json).toEqual([]);
  });

  it('answers API_VALIDATION_ERROR to a field that breaks its own schema, and INVALID_JSON_FORMAT to a broken body', async () => {
    const id = await createdId(individual);
    expect(await update(id, { mobile_number: '081311112222' })).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(await update(id, '{')).toMatchObject({ status: 400, json: { error_code: 'INVALID_JSON_FORMAT' } });
  });
});

describe('listCustomers', () => {
  it('finds one customer by external_id, none for an unknown one, and all newest first without a filter', async () => {
    const first = await createdId(individual);
    await bench.advance(1000);
    const second = await createdId(business);
    expect((await bench.call('GET', `/customers?external_id=${business.external_id}`)).json).toMatchObject([
      { id: second },
    ]);
    expect(await bench.call('GET', '/customers?external_id=cust-none')).toEqual({ status: 200, json: [] });
    expect(((await bench.call('GET', '/customers')).json as Json[]).map((customer) => customer.id)).toEqual([
      second,
      first,
    ]);
    expect(await bench.call('GET', '/customers', { key: 'bTest' })).toEqual({ status: 200, json: [] });
  });

  it('lists the newest ones, as many as the contract allows (maxItems), when a merchant has more', async () => {
    const limit = listLimit('listCustomers');
    // A thousand creations in a moment run past the write limit; the lists' bound is what is tested here.
    await bench.settings({ rate_limits_enabled: false });
    for (let i = 0; i <= limit; i++) await createdId({ ...individual, external_id: `cust-many-${i}` });
    const listed = (await bench.call('GET', '/customers')).json as Json[];
    expect(listed).toHaveLength(limit);
    expect(listed.map((customer) => customer.external_id)).not.toContain('cust-many-0');
  }, 120_000);

  it('answers API_VALIDATION_ERROR to an external_id longer than 100 characters', async () => {
    expect(await bench.call('GET', `/customers?external_id=${'x'.repeat(101)}`)).toMatchObject({
      status: 400,
      json: { error_code: 'API_VALIDATION_ERROR' },
    });
  });
});
