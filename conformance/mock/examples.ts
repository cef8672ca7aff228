// The named examples the contract documents for one response of an operation, in document order.
import { responseExampleValues } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';

export function responseExamples(contract: Contract, operation: OperationModel, status: number): Json[] {
  return responseExampleValues(contract.doc, operation.pointer, status);
}
