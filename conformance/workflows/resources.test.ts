import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { creationOperation, stateMachines } from './machines.js';
import { planProvision, planReferences } from './provision.js';
import { bodyReferences, creatorOf, referencedKind, resourceOperations, statusesOf } from './resources.js';

const contract = loadContract();
const ids = (value: { operationId: string } | undefined): string | undefined => value?.operationId;

describe('relations between operations, read from the bundled contract', () => {
  it.each([
    ['fixedVirtualAccount', { read: 'getFixedVirtualAccount', update: 'updateFixedVirtualAccount', lookup: undefined }],
    ['fixedPaymentCode', { read: 'getFixedPaymentCode', update: 'updateFixedPaymentCode', lookup: undefined }],
    ['disbursement', { read: 'getDisbursement', update: undefined, lookup: 'listDisbursementsByExternalId' }],
    ['ewalletPayment', { read: undefined, update: undefined, lookup: 'getEwalletPaymentStatus' }],
    [
      'directDebitPayment',
      { read: 'getDirectDebitPayment', update: undefined, lookup: 'getDirectDebitPaymentByReferenceId' },
    ],
  ])('finds the read, update and lookup operations of what %s creates', (key, want) => {
    const machine = stateMachines(contract).get(key);
    const create = contract.operation(machine ? (creationOperation(machine) ?? '') : '');
    const found = resourceOperations(contract, create);
    expect({ read: ids(found.read), update: ids(found.update), lookup: ids(found.lookup) }).toEqual(want);
  });

  it('finds the creator of a kind and the kind a reference names', () => {
    expect(ids(creatorOf(contract, 'Customer'))).toBe('createCustomer');
    const references = bodyReferences(contract, contract.operation('createPaymentMethod'));
    expect(references.map((r) => [r.field, referencedKind(contract, r)])).toEqual([
      ['properties.id', 'LinkedAccount'],
      ['customer_id', 'Customer'],
    ]);
  });

  it('answers the status of a code where the operation documents it', () => {
    expect(statusesOf(contract.operation('updateCustomer'), 'CUSTOMER_NOT_FOUND_ERROR')).toEqual([400]);
  });

  it('plans the chain a direct debit needs, each kind once, owners driven before their lists', () => {
    expect(planReferences(contract, contract.operation('createDirectDebitPayment')).map((a) => a.step)).toEqual([
      'createCustomer',
      'initializeLinkedAccountTokenization',
      'validateLinkedAccountTokenOtp',
      'listLinkedAccountTokenAccounts',
      'createPaymentMethod',
    ]);
    expect(planProvision(contract, 'Customer').map((a) => a.step)).toEqual(['createCustomer']);
    expect(() => planProvision(contract, 'NoSuchKind')).toThrow(/no operation that creates or lists/);
  });
});
