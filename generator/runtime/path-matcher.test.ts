import { describe, expect, it } from 'vitest';
import { createPathMatcher, decodedSegments, type MatchResult } from './path-matcher.js';

// The contract's own awkward templates: a literal prefix inside a segment, templates written with a
// trailing slash, a literal segment beside a parameter one.
const match = createPathMatcher([
  { method: 'GET', path: '/balance', value: 'getBalance' },
  { method: 'GET', path: '/callback_virtual_accounts/{id}', value: 'getFixedVirtualAccount' },
  { method: 'PATCH', path: '/callback_virtual_accounts/{id}', value: 'updateFixedVirtualAccount' },
  { method: 'POST', path: '/callback_virtual_accounts', value: 'createFixedVirtualAccount' },
  {
    method: 'GET',
    path: '/callback_virtual_account_payments/payment_id={payment_id}',
    value: 'getFixedVirtualAccountPayment',
  },
  { method: 'GET', path: '/direct_debits', value: 'getDirectDebitPaymentByReferenceId' },
  { method: 'POST', path: '/direct_debits', value: 'createDirectDebitPayment' },
  { method: 'GET', path: '/direct_debits/{id}/', value: 'getDirectDebitPayment' },
  { method: 'POST', path: '/direct_debits/{id}/validate_otp/', value: 'validateDirectDebitPaymentOtp' },
  { method: 'POST', path: '/linked_account_tokens/auth', value: 'initializeLinkedAccountTokenization' },
  { method: 'GET', path: '/linked_account_tokens/{id}', value: 'getLinkedAccountToken' },
]);

describe('createPathMatcher', () => {
  const cases: [string, { method: string; path: string; want: MatchResult<string> }][] = [
    ['a literal path', { method: 'GET', path: '/balance', want: { kind: 'found', value: 'getBalance', params: {} } }],
    [
      'a parameter segment',
      {
        method: 'GET',
        path: '/callback_virtual_accounts/va-1',
        want: { kind: 'found', value: 'getFixedVirtualAccount', params: { id: 'va-1' } },
      },
    ],
    [
      'the method picks the operation on a shared path',
      {
        method: 'PATCH',
        path: '/callback_virtual_accounts/va-1',
        want: { kind: 'found', value: 'updateFixedVirtualAccount', params: { id: 'va-1' } },
      },
    ],
    [
      'a parameter behind a literal inside a segment',
      {
        method: 'GET',
        path: '/callback_virtual_account_payments/payment_id=p-9',
        want: { kind: 'found', value: 'getFixedVirtualAccountPayment', params: { payment_id: 'p-9' } },
      },
    ],
    [
      'the same with the literal `=` percent-encoded',
      {
        method: 'GET',
        path: '/callback_virtual_account_payments/payment_id%3Dp-9',
        want: { kind: 'found', value: 'getFixedVirtualAccountPayment', params: { payment_id: 'p-9' } },
      },
    ],
    [
      'parameters are percent-decoded',
      {
        method: 'GET',
        path: '/callback_virtual_accounts/a%20b%2Fc',
        want: { kind: 'found', value: 'getFixedVirtualAccount', params: { id: 'a b/c' } },
      },
    ],
    [
      'a template with a trailing slash matches a path without one',
      {
        method: 'GET',
        path: '/direct_debits/ddpy-1',
        want: { kind: 'found', value: 'getDirectDebitPayment', params: { id: 'ddpy-1' } },
      },
    ],
    [
      'a template with a trailing slash matches a path with one',
      {
        method: 'GET',
        path: '/direct_debits/ddpy-1/',
        want: { kind: 'found', value: 'getDirectDebitPayment', params: { id: 'ddpy-1' } },
      },
    ],
    [
      'a template without a trailing slash matches a path with one',
      { method: 'GET', path: '/balance/', want: { kind: 'found', value: 'getBalance', params: {} } },
    ],
    [
      'a nested template with a trailing slash, without it',
      {
        method: 'POST',
        path: '/direct_debits/ddpy-1/validate_otp',
        want: { kind: 'found', value: 'validateDirectDebitPaymentOtp', params: { id: 'ddpy-1' } },
      },
    ],
    [
      'a literal segment wins over a parameter',
      {
        method: 'POST',
        path: '/linked_account_tokens/auth',
        want: { kind: 'found', value: 'initializeLinkedAccountTokenization', params: {} },
      },
    ],
    [
      'a less specific template answers a method the literal one lacks',
      {
        method: 'GET',
        path: '/linked_account_tokens/auth',
        want: { kind: 'found', value: 'getLinkedAccountToken', params: { id: 'auth' } },
      },
    ],
    [
      'a known path with another method',
      { method: 'DELETE', path: '/direct_debits', want: { kind: 'method-not-allowed', allow: ['GET', 'POST'] } },
    ],
    ['an unknown path', { method: 'GET', path: '/refunds', want: { kind: 'not-found' } }],
    [
      'an empty parameter is not a match',
      { method: 'GET', path: '/callback_virtual_accounts//', want: { kind: 'not-found' } },
    ],
    ['an extra segment is not a match', { method: 'GET', path: '/balance/extra', want: { kind: 'not-found' } }],
    [
      'a missing literal prefix is not a match',
      { method: 'GET', path: '/callback_virtual_account_payments/p-9', want: { kind: 'not-found' } },
    ],
    [
      'broken percent-encoding is not a match',
      { method: 'GET', path: '/callback_virtual_accounts/%E0%A4%A', want: { kind: 'not-found' } },
    ],
    ['paths are case-sensitive', { method: 'GET', path: '/Balance', want: { kind: 'not-found' } }],
  ];
  it.each(cases)('%s', (_name, { method, path, want }) => {
    expect(match(method, path)).toEqual(want);
  });

  it('refuses two routes for one method and template (trailing slash or not)', () => {
    expect(() =>
      createPathMatcher([
        { method: 'GET', path: '/things/{id}', value: 1 },
        { method: 'GET', path: '/things/{id}/', value: 2 },
      ]),
    ).toThrow('two routes for GET /things/{id}/');
  });
});

describe('decodedSegments', () => {
  it('drops the leading and trailing slash and decodes each segment on its own', () => {
    expect(decodedSegments('/a%2Fb/c/')).toEqual(['a/b', 'c']);
    expect(decodedSegments('/%ZZ')).toBeUndefined();
  });
});
