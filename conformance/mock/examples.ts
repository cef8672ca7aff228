// The named examples the contract documents for one response of an operation, in document order.
import { responseExampleValues } from '../../generator/model/read-model.js';
import type { Json, OperationModel } from '../../generator/model/types.js';
import type { Contract } from '../contract.js';

export function responseExamples(contract: Contract, operation: OperationModel, status: number): Json[] {
  return responseExampleValues(contract.doc, operation.pointer, status);
}
