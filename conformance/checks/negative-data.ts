// Check 3, negative data: for every declared rule of an operation's request (body and parameters), a
// request that breaks that rule alone, plus a body that is not JSON, gets the status and code the
// contract assigns to that rule, and never a 5xx. The requests and their answers are derived from the
// contract (data/negative-requests.ts). In the stateless profile the code is relaxed to any code the
// operation documents at the expected status: a stateless mock answers every invalid request with the
// first example of that status.
import type { OperationModel } from '@payments-contract/contract/model/types';
import { negativeRequests, type NegativeRequest } from '../data/negative-requests.js';
import { expectationFindings, finding } from '../expectations.js';
import type { Exchange } from '../http.js';
import type { Check, CheckContext, Finding } from '../types.js';
import { runPlans, type OperationPlan } from './plans.js';

function judge(context: CheckContext, operation: OperationModel, request: NegativeRequest, exchange: Exchange): Finding[] {
  const { http, contract, options } = context;
  const { status, errorCode, source } = request.expected;
  const extra = request.schemaPath === undefined ? {} : { schemaPath: request.schemaPath };
  if (exchange.status >= 500) return [finding(http, exchange, `${request.what}: ${exchange.status} on invalid input (expected ${status} ${errorCode} from ${source})`, extra)];
  const codes = options.profile === 'stateless' ? (contract.response(operation, status)?.errorCodes ?? [errorCode]) : errorCode;
  return expectationFindings(http, exchange, { status, errorCode: codes }, request.what).map((f) => ({ ...f, ...extra }));
}

function plan(context: CheckContext, operation: OperationModel): OperationPlan {
  const { requests, notes } = negativeRequests(context.contract, operation);
  if (context.options.profile === 'stateless' && requests.length > 0) notes.push('error codes relaxed to any code documented at the expected status (stateless profile)');
  return {
    operation,
    notes,
    skippedReason: 'the operation declares no request rule that can be broken',
    cases: requests.map((request) => ({ what: request.what, spec: request.spec, judge: (exchange) => judge(context, operation, request, exchange) })),
  };
}

export const negativeData: Check = {
  name: 'negative_data',
  description: 'Requests that break one declared rule each (required, type, length, range, enum, pattern, format, conditional rules, malformed JSON) get the status and code the contract assigns; never a 5xx.',
  run: async (context) => {
    const operations = context.contract.model.operations.filter((o) => context.selected('negative_data', o.operationId));
    return runPlans(context, 'negative_data', operations.map((operation) => plan(context, operation)));
  },
};
