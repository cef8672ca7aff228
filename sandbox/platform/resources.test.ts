// listResources: the newest resources of one kind of the key's merchant and mode, as the service shows
// them, with their state in the kind's state machine; unknown kinds and limits out of range are answered
// with a JSON validation error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../testing/index.js';

let sandbox: TestSandbox;
beforeEach(async () => {
  sandbox = await createTestSandbox({ startDispatcher: false });
});
afterEach(() => sandbox.close());

const disbursement = (n: number) => ({
  external_id: `payout-${n}`,
  bank_code: 'BCA',
  account_holder_name: 'Siti Rahmawati',
  account_number: '1234567890',
  description: `Komisi ${n}`,
  amount: 10000 + n,
});
const createDisbursement = async (n: number): Promise<string> => {
  const answer = await sandbox.request('POST', '/disbursements', { body: disbursement(n) });
  expect(answer.status).toBe(200);
  return String((answer.body as { id: string }).id);
};
const list = (kind: string, query = '', key?: 'aTest' | 'bTest' | 'aLive') =>
  sandbox.request('GET', `/sandbox/resources/${kind}${query}`, key ? { key } : {});

describe('listResources', () => {
  it('lists nothing for a merchant without resources, naming the kind and its state machine', async () => {
    expect(await list('disbursements')).toMatchObject({
      status: 200,
      body: { kind: 'disbursements', machine: 'disbursement', data: [] },
    });
    expect(await list('customers')).toMatchObject({
      status: 200,
      body: { kind: 'customers', machine: null, data: [] },
    });
  });

  it('lists disbursements newest first, as getDisbursement shows them, with their state', async () => {
    const first = await createDisbursement(1);
    const second = await createDisbursement(2);
    await sandbox.request('POST', `/sandbox/disbursements/${first}/fail`, {
      body: { failure_code: 'INVALID_DESTINATION' },
    });
    const answer = await list('disbursements');
    expect(answer.status).toBe(200);
    const shown = (await sandbox.request('GET', `/disbursements/${first}`)).body;
    expect(answer.body).toMatchObject({
      data: [
        { id: second, state: 'PENDING', resource: { id: second, external_id: 'payout-2', status: 'PENDING' } },
        { id: first, state: 'FAILED', resource: shown },
      ],
    });
  });

  it('keeps to the limit, newest first', async () => {
    await createDisbursement(1);
    const newest = await createDisbursement(2);
    const answer = await list('disbursements', '?limit=1');
    expect(answer.body).toMatchObject({ data: [{ id: newest }] });
    expect((answer.body as { data: unknown[] }).data).toHaveLength(1);
  });

  it("shows only the key's merchant and mode", async () => {
    await createDisbursement(1);
    expect(await list('disbursements', '', 'bTest')).toMatchObject({ status: 200, body: { data: [] } });
    expect(await list('disbursements', '', 'aLive')).toMatchObject({ status: 200, body: { data: [] } });
  });

  it('computes states that depend on the clock: an account past its expiry is INACTIVE', async () => {
    const created = await sandbox.request('POST', '/callback_virtual_accounts', {
      body: {
        external_id: 'va-1',
        bank_code: 'BNI',
        name: 'Toko Sinar Jaya',
        expiration_date: new Date(Date.now() + 60_000).toISOString(),
      },
    });
    expect(created.status).toBe(200);
    expect(await list('fixed_virtual_accounts')).toMatchObject({
      body: { machine: 'fixedVirtualAccount', data: [{ state: 'ACTIVE', resource: { status: 'ACTIVE' } }] },
    });
    await sandbox.advance(120_000);
    expect(await list('fixed_virtual_accounts')).toMatchObject({
      body: { data: [{ state: 'INACTIVE', resource: { status: 'INACTIVE' } }] },
    });
  });

  it('shows an e-wallet payment as its callback would, with its state', async () => {
    await sandbox.request('PATCH', '/sandbox/settings', { body: { ewallet_auto_resolve: false } });
    expect(
      (
        await sandbox.request('POST', '/ewallets', {
          body: { external_id: 'order-1', amount: 125000, phone: '081234567890', ewallet_type: 'OVO' },
        })
      ).status,
    ).toBe(200);
    const answer = await list('ewallet_payments');
    expect(answer).toMatchObject({
      status: 200,
      body: {
        machine: 'ewalletPayment',
        data: [
          {
            state: 'PENDING',
            resource: { external_id: 'order-1', ewallet_type: 'OVO', amount: 125000, status: 'PENDING' },
          },
        ],
      },
    });
  });

  it.each([
    ['an unknown kind', '/sandbox/resources/widgets'],
    ['a limit of 0', '/sandbox/resources/disbursements?limit=0'],
    ['a limit above 200', '/sandbox/resources/disbursements?limit=201'],
    ['a limit that is not a number', '/sandbox/resources/disbursements?limit=ten'],
  ])('answers %s with a JSON API_VALIDATION_ERROR', async (_case, path) => {
    const answer = await sandbox.request('GET', path);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toMatchObject({
      error_code: 'API_VALIDATION_ERROR',
      errors: [expect.objectContaining({ location: expect.any(String) })],
    });
  });

  it('answers a path without a kind with a JSON 404, and no key with a JSON 401', async () => {
    const withoutKind = await sandbox.request('GET', '/sandbox/resources');
    expect(withoutKind.status).toBe(404);
    expect(withoutKind.body).toMatchObject({ error_code: expect.any(String) });
    expect(await sandbox.request('GET', '/sandbox/resources/disbursements', { key: null })).toMatchObject({
      status: 401,
      body: { error_code: expect.any(String) },
    });
  });
});
