// Time per merchant and mode in the whole sandbox, driven only through the two contracts as partners'
// test suites would: one team moving its clock with the control API must not expire another team's
// accounts or OTPs, nor hurry another team's callback retries, and test and live mode keep separate time.
import { afterEach, describe, expect, it } from 'vitest';
import { codeOf, linkCard, paymentRequest, pendingToken } from '../direct-debit/testing.js';
import {
  createTestSandbox,
  TEST_MERCHANTS,
  type ReceivedCallback,
  type TestKeyName,
  type TestSandbox,
} from '../testing/index.js';

const START = Date.parse('2026-11-21T09:30:00.000Z');
const MINUTE = 60_000;
const KEYS: TestKeyName[] = ['aTest', 'aLive', 'bTest'];

let sandbox: TestSandbox;
afterEach(async () => {
  await sandbox.close();
});

/** Whose callback it is: the token names the merchant and the mode. */
function keyOf(callback: ReceivedCallback): TestKeyName {
  const token = callback.headers['x-callback-token'];
  if (token === TEST_MERCHANTS.a.callbackTokens.test) return 'aTest';
  if (token === TEST_MERCHANTS.a.callbackTokens.live) return 'aLive';
  if (token === TEST_MERCHANTS.b.callbackTokens.test) return 'bTest';
  throw new Error(`a callback with an unknown token: ${String(token)}`);
}
const attemptsBy = (key: TestKeyName): number => sandbox.callbacks.filter((callback) => keyOf(callback) === key).length;

async function advance(key: TestKeyName, milliseconds: number): Promise<void> {
  const moved = await sandbox.control(key).advanceClock({ body: { milliseconds } });
  if (!moved.ok) throw new Error(`advanceClock answered ${moved.status}`);
}

describe('time per merchant and mode', () => {
  it("expires only the advancing merchant's accounts and OTPs in that mode", async () => {
    sandbox = await createTestSandbox({ realTime: () => START });
    const expiring = { expiration_date: new Date(START + MINUTE).toISOString() };
    const accounts = await Promise.all(
      KEYS.map(async (key) => {
        const created = await sandbox.service(key).createFixedVirtualAccount({
          body: { external_id: 'order-0100', bank_code: 'BNI', name: 'Toko Sinar Jaya', ...expiring },
        });
        if (!created.ok) throw new Error(`createFixedVirtualAccount answered ${created.status}`);
        return created.data.id;
      }),
    );
    const tokens = await Promise.all(KEYS.map(async (key) => (await pendingToken(sandbox, key)).id));
    const payments = await Promise.all(
      KEYS.map(async (key, index) => {
        const { paymentMethodId } = await linkCard(sandbox, { key });
        const created = await sandbox.service(key).createDirectDebitPayment({
          idempotencyKey: `clock-${index}`,
          body: paymentRequest(paymentMethodId, { enable_otp: true }),
        });
        if (!created.ok) throw new Error(`createDirectDebitPayment answered ${created.status}`);
        return created.data.id;
      }),
    );

    // Past the account's expiry and the OTPs' 5 minutes, for merchant A in test mode only.
    await advance('aTest', 10 * MINUTE);

    const clocks = await Promise.all(KEYS.map((key) => sandbox.control(key).getClock()));
    expect(clocks.map((clock) => (clock.ok ? clock.data.offset_ms : clock.status))).toEqual([10 * MINUTE, 0, 0]);
    const statuses = await Promise.all(
      KEYS.map(async (key, index) => {
        const account = await sandbox.service(key).getFixedVirtualAccount({ path: { id: accounts[index]! } });
        return account.ok ? account.data.status : account.status;
      }),
    );
    expect(statuses).toEqual(['INACTIVE', 'ACTIVE', 'ACTIVE']);
    const linking = await Promise.all(
      KEYS.map(async (key, index) =>
        codeOf(
          await sandbox
            .service(key)
            .validateLinkedAccountTokenOtp({ path: { id: tokens[index]! }, body: { otp_code: '222000' } }),
        ),
      ),
    );
    expect(linking).toEqual(['EXPIRED_OTP_ERROR', 'status 200', 'status 200']);
    const paying = await Promise.all(
      KEYS.map(async (key, index) =>
        codeOf(
          await sandbox
            .service(key)
            .validateDirectDebitPaymentOtp({ path: { id: payments[index]! }, body: { otp_code: '222000' } }),
        ),
      ),
    );
    expect(paying).toEqual(['EXPIRED_OTP_ERROR', 'status 200', 'status 200']);
  });

  it('refuses, moving nothing, an advance past the latest time the contract allows, and every date it writes stays four-digit', async () => {
    sandbox = await createTestSandbox({ realTime: () => START });
    const hundredYears = 3_155_760_000_000;
    let answer = await sandbox.control('aTest').advanceClock({ body: { milliseconds: hundredYears } });
    let advances = 0;
    for (; answer.ok && advances < 200; advances++)
      answer = await sandbox.control('aTest').advanceClock({ body: { milliseconds: hundredYears } });
    // 2026 plus 78 centuries is 9827; the next would pass 9899-12-31T23:59:59.999Z (decision sandbox-clock-range).
    expect(advances).toBe(78);
    expect(answer.status).toBe(400);
    expect(answer.ok ? null : answer.error).toMatchObject({
      error_code: 'API_VALIDATION_ERROR',
      errors: [{ location: 'body', path: '/milliseconds', keyword: 'maximum' }],
    });
    const reached = START + advances * hundredYears;
    const clock = await sandbox.control('aTest').getClock();
    expect(clock.ok && clock.data.now).toBe(new Date(reached).toISOString());
    // A default expiry, 31 years on, still has a four-digit year; so does the rest of the way to the bound.
    const expiryAt = async (): Promise<string | number> => {
      const created = await sandbox
        .service('aTest')
        .createFixedVirtualAccount({ body: { external_id: 'order-0102', bank_code: 'BCA', name: 'Toko Sinar Jaya' } });
      return created.ok ? created.data.expiration_date : created.status;
    };
    expect(await expiryAt()).toMatch(/^9858-/);
    const rest = Date.parse('9899-12-31T23:59:59.999Z') - reached;
    expect((await sandbox.control('aTest').advanceClock({ body: { milliseconds: rest + 1 } })).status).toBe(400);
    const last = await sandbox.control('aTest').advanceClock({ body: { milliseconds: rest } });
    expect(last.ok && last.data.now).toBe('9899-12-31T23:59:59.999Z');
    expect(await expiryAt()).toBe('9930-12-31T23:59:59.999Z');
  });

  it("makes only the advancing merchant's callback retries in that mode due", async () => {
    sandbox = await createTestSandbox({
      realTime: () => START,
      callbackStatus: () => 503,
      config: { callbackRetryDelayMs: MINUTE },
    });
    for (const key of KEYS) {
      const created = await sandbox
        .service(key)
        .createFixedVirtualAccount({ body: { external_id: 'order-0101', bank_code: 'BCA', name: 'Toko Sinar Jaya' } });
      if (!created.ok) throw new Error(`createFixedVirtualAccount answered ${created.status}`);
    }
    await sandbox.waitForCallbacks(KEYS.length);
    const pendingOf = async (key: TestKeyName) => {
      const listed = await sandbox.control(key).listCallbackDeliveries({ query: { state: 'pending' } });
      if (!listed.ok || listed.data.length !== 1) throw new Error(`expected one pending delivery for ${key}`);
      return listed.data[0]!;
    };
    // The first attempts' outcomes are stored once every scope's delivery waits for its retry.
    await expect
      .poll(async () => (await Promise.all(KEYS.map(pendingOf))).map((delivery) => delivery.attempts.length))
      .toEqual([1, 1, 1]);
    const waiting = await Promise.all(KEYS.map(pendingOf));
    // The retry is due a minute after the first attempt ended; real time stands still here, so the
    // attempt's own duration has to pass in sandbox time too.
    const pastRetry = MINUTE + 1000;

    await advance('aTest', pastRetry);
    expect(KEYS.map(attemptsBy)).toEqual([2, 1, 1]);
    await sandbox.app.platform.dispatcher.runDue();
    expect(KEYS.map(attemptsBy)).toEqual([2, 1, 1]);
    // The others' next attempts are still where their own clocks put them.
    expect((await Promise.all(KEYS.slice(1).map(pendingOf))).map((delivery) => delivery.next_attempt_at)).toEqual(
      waiting.slice(1).map((delivery) => delivery.next_attempt_at),
    );

    await advance('bTest', pastRetry);
    expect(KEYS.map(attemptsBy)).toEqual([2, 1, 2]);
    await advance('aLive', pastRetry);
    expect(KEYS.map(attemptsBy)).toEqual([2, 2, 2]);
  });
});
