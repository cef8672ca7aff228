// One request on the way to a callback: built from the operation's examples, observed for check 1, and
// judged against the answer the contract prescribes. A step that goes otherwise stops the trigger with
// the reason, so that the callback is reported as not triggered rather than as missing.
import type { JsonObject } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { bodyExamples, buildRequest } from '../data/requests.js';
import { expectationFindings, type Expected } from '../expectations.js';
import type { Exchange } from '../http.js';
import type { CheckContext } from '../types.js';

export interface StepSpec {
  operationId: string;
  /** Values of parameters by name (path, query, header). */
  parameters?: Record<string, string>;
  /** The whole body; default the operation's first example. */
  body?: JsonObject;
  /** The answer the contract prescribes; default any documented 2xx. */
  expect?: Expected;
}

export type StepResult = { ok: true; exchange: Exchange } | { ok: false; reason: string; exchange?: Exchange };

export function firstExample(contract: Contract, operationId: string): JsonObject {
  const value = bodyExamples(contract, contract.operation(operationId))[0]?.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? structuredClone(value) : {};
}

/** The operation's only path parameter (the id of the object it acts on), if it has exactly one. */
export function onlyPathParameter(contract: Contract, operationId: string): string | undefined {
  const names = contract
    .operation(operationId)
    .parameters.filter((p) => p.in === 'path')
    .map((p) => p.name);
  return names.length === 1 ? names[0] : undefined;
}

export async function runStep(context: CheckContext, spec: StepSpec): Promise<StepResult> {
  const { contract, http } = context;
  const operation = contract.operation(spec.operationId);
  const request = buildRequest(contract, operation, {
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.body ? { body: spec.body } : {}),
  });
  const exchange = await http.send(request);
  context.observe(operation.operationId, exchange);
  if (exchange.failure && exchange.failure.kind !== 'not_json')
    return { ok: false, reason: `${spec.operationId}: ${exchange.failure.message}`, exchange };
  const expected = spec.expect ?? {
    status: operation.responses.map((r) => r.status).filter((status) => status >= 200 && status < 300),
  };
  const [problem] = expectationFindings(http, exchange, expected, spec.operationId);
  return problem ? { ok: false, reason: problem.message, exchange } : { ok: true, exchange };
}

/** The `id` of the object a successful step created or returned. */
export function createdId(exchange: Exchange): string | undefined {
  const id = (exchange.json as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}
