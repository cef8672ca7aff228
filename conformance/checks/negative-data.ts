// Check 3, negative data: for every declared rule of an operation's request (body and parameters), a
// request that breaks that rule alone, plus a body that is not JSON, gets the status and code the
// contract assigns to that rule, and never a 5xx. The requests and their answers are derived from the
// contract (data/negative-requests.ts). In the stateless profile the code is relaxed to any code the
// operation documents at the expected status: a stateless mock answers every invalid request with the
// first example of that status. Against a target that keeps state, the request-data rules of the
// operation's x-error-triggers (a past timestamp, a forbidden term, a value outside a catalog) are broken
// too (data/trigger-requests.ts); a stateless mock implements none of them, so they are not sent there.
import type { OperationModel } from '@payments-contract/contract/model/types';
import { negativeRequests, type NegativeRequest } from '../data/negative-requests.js';
import { isRequestDataTrigger, triggerRequests } from '../data/trigger-requests.js';
import { expectationFindings, finding } from '../expectations.js';
import type { Exchange } from '../http.js';
import type { Check, CheckContext, Finding } from '../types.js';
import { runPlans, type OperationPlan } from './plans.js';

function judge(
  context: CheckContext,
  operation: OperationModel,
  request: NegativeRequest,
  exchange: Exchange,
): Finding[] {
  const { http, contract, options } = context;
  const { status, errorCode, source } = request.expected;
  const extra = request.schemaPath === undefined ? {} : { schemaPath: request.schemaPath };
  if (exchange.status >= 500)
    return [
      finding(
        http,
        exchange,
        `${request.what}: ${exchange.status} on invalid input (expected ${status} ${errorCode} from ${source})`,
        extra,
      ),
    ];
  const setting = refusingSetting(operation, exchange);
  // The target's configuration answered before the rule could be reached: not a fault, but the rule was not exercised.
  if (source === 'x-error-triggers' && setting !== undefined)
    return [
      {
        ...finding(
          http,
          exchange,
          `${request.what}: the target's ${setting} refused the request first, so ${errorCode} was not exercised`,
          extra,
        ),
        severity: 'warning',
      },
    ];
  const codes =
    options.profile === 'stateless' ? (contract.response(operation, status)?.errorCodes ?? [errorCode]) : errorCode;
  return expectationFindings(http, exchange, { status, errorCode: codes }, request.what).map((f) => ({
    ...f,
    ...extra,
  }));
}

/** The merchant setting whose documented code the answer is (`x-error-triggers` kind `merchant_setting`), if it is one. */
function refusingSetting(operation: OperationModel, exchange: Exchange): string | undefined {
  const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
  const trigger = typeof code === 'string' ? operation.errorTriggers[code] : undefined;
  if (
    trigger?.when !== 'merchant_setting' ||
    !operation.responses.some((r) => r.status === exchange.status && r.errorCodes.includes(String(code)))
  )
    return undefined;
  return `setting ${trigger.setting}`;
}

function plan(context: CheckContext, operation: OperationModel): OperationPlan {
  const { requests, notes } = negativeRequests(context.contract, operation);
  if (context.options.profile === 'stateless') {
    if (requests.length > 0)
      notes.push('error codes relaxed to any code documented at the expected status (stateless profile)');
    const kinds = new Set(
      Object.values(operation.errorTriggers)
        .filter(isRequestDataTrigger)
        .map((trigger) => trigger.when),
    );
    if (kinds.size > 0)
      notes.push(
        `request-data rules (x-error-triggers ${[...kinds].join(', ')}): not tested, a stateless target implements none (stateless profile)`,
      );
  } else {
    const triggered = triggerRequests(context.contract, operation);
    requests.push(...triggered.requests);
    notes.push(...triggered.notes);
  }
  return {
    operation,
    notes,
    skippedReason: 'the operation declares no request rule that can be broken',
    notApplicable: true,
    cases: requests.map((request) => ({
      what: request.what,
      spec: request.spec,
      judge: (exchange) => judge(context, operation, request, exchange),
    })),
  };
}

export const negativeData: Check = {
  name: 'negative_data',
  description:
    'Requests that break one declared rule each (required, type, length, range, enum, pattern, format, conditional rules, malformed JSON; against a stateful target also the request-data rules of x-error-triggers: past timestamps, forbidden terms, values outside a catalog) get the status and code the contract assigns; never a 5xx.',
  run: async (context) => {
    const operations = context.contract.model.operations.filter((o) =>
      context.selected('negative_data', o.operationId),
    );
    return runPlans(
      context,
      'negative_data',
      operations.map((operation) => plan(context, operation)),
    );
  },
};
