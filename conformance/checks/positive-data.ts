// Check 4, positive data: valid requests built from the contract's examples are accepted with a
// documented 2xx. Where the answer depends on the target's state (an id that does not exist there, a
// duplicate of an earlier run, the balance...), the codes the contract documents for that state are
// accepted too: the request was valid, the state was not.
import type { OperationModel } from '@payments-contract/contract/model/types';
import { bodyExamples, buildRequest, redatedNotes, stateDependentCodes } from '../data/requests.js';
import { expectationFindings } from '../expectations.js';
import { outcomeOf } from '../results.js';
import { mapPool } from '../pool.js';
import type { Check, CheckContext, CheckResult, Finding } from '../types.js';

async function checkOperation(context: CheckContext, operation: OperationModel): Promise<CheckResult> {
  const { contract, http } = context;
  const success = operation.responses.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.status);
  const stateCodes = stateDependentCodes(operation);
  const stateStatuses = operation.responses
    .filter((r) => r.errorCodes.some((code) => stateCodes.includes(code)))
    .map((r) => r.status);
  const bodies = operation.body ? bodyExamples(contract, operation) : [];
  const requests =
    bodies.length > 0
      ? bodies.map((b) => ({ what: `example "${b.name}"`, spec: buildRequest(contract, operation, { body: b.value }) }))
      : [{ what: 'request from examples', spec: buildRequest(contract, operation) }];
  const findings: Finding[] = [];
  for (const { what, spec } of requests) {
    const exchange = await http.send(spec);
    findings.push(...context.observe(operation.operationId, exchange));
    const isStateAnswer =
      stateStatuses.includes(exchange.status) &&
      stateCodes.includes(String((exchange.json as { error_code?: unknown } | undefined)?.error_code));
    if (!isStateAnswer) findings.push(...expectationFindings(http, exchange, { status: success }, `valid ${what}`));
  }
  const notes = redatedNotes(contract, bodies);
  return {
    check: 'positive_data',
    subject: operation.operationId,
    outcome: outcomeOf(findings),
    cases: requests.length,
    findings,
    ...(notes.length > 0 ? { notes } : {}),
  };
}

export const positiveData: Check = {
  name: 'positive_data',
  description: "Valid requests built from the contract's examples are accepted with a documented 2xx.",
  run: async (context) => {
    const operations = context.contract.model.operations.filter((o) =>
      context.selected('positive_data', o.operationId),
    );
    return mapPool(operations, context.options.concurrency, (operation) => checkOperation(context, operation));
  },
};
