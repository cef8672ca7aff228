import { afterEach, describe, expect, it } from 'vitest';
import { webhookMetadata } from '@payments-contract/client/webhooks';
import type { Scope, Store } from '../store/store.js';
import { tempDataDir, testStores } from '../callbacks/testing.js';
import { contractFacts } from './contract-facts.js';
import { createSettings, SETTINGS_COLLECTION, SettingsValidationError, settingsCollections } from './settings.js';

const merchant: Scope = { merchantId: '5ed75086a883856178afc12e', mode: 'test' };
const stores = testStores(settingsCollections);
const open = stores.open;
afterEach(stores.closeAll);
const settingsOn = (
  store: Store,
  defaultCallbackUrl: string | null = 'http://127.0.0.1:8787/callbacks',
  defaultCallbackUrls?: Record<string, string>,
) =>
  createSettings({
    store,
    facts: contractFacts(),
    defaultCallbackUrl,
    ...(defaultCallbackUrls ? { defaultCallbackUrls } : {}),
  });

describe('merchant settings', () => {
  it('default to every bank and outlet of the contract, each with a 999999-number range behind a 5-digit prefix', async () => {
    const settings = await (await settingsOn(open())).get(merchant);
    expect(settings.virtual_account_bank_activation).toEqual(
      expect.arrayContaining(['BCA', 'BNI', 'BRI', 'MANDIRI', 'PERMATA', 'SAHABAT_SAMPOERNA']),
    );
    expect(Object.keys(settings.virtual_account_number_range).sort()).toEqual(
      [...settings.virtual_account_bank_activation].sort(),
    );
    expect(Object.keys(settings.payment_code_range).sort()).toEqual(['ALFAMART', 'INDOMARET']);
    for (const range of Object.values(settings.virtual_account_number_range)) {
      expect(range.merchant_code).toMatch(/^[0-9]{5}$/);
      expect(range.from.startsWith(range.merchant_code) && range.to.startsWith(range.merchant_code)).toBe(true);
      expect(Number(range.to) - Number(range.from) + 1).toBe(999_999);
    }
    for (const range of Object.values(settings.payment_code_range)) {
      expect(range.prefix).toMatch(/^[0-9]{3,6}$/);
      expect(Number(range.to) - Number(range.from) + 1).toBe(999_999);
    }
    expect(settings).toMatchObject({
      closed_virtual_accounts_enabled: true,
      expiration_date_enabled: true,
      default_disbursement_description: null,
      ewallet_auto_resolve: true,
    });
  });

  it('default every callback URL setting the webhooks name to the configured URL', async () => {
    const dashboardSettings = Object.values(webhookMetadata).flatMap((w) =>
      'dashboard_setting' in w.delivery.destination ? [w.delivery.destination.dashboard_setting] : [],
    );
    const settings = await (await settingsOn(open())).get(merchant);
    expect(Object.keys(settings.callback_urls).sort()).toEqual([...new Set(dashboardSettings)].sort());
    expect(new Set(Object.values(settings.callback_urls))).toEqual(new Set(['http://127.0.0.1:8787/callbacks']));
    expect(
      Object.values((await (await settingsOn(open(), null)).get(merchant)).callback_urls).every((url) => url === null),
    ).toBe(true);
  });

  it('take a per-setting default URL over the general one, and refuse a setting the contract does not name', async () => {
    const settings = await (
      await settingsOn(open(), 'http://127.0.0.1:8787/all', { ewallet_callback_url: 'http://127.0.0.1:8787/ewallet' })
    ).get(merchant);
    expect(settings.callback_urls.ewallet_callback_url).toBe('http://127.0.0.1:8787/ewallet');
    expect(settings.callback_urls.disbursement_callback_url).toBe('http://127.0.0.1:8787/all');
    await expect(settingsOn(open(), null, { ewallet_url: 'http://x.test/' })).rejects.toThrow(/ewallet_url/);
  });

  it('derive stable prefixes that differ between merchants', async () => {
    const a = await (await settingsOn(open())).get(merchant);
    const again = await (await settingsOn(open())).get(merchant);
    const b = await (await settingsOn(open())).get({ merchantId: '5f6ee8de3a733c1d2e1a1b2c', mode: 'test' });
    expect(again.virtual_account_number_range).toEqual(a.virtual_account_number_range);
    expect(b.virtual_account_number_range.BRI?.merchant_code).not.toBe(
      a.virtual_account_number_range.BRI?.merchant_code,
    );
  });

  it('merge maps key by key, replace other fields, keep modes apart, and survive a restart', async () => {
    const dir = tempDataDir();
    const store = open(dir);
    const settings = await settingsOn(store);
    const before = await settings.get(merchant);
    const updated = await settings.update(merchant, {
      virtual_account_number_range: { BRI: { merchant_code: '26215', from: '262159999000000', to: '262159999000999' } },
      virtual_account_bank_activation: ['BRI'],
      callback_urls: { ewallet_callback_url: 'https://merchant.example/ewallet' },
      default_disbursement_description: 'Pembayaran',
    });
    expect(updated.virtual_account_number_range.BRI?.to).toBe('262159999000999');
    expect(updated.virtual_account_number_range.BCA).toEqual(before.virtual_account_number_range.BCA);
    expect(updated.virtual_account_bank_activation).toEqual(['BRI']);
    expect(updated.callback_urls.ewallet_callback_url).toBe('https://merchant.example/ewallet');
    expect(updated.callback_urls.disbursement_callback_url).toBe(before.callback_urls.disbursement_callback_url);
    expect(
      (await settings.update(merchant, { closed_virtual_accounts_enabled: false })).default_disbursement_description,
    ).toBe('Pembayaran');
    expect(await settings.get({ ...merchant, mode: 'live' })).toEqual(before);

    await stores.close(store);
    const restarted = await (await settingsOn(open(dir))).get(merchant);
    expect(restarted).toMatchObject({
      virtual_account_bank_activation: ['BRI'],
      closed_virtual_accounts_enabled: false,
      default_disbursement_description: 'Pembayaran',
    });
  });

  it('keep only the fields they describe: unknown ones, in a range too, are neither stored nor returned', async () => {
    const dir = tempDataDir();
    const store = open(dir);
    const settings = await settingsOn(store);
    const before = await settings.get(merchant);
    const given = JSON.parse(
      '{"__proto__":{"polluted":true},"constructor":"x","padding":"' +
        'p'.repeat(100_000) +
        '","closed_virtual_accounts_enabled":false,' +
        '"payment_code_range":{"ALFAMART":{"prefix":"12345","from":"12345000001","to":"12345000999","extra":"' +
        'q'.repeat(1000) +
        '"}}}',
    ) as Parameters<typeof settings.update>[1];
    const updated = await settings.update(merchant, given);
    expect(Object.keys(updated).sort()).toEqual(Object.keys(before).sort());
    expect(updated.payment_code_range.ALFAMART).toEqual({ prefix: '12345', from: '12345000001', to: '12345000999' });
    expect(updated.closed_virtual_accounts_enabled).toBe(false);
    expect(Object.getPrototypeOf(updated)).toBe(Object.prototype);
    const record = await store.get(SETTINGS_COLLECTION, merchant, 'settings');
    expect(JSON.stringify(record).length).toBeLessThan(500);

    // A record written before unknown fields were dropped is read without them, and rewritten without them.
    await store.update(SETTINGS_COLLECTION, merchant, {
      id: 'settings',
      kind: 'settings',
      overrides: { ...given, padding: 'p'.repeat(100_000) },
    });
    await stores.close(store);
    const reopened = open(dir);
    const restarted = await settingsOn(reopened);
    expect(Object.keys(await restarted.get(merchant)).sort()).toEqual(Object.keys(before).sort());
    await restarted.update(merchant, { ewallet_auto_resolve: false });
    expect(JSON.stringify(await reopened.get(SETTINGS_COLLECTION, merchant, 'settings')).length).toBeLessThan(500);
  });

  it('refuse names the contract does not have and ranges that do not fit, changing nothing', async () => {
    const settings = await settingsOn(open());
    const before = await settings.get(merchant);
    const attempt = settings.update(merchant, {
      virtual_account_number_range: {
        BRI: { merchant_code: '26215', from: '99999000001', to: '26215000000' },
        NOPE: { merchant_code: '12345', from: '12345001', to: '12345002' },
      },
      virtual_account_bank_activation: ['BRI', 'XYZ'],
      payment_code_range: { ALFAMART: { prefix: '777', from: '7770002', to: '7770001' } },
      callback_urls: { unknown_callback_url: null },
    });
    await expect(attempt).rejects.toBeInstanceOf(SettingsValidationError);
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error instanceof SettingsValidationError && error.issues.map((issue) => issue.path)).toEqual([
      '/virtual_account_number_range/BRI/from',
      '/virtual_account_number_range/BRI/to',
      '/virtual_account_number_range/NOPE',
      '/virtual_account_bank_activation/1',
      '/payment_code_range/ALFAMART/to',
      '/callback_urls/unknown_callback_url',
    ]);
    expect(await settings.get(merchant)).toEqual(before);
  });

  it('can be read inside another module’s transaction, and forget a cleared scope', async () => {
    const store = open();
    const settings = await settingsOn(store);
    await settings.update(merchant, { ewallet_auto_resolve: false });
    const inside = await store.transaction(async () => (await settings.get(merchant)).ewallet_auto_resolve);
    expect(inside).toBe(false);
    await store.clearScope(merchant);
    settings.forget(merchant);
    expect((await settings.get(merchant)).ewallet_auto_resolve).toBe(true);
  });

  it('hand out copies: changing what get returned changes nothing', async () => {
    const settings = await settingsOn(open());
    const copy = await settings.get(merchant);
    copy.virtual_account_bank_activation.length = 0;
    expect((await settings.get(merchant)).virtual_account_bank_activation.length).toBeGreaterThan(0);
  });

  it('hand out copies of what they hold now: after an update, a forgotten scope and a reload', async () => {
    const settings = await settingsOn(open());
    expect((await settings.get(merchant)).default_disbursement_description).toBeNull();
    await settings.update(merchant, { default_disbursement_description: 'Gaji' });
    expect((await settings.get(merchant)).default_disbursement_description).toBe('Gaji');
    settings.forget(merchant);
    expect((await settings.get(merchant)).default_disbursement_description).toBeNull();
    await settings.reload();
    expect((await settings.get(merchant)).default_disbursement_description).toBe('Gaji');
  });

  it('let a request read them without a copy (peek), seeing an update, a forgotten scope and a reload at once', async () => {
    const settings = await settingsOn(open());
    expect(settings.peek(merchant).rate_limits_enabled).toBe(true);
    await settings.update(merchant, { rate_limits_enabled: false });
    expect(settings.peek(merchant).rate_limits_enabled).toBe(false);
    expect(settings.peek(merchant)).toBe(settings.peek(merchant));
    settings.forget(merchant);
    expect(settings.peek(merchant).rate_limits_enabled).toBe(true);
    await settings.reload();
    expect(settings.peek(merchant).rate_limits_enabled).toBe(false);
  });
});
