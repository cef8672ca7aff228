// Mutants of the auth check: the key compared loosely (its password ignored, spaces trimmed, letter case
// folded) or the other mode's keys not loaded, so a valid key is refused.
import type { Mutant } from '../types.js';

export const mutants: Mutant[] = [
  {
    name: 'auth-password-ignored',
    family: 'auth',
    caught: {
      result: 'auth:getBalance',
      says: [/2xx without a valid key \(the valid key with a non-empty password\)/],
    },
    mistake: 'the Basic password is never looked at, so the valid key with any password is accepted',
    edits: [
      {
        file: 'merchants.ts',
        within: 'createMerchants.authenticate',
        find: "if (credentials === null || credentials.password !== '') return null;",
        replace: 'if (credentials === null) return null;',
      },
    ],
  },
  {
    name: 'auth-key-trimmed',
    family: 'auth',
    caught: {
      result: 'auth:getBalance',
      says: [/2xx without a valid key \(the valid key with a (trailing|leading) space\)/],
    },
    mistake:
      'the presented key is trimmed before it is compared, so the key with a space before or after it is accepted',
    edits: [
      {
        file: 'merchants.ts',
        within: 'createMerchants.authenticate',
        find: 'const presented = secretDigest(credentials.username);',
        replace: 'const presented = secretDigest(credentials.username.trim());',
      },
    ],
  },
  {
    name: 'auth-key-case-folded',
    family: 'auth',
    caught: { result: 'auth:getBalance', says: [/2xx without a valid key \(the valid key in another letter case\)/] },
    mistake: 'keys are compared without regard to letter case, so the key in another case is accepted',
    edits: [
      {
        file: 'merchants.ts',
        within: 'createMerchants.authenticate',
        find: 'const presented = secretDigest(credentials.username);',
        replace: 'const presented = secretDigest(credentials.username.toLowerCase());',
      },
      {
        file: 'merchants.ts',
        within: 'createMerchants',
        find: 'digest: secretDigest(merchant.keys[mode])',
        replace: 'digest: secretDigest(merchant.keys[mode].toLowerCase())',
      },
    ],
  },
  {
    name: 'auth-live-keys-not-loaded',
    family: 'auth',
    caught: { result: 'auth:getBalance', says: [/the same merchant's key of the other mode: refused with 401/] },
    mistake: "only the merchants' test keys are loaded, so a valid live key is answered 401 as an unknown key",
    edits: [
      {
        file: 'merchants.ts',
        within: 'createMerchants',
        find: "(['test', 'live'] as const).map((mode: Mode)",
        replace: "(['test'] as const).map((mode: Mode)",
      },
    ],
  },
];
