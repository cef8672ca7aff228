import { describe, expect, it, vi } from 'vitest';
import * as constantTime from '@payments-contract/server/runtime/constant-time';
import type { MerchantConfig } from './config.js';
import { createMerchants } from './merchants.js';

const merchants: MerchantConfig[] = [
  {
    id: 'm1',
    ownerId: 'owner-1',
    keys: { test: 'sk_test_one', live: 'sk_live_one' },
    callbackTokens: { test: 'tok-1-test', live: 'tok-1-live' },
  },
  {
    id: 'm2',
    ownerId: 'm2',
    keys: { test: 'sk_test_two', live: 'sk_live_two' },
    callbackTokens: { test: 'tok-2-test', live: 'tok-2-live' },
  },
];

describe('createMerchants', () => {
  const directory = createMerchants(merchants);

  it('maps each key to its merchant and mode', () => {
    expect(directory.authenticate({ username: 'sk_test_one', password: '' })).toEqual({
      merchantId: 'm1',
      mode: 'test',
      ownerId: 'owner-1',
    });
    expect(directory.authenticate({ username: 'sk_live_one', password: '' })).toEqual({
      merchantId: 'm1',
      mode: 'live',
      ownerId: 'owner-1',
    });
    expect(directory.authenticate({ username: 'sk_test_two', password: '' })).toEqual({
      merchantId: 'm2',
      mode: 'test',
      ownerId: 'm2',
    });
    expect(directory.authenticate({ username: 'sk_live_two', password: '' })).toEqual({
      merchantId: 'm2',
      mode: 'live',
      ownerId: 'm2',
    });
  });

  it('refuses unknown keys, missing credentials and a non-empty password', () => {
    expect(directory.authenticate(null)).toBeNull();
    expect(directory.authenticate({ username: 'sk_test_three', password: '' })).toBeNull();
    expect(directory.authenticate({ username: 'sk_test_on', password: '' })).toBeNull();
    expect(directory.authenticate({ username: '', password: '' })).toBeNull();
    expect(directory.authenticate({ username: 'sk_test_one', password: 'x' })).toBeNull();
  });

  it('compares a key not yet known with every key in constant time, also after a match', () => {
    const fresh = createMerchants(merchants);
    const compared = vi.spyOn(constantTime, 'digestsEqual');
    const digested = vi.spyOn(constantTime, 'secretDigest');
    try {
      fresh.authenticate({ username: 'sk_test_one', password: '' });
      // Four keys: the first matches, and the other three are still compared.
      expect(compared).toHaveBeenCalledTimes(4);
      // The configured keys were digested when the directory was made: a request digests only its own key.
      expect(digested).toHaveBeenCalledTimes(1);
    } finally {
      compared.mockRestore();
      digested.mockRestore();
    }
  });

  it('knows a key that authenticated by its text, and still compares every other key by digest', () => {
    const fresh = createMerchants(merchants);
    fresh.authenticate({ username: 'sk_live_two', password: '' });
    const compared = vi.spyOn(constantTime, 'digestsEqual');
    const digested = vi.spyOn(constantTime, 'secretDigest');
    try {
      expect(fresh.authenticate({ username: 'sk_live_two', password: '' })).toEqual({
        merchantId: 'm2',
        mode: 'live',
        ownerId: 'm2',
      });
      expect(digested).not.toHaveBeenCalled();
      // Known or not, the key's password is still looked at.
      expect(fresh.authenticate({ username: 'sk_live_two', password: 'x' })).toBeNull();
      // An invalid key is never known: each time, it is compared with all four.
      for (let i = 0; i < 2; i++) expect(fresh.authenticate({ username: 'sk_live_tw', password: '' })).toBeNull();
      expect(digested).toHaveBeenCalledTimes(2);
      expect(compared).toHaveBeenCalledTimes(8);
    } finally {
      compared.mockRestore();
      digested.mockRestore();
    }
  });

  it("gives each merchant's callback token per mode", () => {
    expect(directory.callbackToken({ merchantId: 'm1', mode: 'test' })).toBe('tok-1-test');
    expect(directory.callbackToken({ merchantId: 'm2', mode: 'live' })).toBe('tok-2-live');
    expect(() => directory.callbackToken({ merchantId: 'nobody', mode: 'test' })).toThrow(/no merchant nobody/);
  });
});
