// Unknown identifiers: for every operation with a `not_found` trigger on a path or query parameter, a
// request whose otherwise valid identifier names nothing is answered with that trigger's code at the
// status the operation documents for it.
import type { OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { buildRequest, parameterValue } from '../data/requests.js';
import { unknownIdentifier } from './data.js';
import { triggersOf } from './resources.js';
import type { Workflow } from './steps.js';

interface Target {
  code: string;
  parameter: string;
  in: 'path' | 'query';
}

function targets(operation: OperationModel): Target[] {
  return triggersOf(operation, 'not_found').flatMap(([code, trigger]) => {
    const parameter = trigger.parameter;
    if (typeof parameter !== 'object' || parameter === null || Array.isArray(parameter)) return [];
    const where = parameter.in;
    return (where === 'path' || where === 'query') && typeof parameter.name === 'string'
      ? [{ code, parameter: parameter.name, in: where }]
      : [];
  });
}

export function unknownIdWorkflows(contract: Contract, prefix: string): Workflow[] {
  return contract.model.operations
    .filter((operation) => targets(operation).length > 0)
    .map((operation) => ({
      subject: `${prefix}:${operation.operationId}`,
      steps: targets(operation).map((t) => `unknown ${t.parameter}`),
      script: async (s) => {
        for (const target of targets(operation)) {
          const parameter =
            operation.parameters.find((p) => p.name === target.parameter && p.in === target.in) ??
            s.skip(`${operation.operationId} declares no ${target.in} parameter ${target.parameter}`);
          const value = unknownIdentifier(
            s.contract,
            parameter.schema,
            parameterValue(s.contract, parameter, operation),
          );
          await s.reject(
            `unknown ${target.parameter}`,
            operation,
            buildRequest(s.contract, operation, { parameters: { [parameter.name]: value } }),
            target.code,
          );
        }
      },
    }));
}
