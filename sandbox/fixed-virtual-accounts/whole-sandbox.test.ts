// The money-in modules inside the real sandbox (app.ts: the platform's settings, ledger, outbox, dispatcher
// and clock), driven only through the typed clients of the two contracts: what a merchant's integration test
// would do. The module tests beside this file cover every rule; these check the pieces fit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, TEST_MERCHANTS, type TestSandbox } from '../testing/index.js';

let sandbox: TestSandbox;
beforeEach(async () => {
  sandbox = await createTestSandbox();
});
afterEach(async () => {
  await sandbox.close();
});

const token = TEST_MERCHANTS.a.callbackTokens.test;
async function cash(account: 'CASH' | 'HOLDING' = 'CASH'): Promise<number> {
  const answer = await sandbox.service().getBalance({ query: { account_type: account } });
  if (!answer.ok) throw new Error(`getBalance answered ${answer.status}`);
  return answer.data.balance;
}

describe('fixed virtual accounts in the whole sandbox', () => {
  it('delivers the changed and paid callbacks with the token, records the payment and credits CASH', async () => {
    const before = await cash();
    const created = await sandbox
      .service()
      .createFixedVirtualAccount({ body: { external_id: 'order-0042', bank_code: 'BCA', name: 'Toko Sinar Jaya' } });
    if (!created.ok) throw new Error(`createFixedVirtualAccount answered ${created.status}`);
    expect(created.data).toMatchObject({ status: 'ACTIVE', bank_code: 'BCA' });
    const changed = await sandbox.waitForCallback(
      (callback) => (callback.body as { id?: string }).id === created.data.id,
    );
    expect(changed.headers['x-callback-token']).toBe(token);
    expect(changed.body).toEqual(created.data);

    const paid = await sandbox
      .control()
      .simulateFixedVirtualAccountPayment({ path: { id: created.data.id }, body: { amount: 250000 } });
    if (!paid.ok) throw new Error(`simulateFixedVirtualAccountPayment answered ${paid.status}`);
    const callback = await sandbox.waitForCallback(
      (c) => (c.body as { payment_id?: string }).payment_id === paid.data.payment_id,
    );
    expect(callback.headers['x-callback-token']).toBe(token);
    expect(callback.body).toMatchObject({
      amount: 250000,
      callback_virtual_account_id: created.data.id,
      account_number: created.data.account_number.slice(created.data.merchant_code.length),
    });
    expect(
      await sandbox.service().getFixedVirtualAccountPayment({ path: { payment_id: paid.data.payment_id } }),
    ).toMatchObject({ ok: true, data: paid.data });
    expect(await cash()).toBe(before + 250000);
  });

  it('expires an account when the control API advances the clock past its expiry', async () => {
    const info = await sandbox.control().getSandbox();
    if (!info.ok) throw new Error(`getSandbox answered ${info.status}`);
    const now = Date.parse(info.data.now);
    const created = await sandbox.service().createFixedVirtualAccount({
      body: {
        external_id: 'order-0043',
        bank_code: 'BNI',
        name: 'Toko Sinar Jaya',
        expiration_date: new Date(now + 60_000).toISOString(),
      },
    });
    if (!created.ok) throw new Error(`createFixedVirtualAccount answered ${created.status}`);
    expect((await sandbox.control().advanceClock({ body: { milliseconds: 120_000 } })).ok).toBe(true);
    expect(await sandbox.service().getFixedVirtualAccount({ path: { id: created.data.id } })).toMatchObject({
      ok: true,
      data: { status: 'INACTIVE' },
    });
    expect(
      await sandbox
        .control()
        .simulateFixedVirtualAccountPayment({ path: { id: created.data.id }, body: { amount: 1000 } }),
    ).toMatchObject({ ok: false, status: 409 });
    expect(
      await sandbox
        .service()
        .updateFixedVirtualAccount({ path: { id: created.data.id }, body: { is_single_use: true } }),
    ).toMatchObject({ ok: false, status: 400, error: { error_code: 'INACTIVE_VIRTUAL_ACCOUNT_ERROR' } });
  });
});

describe('fixed payment codes in the whole sandbox', () => {
  it('credits HOLDING for a SETTLING payment and CASH for a COMPLETED one, each with its callback', async () => {
    const [cashBefore, holdingBefore] = [await cash('CASH'), await cash('HOLDING')];
    const created = await sandbox.service().createFixedPaymentCode({
      body: {
        external_id: 'fpc-0007',
        retail_outlet_name: 'ALFAMART',
        name: 'Dewi Lestari',
        expected_amount: 125000,
      },
    });
    if (!created.ok) throw new Error(`createFixedPaymentCode answered ${created.status}`);
    const settling = await sandbox
      .control()
      .simulateFixedPaymentCodePayment({ path: { id: created.data.id }, body: { status: 'SETTLING' } });
    const completed = await sandbox.control().simulateFixedPaymentCodePayment({ path: { id: created.data.id } });
    if (!settling.ok || !completed.ok) throw new Error('simulateFixedPaymentCodePayment failed');
    const callbacks = await Promise.all(
      [settling, completed].map((payment) =>
        sandbox.waitForCallback((c) => (c.body as { id?: string }).id === payment.data.id),
      ),
    );
    expect(callbacks.map((c) => c.body)).toEqual([settling.data, completed.data]);
    expect(callbacks.every((c) => c.headers['x-callback-token'] === token)).toBe(true);
    expect([await cash('CASH'), await cash('HOLDING')]).toEqual([cashBefore + 125000, holdingBefore + 125000]);
    // A payment code's creation sends no callback: only the two payments arrived.
    expect(sandbox.callbacks).toHaveLength(2);
  });
});
