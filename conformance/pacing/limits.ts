// Which documented rate limit a request counts against: its operation's `x-rate-limit` group as the
// contract model resolves it, found from the request's method and URL. The service contract and the
// sandbox's control contract (the bundled one: the suite paces before it knows whether the target serves
// its own) each give their operations groups; a request of neither is not paced.
import { readFileSync } from 'node:fs';
import { sandboxOpenapiPath } from '@payments-contract/contract';
import { readModel } from '@payments-contract/contract/model';
import type { JsonObject, OperationModel, RateLimitModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { operationLocator } from '../operation-at.js';

export type LimitOf = (method: string, url: string) => RateLimitModel | undefined;

export function rateLimitLocator(operationSets: readonly (readonly OperationModel[])[], baseUrl: string): LimitOf {
  const locators = operationSets.map((operations) => operationLocator(operations, baseUrl));
  return (method, url) => {
    for (const locate of locators) {
      const operation = locate(method, url);
      if (operation) return operation.rateLimit;
    }
    return undefined;
  };
}

/** The limits of the contract's operations and of the bundled control contract's. */
export function documentedLimits(contract: Contract, baseUrl: string): LimitOf {
  const control = readModel(JSON.parse(readFileSync(sandboxOpenapiPath, 'utf8')) as JsonObject);
  return rateLimitLocator([contract.model.operations, control.operations], baseUrl);
}
