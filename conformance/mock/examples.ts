// The named examples the contract documents for one response of an operation, in document order.
import { isObject } from '../../generator/model/read-model.js';
import type { Json, OperationModel } from '../../generator/model/types.js';
import type { Contract } from '../contract.js';

export function responseExamples(contract: Contract, operation: OperationModel, status: number): Json[] {
  const raw = contract.deref({ $ref: operation.pointer });
  const responses = isObject(raw) ? contract.deref(raw.responses) : undefined;
  const response = isObject(responses) ? contract.deref(responses[String(status)]) : undefined;
  const content = isObject(response) ? contract.deref(response.content) : undefined;
  const media = isObject(content) ? contract.deref(content['application/json']) : undefined;
  const examples = isObject(media) ? contract.deref(media.examples) : undefined;
  return (isObject(examples) ? Object.values(examples) : []).flatMap((example) => {
    const resolved = contract.deref(example);
    return isObject(resolved) && resolved.value !== undefined ? [resolved.value] : [];
  });
}
