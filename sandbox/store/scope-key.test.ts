import { describe, expect, it } from 'vitest';
import { scopeKey } from './scope-key.js';

describe('scopeKey', () => {
  it('is one text per merchant and mode, whatever object names them', () => {
    const key = scopeKey({ merchantId: 'm1', mode: 'test' });
    expect(scopeKey({ merchantId: 'm1', mode: 'test' })).toBe(key);
    expect(scopeKey(Object.freeze({ merchantId: 'm1', mode: 'test', ownerId: 'o' } as const))).toBe(key);
  });

  it('tells apart merchants, modes, and ids that one separator could join alike', () => {
    const keys = [
      scopeKey({ merchantId: 'm1', mode: 'test' }),
      scopeKey({ merchantId: 'm1', mode: 'live' }),
      scopeKey({ merchantId: 'm2', mode: 'test' }),
      scopeKey({ merchantId: 'live\u0000m1', mode: 'test' }),
      scopeKey({ merchantId: '', mode: 'test' }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
