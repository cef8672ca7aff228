// Runs checks made of independent requests (auth, negative data): every case of every selected
// operation goes into one pool, so a slow operation does not hold the others back, and the findings are
// gathered back per operation. Every response also goes through check 1 (`observe`).
import type { OperationModel } from '@payments-contract/contract/model/types';
import type { Exchange, HttpClient, RequestSpec } from '../http.js';
import { mapPool } from '../pool.js';
import { outcomeOf } from '../results.js';
import type { CheckContext, CheckName, CheckResult, Finding } from '../types.js';

export interface RequestCase {
  /** What the case sends, for findings ("no key", "body /amount: below the minimum 1"). */
  what: string;
  spec: RequestSpec;
  /** The client that sends it, when not the run's own (another key's: see HttpClient.withKey). */
  client?: HttpClient;
  /** Findings when the answer is not what the contract prescribes for this request. */
  judge: (exchange: Exchange) => Finding[];
}

export interface OperationPlan {
  operation: OperationModel;
  cases: RequestCase[];
  /** Cases not run here and why (shown in reports, not counted). */
  notes: string[];
  /** Why the operation has nothing to check, when it has not; the result is then `skipped`. */
  skippedReason?: string;
  /** The reason says the operation offers nothing to try (not that a case could not be sent): see CheckResult.notApplicable. */
  notApplicable?: true;
}

export async function runPlans(
  context: CheckContext,
  check: CheckName,
  plans: OperationPlan[],
): Promise<CheckResult[]> {
  const work = plans.flatMap((plan, index) => plan.cases.map((item) => ({ index, item })));
  const found = await mapPool(work, context.options.concurrency, async ({ index, item }) => {
    const exchange = await (item.client ?? context.http).send(item.spec);
    const operationId = plans[index]?.operation.operationId as string;
    return { index, findings: [...context.observe(operationId, exchange), ...item.judge(exchange)] };
  });
  return plans.map((plan, index) => {
    const findings = found.filter((f) => f.index === index).flatMap((f) => f.findings);
    const notes = plan.notes.length > 0 ? { notes: plan.notes } : {};
    if (plan.cases.length === 0) {
      return {
        check,
        subject: plan.operation.operationId,
        outcome: 'skipped',
        cases: 0,
        findings,
        skippedReason: plan.skippedReason ?? 'no case applies to this operation',
        ...(plan.notApplicable ? { notApplicable: true } : {}),
        ...notes,
      };
    }
    return {
      check,
      subject: plan.operation.operationId,
      outcome: outcomeOf(findings),
      cases: plan.cases.length,
      findings,
      ...notes,
    };
  });
}
