import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scopeOf, type TestKeyName, type TestSandbox } from '../testing/index.js';
import { contract } from './contract.js';
import { OTP_LIFETIME_MS } from './otp.js';
import { COLLECTIONS } from './records.js';
import {
  closeSandbox,
  codeOf,
  createCustomer,
  linkCard,
  openSandbox,
  paymentRequest,
  pendingToken,
  START,
  tokenRequest,
} from './testing.js';

let sandbox: TestSandbox;
beforeEach(async () => void (sandbox = await openSandbox()));
afterEach(() => closeSandbox(sandbox));

describe('initializeLinkedAccountTokenization', () => {
  it('creates a PENDING token for an existing customer, authorized by OTP (no authorizer_url)', async () => {
    const customerId = await createCustomer(sandbox);
    const result = await sandbox.service().initializeLinkedAccountTokenization({ body: tokenRequest(customerId) });
    if (!result.ok) return expect.fail(`expected 200, got ${result.status}`);
    expect(result.data).toMatchObject({
      customer_id: customerId,
      channel_code: 'DC_BRI',
      authorizer_url: null,
      status: 'PENDING',
      metadata: { crm_member_id: 'MBR-20418' },
    });
    expect(result.data.id).toMatch(/^lat-/);
  });

  it('answers CUSTOMER_NOT_FOUND_ERROR for an unknown customer, and for one of another merchant or mode', async () => {
    for (const owner of ['bTest', 'aLive'] as const) {
      const result = await sandbox
        .service('aTest')
        .initializeLinkedAccountTokenization({ body: tokenRequest(await createCustomer(sandbox, owner)) });
      expect(result.status).toBe(400);
      expect(codeOf(result)).toBe('CUSTOMER_NOT_FOUND_ERROR');
    }
    expect(
      codeOf(
        await sandbox.service().initializeLinkedAccountTokenization({ body: tokenRequest('5f6ee8de3a733c1d2e1a9f00') }),
      ),
    ).toBe('CUSTOMER_NOT_FOUND_ERROR');
  });

  it("answers 503 CHANNEL_UNAVAILABLE for the contract's test-mode card value and creates nothing", async () => {
    expect(contract.channelUnavailable.field).toBe('properties.card_last_four');
    const customerId = await createCustomer(sandbox);
    const result = await sandbox.service().initializeLinkedAccountTokenization({
      body: tokenRequest(customerId, { last_four: String(contract.channelUnavailable.value) }),
    });
    expect(result.status).toBe(503);
    expect(codeOf(result)).toBe('CHANNEL_UNAVAILABLE');
    expect(await sandbox.ctx.store.list(COLLECTIONS.tokens, scopeOf('aTest'))).toEqual([]);
  });

  it('leaves channel and card rules to the schema: CHANNEL_CODE_NOT_SUPPORTED_ERROR, API_VALIDATION_ERROR, INVALID_JSON_FORMAT', async () => {
    const customerId = await createCustomer(sandbox);
    const otherChannel = await sandbox.request('POST', '/linked_account_tokens/auth', {
      body: { ...tokenRequest(customerId), channel_code: 'DC_MANDIRI' },
    });
    expect(otherChannel).toMatchObject({ status: 400, body: { error_code: 'CHANNEL_CODE_NOT_SUPPORTED_ERROR' } });
    const { properties: _dropped, ...withoutCard } = tokenRequest(customerId);
    expect(await sandbox.request('POST', '/linked_account_tokens/auth', { body: withoutCard })).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR' },
    });
    expect(await sandbox.request('POST', '/linked_account_tokens/auth', { body: '{"customer_id":' })).toMatchObject({
      status: 400,
      body: { error_code: 'INVALID_JSON_FORMAT' },
    });
  });
});

describe('validateLinkedAccountTokenOtp', () => {
  const validate = (id: string, otp_code: string, key: TestKeyName = 'aTest') =>
    sandbox.service(key).validateLinkedAccountTokenOtp({ path: { id }, body: { otp_code } });

  it('accepts 222000: SUCCESS, then 409 ACCOUNT_LINKING_ALREADY_COMPLETED', async () => {
    const token = await pendingToken(sandbox);
    const accepted = await validate(token.id, '222000');
    expect(accepted.ok && accepted.data).toEqual({
      id: token.id,
      customer_id: token.customer_id,
      channel_code: 'DC_BRI',
      status: 'SUCCESS',
    });
    const again = await validate(token.id, '222000');
    expect(again.status).toBe(409);
    expect(codeOf(again)).toBe('ACCOUNT_LINKING_ALREADY_COMPLETED');
  });

  it('counts wrong codes: two INVALID_OTP_ERROR, the third MAX_OTP_ATTEMPTS_ERROR and FAILED, then ACCOUNT_LINKING_ALREADY_FAILED', async () => {
    const { id } = await pendingToken(sandbox);
    const codes: string[] = [];
    for (const otp of ['123456', '654321', '111111', '222000']) codes.push(codeOf(await validate(id, otp)));
    expect(codes).toEqual([
      'INVALID_OTP_ERROR',
      'INVALID_OTP_ERROR',
      'MAX_OTP_ATTEMPTS_ERROR',
      'ACCOUNT_LINKING_ALREADY_FAILED',
    ]);
  });

  it('fails the token with the test codes 222001 (expired) and 222002 (attempts used up)', async () => {
    for (const [otp, code] of [
      ['222001', 'EXPIRED_OTP_ERROR'],
      ['222002', 'MAX_OTP_ATTEMPTS_ERROR'],
    ] as const) {
      const { id } = await pendingToken(sandbox);
      const result = await validate(id, otp);
      expect(result.status).toBe(400);
      expect(codeOf(result)).toBe(code);
      const after = await validate(id, '222000');
      expect([after.status, codeOf(after)]).toEqual([409, 'ACCOUNT_LINKING_ALREADY_FAILED']);
    }
  });

  it('expires the OTP 5 minutes after it was sent, by the sandbox clock', async () => {
    const onTime = await pendingToken(sandbox);
    const late = await pendingToken(sandbox);
    await sandbox.advance(OTP_LIFETIME_MS);
    expect((await validate(onTime.id, '222000')).status).toBe(200);
    await sandbox.advance(1);
    const expired = await validate(late.id, '222000');
    expect([expired.status, codeOf(expired)]).toEqual([400, 'EXPIRED_OTP_ERROR']);
  });

  it('answers 404 DATA_NOT_FOUND_ERROR for an unknown token and for a token of another merchant or mode', async () => {
    const { id } = await pendingToken(sandbox, 'aTest');
    for (const [tokenId, key] of [
      [id, 'bTest'],
      [id, 'aLive'],
      ['lat-000000000000000000000000', 'aTest'],
    ] as const) {
      const result = await validate(tokenId, '222000', key);
      expect([result.status, codeOf(result)]).toEqual([404, 'DATA_NOT_FOUND_ERROR']);
    }
  });

  it('rejects a code that is not 6 digits with API_VALIDATION_ERROR without counting an attempt', async () => {
    const { id } = await pendingToken(sandbox);
    for (let i = 0; i < 3; i++) {
      expect(
        await sandbox.request('POST', `/linked_account_tokens/${id}/validate_otp`, { body: { otp_code: '12345' } }),
      ).toMatchObject({ status: 400, body: { error_code: 'API_VALIDATION_ERROR' } });
    }
    expect((await validate(id, '222000')).status).toBe(200);
  });
});

describe('listLinkedAccountTokenAccounts', () => {
  const list = (id: string) => sandbox.service().listLinkedAccountTokenAccounts({ path: { id } });

  it('lists nothing before SUCCESS and after FAILED, and the debit card built from the token once linked', async () => {
    const { id } = await pendingToken(sandbox);
    const before = await list(id);
    expect(before.ok && before.data).toEqual([]);
    await sandbox.service().validateLinkedAccountTokenOtp({ path: { id }, body: { otp_code: '222000' } });
    const after = await list(id);
    if (!after.ok) return expect.fail(`expected 200, got ${after.status}`);
    expect(after.data).toHaveLength(1);
    expect(after.data[0]).toMatchObject({
      channel_code: 'DC_BRI',
      type: 'DEBIT_CARD',
      properties: {
        card_last_four: '8888',
        card_expiry: '06/29',
        currency: 'IDR',
        account_mobile_number: '+6281234567890',
        account_email: 'siti.rahayu@example.co.id',
      },
    });
    expect(after.data[0]?.id).toMatch(/^la-/);

    const failed = await pendingToken(sandbox);
    await sandbox.service().validateLinkedAccountTokenOtp({ path: { id: failed.id }, body: { otp_code: '222001' } });
    const none = await list(failed.id);
    expect(none.ok && none.data).toEqual([]);
  });

  it('answers 404 DATA_NOT_FOUND_ERROR for an unknown token and 400 API_VALIDATION_ERROR for an id without lat-', async () => {
    const unknown = await list('lat-000000000000000000000000');
    expect([unknown.status, codeOf(unknown)]).toEqual([404, 'DATA_NOT_FOUND_ERROR']);
    expect(await sandbox.request('GET', '/linked_account_tokens/abc/accounts')).toMatchObject({
      status: 400,
      body: { error_code: 'API_VALIDATION_ERROR' },
    });
  });
});

describe('createPaymentMethod and listPaymentMethodsByCustomer', () => {
  it('makes a linked account an ACTIVE payment method, once: a second one is 409 DUPLICATE_ERROR', async () => {
    const { customerId, accountId, paymentMethodId } = await linkCard(sandbox);
    const listed = await sandbox.service().listPaymentMethodsByCustomer({ query: { customer_id: customerId } });
    expect(listed.ok && listed.data).toEqual([
      {
        id: paymentMethodId,
        type: 'DEBIT_CARD',
        properties: {
          id: accountId,
          channel_code: 'DC_BRI',
          currency: 'IDR',
          card_last_four: '8888',
          card_expiry: '06/29',
          description: 'BRI Debit Card ending 8888',
        },
        customer_id: customerId,
        status: 'ACTIVE',
        created: START,
        updated: START,
        metadata: null,
      },
    ]);
    const second = await sandbox.service().createPaymentMethod({
      body: {
        customer_id: customerId,
        type: 'DEBIT_CARD',
        properties: { id: accountId },
        metadata: { crm_member_id: 'MBR-20418' },
      },
    });
    expect([second.status, codeOf(second)]).toEqual([409, 'DUPLICATE_ERROR']);
  });

  it("answers LIINKED_ACCOUNT_NOT_FOUND_ERROR for an unknown account and for another customer's account", async () => {
    const { accountId } = await linkCard(sandbox);
    const other = await createCustomer(sandbox);
    for (const id of [accountId, 'la-000000000000000000000000']) {
      const result = await sandbox
        .service()
        .createPaymentMethod({ body: { customer_id: other, type: 'DEBIT_CARD', properties: { id } } });
      expect([result.status, codeOf(result)]).toEqual([400, 'LIINKED_ACCOUNT_NOT_FOUND_ERROR']);
    }
  });

  it('answers CUSTOMER_NOT_FOUND_ERROR for an unknown customer', async () => {
    const { accountId } = await linkCard(sandbox);
    const result = await sandbox.service().createPaymentMethod({
      body: { customer_id: '5f6ee8de3a733c1d2e1a9f00', type: 'DEBIT_CARD', properties: { id: accountId } },
    });
    expect([result.status, codeOf(result)]).toEqual([400, 'CUSTOMER_NOT_FOUND_ERROR']);
  });

  it('reads a method as EXPIRED once its card month is over, and then lets the account back a new one', async () => {
    const { customerId, accountId, paymentMethodId } = await linkCard(sandbox, { expiry: '11/26' });
    await sandbox.advance(Date.parse('2026-12-01T00:00:00.000Z') - Date.parse(START));
    const listed = await sandbox.service().listPaymentMethodsByCustomer({ query: { customer_id: customerId } });
    expect(listed.ok && listed.data.map((m) => [m.id, m.status, m.updated])).toEqual([
      [paymentMethodId, 'EXPIRED', '2026-12-01T00:00:00.000Z'],
    ]);
    const next = await sandbox
      .service()
      .createPaymentMethod({ body: { customer_id: customerId, type: 'DEBIT_CARD', properties: { id: accountId } } });
    expect(next.status).toBe(200);
  });

  it('lists no payment methods for an unknown customer (decision payment-methods-unknown-customer)', async () => {
    await linkCard(sandbox);
    const listed = await sandbox.service().listPaymentMethodsByCustomer({ query: { customer_id: 'nobody' } });
    expect(listed.ok && listed.data).toEqual([]);
  });
});

describe('invalidatePaymentMethod (control API)', () => {
  it('makes an ACTIVE method INACTIVE for good: charging it is 503 INVALID_PAYMENT_METHOD_ERROR, and its linked account takes a new method', async () => {
    const { customerId, accountId, paymentMethodId } = await linkCard(sandbox);
    const revoked = await sandbox.control().invalidatePaymentMethod({ path: { id: paymentMethodId } });
    if (!revoked.ok) return expect.fail(`expected 200, got ${revoked.status}`);
    expect(revoked.data).toMatchObject({ id: paymentMethodId, status: 'INACTIVE', updated: START });

    const charge = await sandbox
      .service()
      .createDirectDebitPayment({ idempotencyKey: 'idem-revoked', body: paymentRequest(paymentMethodId) });
    expect(charge.status).toBe(503);
    expect(codeOf(charge)).toBe('INVALID_PAYMENT_METHOD_ERROR');

    const replacement = await sandbox
      .service()
      .createPaymentMethod({ body: { customer_id: customerId, type: 'DEBIT_CARD', properties: { id: accountId } } });
    expect(replacement.status).toBe(200);
    const listed = await sandbox.service().listPaymentMethodsByCustomer({ query: { customer_id: customerId } });
    // Newest first (decision list-order): the replacement before the method it replaces.
    expect(listed.ok ? listed.data.map((method) => method.status) : listed.status).toEqual(['ACTIVE', 'INACTIVE']);
  });

  it('answers 409 SANDBOX_STATE_CONFLICT for a method that is INACTIVE or EXPIRED already, and leaves it as it is', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    expect((await sandbox.control().invalidatePaymentMethod({ path: { id: paymentMethodId } })).status).toBe(200);
    const again = await sandbox.control().invalidatePaymentMethod({ path: { id: paymentMethodId } });
    expect(again.status).toBe(409);
    expect(codeOf(again)).toBe('SANDBOX_STATE_CONFLICT');

    const { paymentMethodId: expiring } = await linkCard(sandbox, { expiry: '11/26' });
    await sandbox.advance(Date.parse('2026-12-01T00:00:00.000Z') - Date.parse(START));
    const expired = await sandbox.control().invalidatePaymentMethod({ path: { id: expiring } });
    expect(expired.status).toBe(409);
    expect(expired.ok ? undefined : expired.error).toMatchObject({ message: expect.stringContaining('is EXPIRED') });
  });

  it('answers 404 DATA_NOT_FOUND_ERROR for an unknown method and for one of another merchant or mode', async () => {
    const { paymentMethodId } = await linkCard(sandbox);
    for (const [key, id] of [
      ['aTest', 'pm-000000000000000000000000'],
      ['bTest', paymentMethodId],
      ['aLive', paymentMethodId],
    ] as const) {
      const result = await sandbox.control(key).invalidatePaymentMethod({ path: { id } });
      expect(result.status).toBe(404);
      expect(codeOf(result)).toBe('DATA_NOT_FOUND_ERROR');
    }
    const stored = await sandbox.ctx.store.get(COLLECTIONS.paymentMethods, scopeOf('aTest'), paymentMethodId);
    expect(stored).toMatchObject({ status: 'ACTIVE' });
  });
});
