// A direct debit payment gets the bank's outcome by itself (auto-resolve): the delay after its OTP was accepted
// (or after creation without OTP), COMPLETED, or FAILED with the failure code its amount selects in the
// control contract's test mode; with `direct_debit_auto_resolve` off, the control API decides, as it can
// while the payment is PENDING either way.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxTestMode } from '../contract.js';
import { scopeOf, type TestKeyName, type TestSandbox } from '../testing/index.js';
import { CALLBACK_URL, cash, closeSandbox, codeOf, linkCard, openSandbox, paymentRequest } from './testing.js';

const testMode = sandboxTestMode('createDirectDebitPayment');

let sandbox: TestSandbox;
let delay: number;
beforeEach(async () => {
  sandbox = await openSandbox();
  delay = sandbox.app.platform.autoResolve.delayMs;
});
afterEach(() => closeSandbox(sandbox));

let keys = 0;
async function createPayment(overrides: Parameters<typeof paymentRequest>[1] = {}, key: TestKeyName = 'aTest') {
  const { paymentMethodId } = await linkCard(sandbox, { key });
  const result = await sandbox
    .service(key)
    .createDirectDebitPayment({ idempotencyKey: `auto-${++keys}`, body: paymentRequest(paymentMethodId, overrides) });
  if (!result.ok) throw new Error(`creation refused: ${result.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

async function statusOf(id: string, key: TestKeyName = 'aTest') {
  const result = await sandbox.service(key).getDirectDebitPayment({ path: { id } });
  if (!result.ok) throw new Error(`lookup refused: ${result.status}`);
  return { status: result.data.status, failure_code: result.data.failure_code };
}

/** The direct debit callbacks the receiver got for a payment. */
const callbacksOf = (id: string) =>
  sandbox.callbacks.filter((c) => c.url === CALLBACK_URL && (c.body as { id?: string }).id === id).map((c) => c.body);

describe('auto-resolve (direct_debit_auto_resolve on, the default)', () => {
  it('completes a payment without OTP once the delay has passed: COMPLETED, CASH credited, callback delivered', async () => {
    expect(
      (await sandbox.control().getSettings()).ok &&
        (await sandbox.ctx.settings.get(scopeOf('aTest'))).direct_debit_auto_resolve,
    ).toBe(true);
    const payment = await createPayment({ amount: 125000 });
    const before = await cash(sandbox);
    await sandbox.advance(delay - 1);
    expect(await statusOf(payment.id)).toEqual({ status: 'PENDING', failure_code: null });
    expect(callbacksOf(payment.id)).toEqual([]);
    await sandbox.advance(1);
    expect(await statusOf(payment.id)).toEqual({ status: 'COMPLETED', failure_code: null });
    expect((await cash(sandbox)) - before).toBe(125000);
    expect(callbacksOf(payment.id)).toEqual([
      expect.objectContaining({
        event: 'direct_debit.payment',
        status: 'COMPLETED',
        failure_code: null,
        amount: 125000,
      }),
    ]);
  });

  it('counts from the accepted OTP, not from creation, when the payment needs one', async () => {
    const payment = await createPayment({ enable_otp: true });
    await sandbox.advance(2 * delay);
    expect(await statusOf(payment.id)).toEqual({ status: 'PENDING', failure_code: null });
    expect(
      (
        await sandbox
          .service()
          .validateDirectDebitPaymentOtp({ path: { id: payment.id }, body: { otp_code: '222000' } })
      ).status,
    ).toBe(200);
    await sandbox.advance(delay - 1);
    expect((await statusOf(payment.id)).status).toBe('PENDING');
    await sandbox.advance(1);
    expect((await statusOf(payment.id)).status).toBe('COMPLETED');
  });

  it.each(testMode.outcomes.map((o) => [o.value, o.failureCode] as const))(
    'fails a payment of amount %s with %s: CASH unchanged, callback carrying the code',
    async (amount, failureCode) => {
      const payment = await createPayment({ amount: Number(amount) });
      const before = await cash(sandbox);
      await sandbox.advance(delay);
      expect(await statusOf(payment.id)).toEqual({ status: 'FAILED', failure_code: failureCode });
      expect(await cash(sandbox)).toBe(before);
      expect(callbacksOf(payment.id)).toEqual([
        expect.objectContaining({ status: 'FAILED', failure_code: failureCode }),
      ]);
    },
  );

  it('completes with a live key whatever the amount (the test values are test mode)', async () => {
    const [listed] = testMode.outcomes;
    const payment = await createPayment({ amount: Number(listed?.value) }, 'aLive');
    await sandbox.advance(delay, 'aLive');
    expect((await statusOf(payment.id, 'aLive')).status).toBe('COMPLETED');
  });

  it('moves only with its own merchant and mode: another clock advancing brings nothing', async () => {
    const payment = await createPayment();
    await sandbox.advance(delay, 'bTest');
    await sandbox.advance(delay, 'aLive');
    expect((await statusOf(payment.id)).status).toBe('PENDING');
  });

  it('lets the control API decide first; the time coming then changes nothing, and the control API answers 409', async () => {
    const payment = await createPayment();
    expect(
      (
        await sandbox
          .control()
          .failDirectDebitPayment({ path: { id: payment.id }, body: { failure_code: 'CHANNEL_UNAVAILABLE' } })
      ).status,
    ).toBe(200);
    await sandbox.advance(delay);
    expect(await statusOf(payment.id)).toEqual({ status: 'FAILED', failure_code: 'CHANNEL_UNAVAILABLE' });
    expect(callbacksOf(payment.id)).toHaveLength(1);
    expect(codeOf(await sandbox.control().completeDirectDebitPayment({ path: { id: payment.id } }))).toBe(
      'SANDBOX_STATE_CONFLICT',
    );
  });

  it('answers the control API 409 once the payment has finished by itself', async () => {
    const payment = await createPayment();
    await sandbox.advance(delay);
    expect(
      codeOf(
        await sandbox
          .control()
          .failDirectDebitPayment({ path: { id: payment.id }, body: { failure_code: 'INSUFFICIENT_BALANCE' } }),
      ),
    ).toBe('SANDBOX_STATE_CONFLICT');
  });
});

describe('manual control (direct_debit_auto_resolve off)', () => {
  it('keeps the payment PENDING for the control API, which completes it', async () => {
    expect((await sandbox.control().updateSettings({ body: { direct_debit_auto_resolve: false } })).ok).toBe(true);
    const payment = await createPayment({ amount: Number(testMode.outcomes[0]?.value) });
    await sandbox.advance(10 * delay);
    expect((await statusOf(payment.id)).status).toBe('PENDING');
    expect(callbacksOf(payment.id)).toEqual([]);
    expect((await sandbox.control().completeDirectDebitPayment({ path: { id: payment.id } })).status).toBe(200);
    expect((await statusOf(payment.id)).status).toBe('COMPLETED');
  });

  it('keeps a payment whose countdown had started PENDING when the setting is turned off before its time', async () => {
    const payment = await createPayment();
    await sandbox.advance(delay - 1);
    expect((await sandbox.control().updateSettings({ body: { direct_debit_auto_resolve: false } })).ok).toBe(true);
    await sandbox.advance(delay);
    expect((await statusOf(payment.id)).status).toBe('PENDING');
    expect(
      (
        await sandbox
          .control()
          .failDirectDebitPayment({ path: { id: payment.id }, body: { failure_code: 'ACCOUNT_ACCESS_BLOCKED' } })
      ).status,
    ).toBe(200);
  });
});
