import { describe, expect, it } from 'vitest';
import { scopedKey, scopeKey } from './scope-key.js';

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

describe('scopedKey', () => {
  it("keeps one scope's entry apart from another scope's entry of the same name, and from its other entries", () => {
    const keys = [
      scopedKey({ merchantId: 'm1', mode: 'test' }, 'job-1'),
      scopedKey({ merchantId: 'm1', mode: 'live' }, 'job-1'),
      scopedKey({ merchantId: 'm2', mode: 'test' }, 'job-1'),
      scopedKey({ merchantId: 'm1', mode: 'test' }, 'job-2'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(scopedKey({ merchantId: 'm1', mode: 'test' }, 'job-1')).toBe(keys[0]);
  });
});
