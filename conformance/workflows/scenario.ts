// A scenario is a script of requests against one target whose steps depend on earlier answers (a
// workflow, or the set-up and cases of an idempotency check). Every exchange is judged by check 1
// (context.observe); a step whose answer is not what the contract prescribes stops the scenario, and the
// steps it did not reach are named, so a report shows where a workflow broke.
import type { ErrorTrigger, Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { assertNever, isObject } from '@payments-contract/contract/model';
import { expectationFindings, finding, type Expected } from '../expectations.js';
import type { Exchange, RequestSpec } from '../http.js';
import { outcomeOf } from '../results.js';
import type { CheckContext, CheckName, CheckResult, Finding } from '../types.js';
import { statusesOf, successStatuses } from './resources.js';

/** Thrown to stop a scenario after a failed step (its finding is already recorded). */
export class StepFailed extends Error {}

/** Thrown when the target cannot exercise the scenario (its configuration, or the contract lacks a piece). */
export class ScenarioSkipped extends Error {
  constructor(
    readonly reason: string,
    /** The contract gives the scenario nothing to try, rather than the target or the run lacking something. */
    readonly notApplicable = false,
  ) {
    super(reason);
  }
}

/**
 * What of the target's configuration, not its behaviour (a setting, a balance), the trigger's refusal is due to;
 * undefined if none.
 */
function configurationRefusal(trigger: ErrorTrigger): string | undefined {
  switch (trigger.when) {
    case 'merchant_setting':
      return `merchant_setting (${trigger.setting})`;
    case 'insufficient_balance':
      return 'insufficient_balance';
    case 'not_found':
    case 'other_merchant':
    case 'duplicate':
    case 'state':
    case 'past_timestamp':
    case 'stored_field':
    case 'not_in_catalog':
    case 'forbidden_terms':
    case 'idempotency_replay':
    case 'idempotency_mismatch':
    case 'otp':
    case 'upstream_unavailable':
    case 'test_mode':
      return undefined;
    default:
      return assertNever(trigger);
  }
}

/** The answer the contract documents for a code: the code, at the statuses where the operation lists it. */
export function refusal(operation: OperationModel, code: string): Expected {
  return { status: statusesOf(operation, code), errorCode: code };
}

export const refusalWhat = (step: string, operation: OperationModel, code: string): string =>
  `${step}: ${operation.operationId} should answer ${code}`;

export interface Answer {
  exchange: Exchange;
  value: Json;
}

export class Scenario {
  readonly findings: Finding[] = [];
  /** What a reader needs to trust the outcome (cases that do not apply, what was not observable). */
  readonly notes: string[] = [];
  cases = 0;
  private lastStep: string | undefined;

  constructor(
    readonly context: CheckContext,
    readonly subject: string,
    /** The steps in order, for naming those not reached. */
    readonly steps: readonly string[],
  ) {}

  get contract(): CheckContext['contract'] {
    return this.context.contract;
  }

  /** Sends one request of the operation and has check 1 judge the answer. */
  async send(step: string, operation: OperationModel, request: RequestSpec): Promise<Exchange> {
    this.lastStep = step;
    this.cases++;
    const exchange = await this.context.http.send(request);
    this.findings.push(...this.context.observe(operation.operationId, exchange));
    return exchange;
  }

  /** Sends and requires the expected answer; stops the scenario otherwise. */
  async expect(step: string, operation: OperationModel, request: RequestSpec, expected: Expected): Promise<Exchange> {
    const exchange = await this.send(step, operation, request);
    return this.judge(step, operation, exchange, expected);
  }

  /** Requires an exchange already sent to be the expected answer. */
  judge(
    step: string,
    operation: OperationModel,
    exchange: Exchange,
    expected: Expected,
    what = `${step} (${operation.operationId})`,
  ): Exchange {
    if (!this.verify(step, operation, exchange, expected, what)) throw new StepFailed(step);
    return exchange;
  }

  /** Records whether an exchange is the expected answer, without stopping the scenario. */
  verify(
    step: string,
    operation: OperationModel,
    exchange: Exchange,
    expected: Expected,
    what = `${step} (${operation.operationId})`,
  ): boolean {
    this.lastStep = step;
    // No answer at all: check 1 has reported why (timeout, refused connection...).
    if (exchange.status === 0) return false;
    this.skipOnConfiguration(operation, exchange, expected);
    const findings = expectationFindings(this.context.http, exchange, expected, what);
    this.findings.push(...findings);
    return findings.length === 0;
  }

  /** Sends a request that must succeed, and returns the answer with its JSON body. */
  async succeed(step: string, operation: OperationModel, request: RequestSpec): Promise<Answer> {
    const exchange = await this.expect(step, operation, request, { status: successStatuses(operation) });
    if (exchange.json === undefined)
      this.fail(step, exchange, `${step}: the ${exchange.status} answer has no JSON body`);
    return { exchange, value: exchange.json as Json };
  }

  /** Sends a request that the contract says is answered with `code`, at the status it documents for it. */
  async reject(step: string, operation: OperationModel, request: RequestSpec, code: string): Promise<Exchange> {
    const exchange = await this.send(step, operation, request);
    return this.judge(step, operation, exchange, refusal(operation, code), refusalWhat(step, operation, code));
  }

  /** Records a failed expectation about an answer and stops the scenario. */
  fail(step: string, exchange: Exchange, message: string, extra: Partial<Finding> = {}): never {
    this.findings.push(finding(this.context.http, exchange, message, extra));
    throw new StepFailed(step);
  }

  /** Requires a condition on an answer. */
  require(condition: boolean, step: string, exchange: Exchange, message: string): void {
    if (!this.flag(condition, step, exchange, message)) throw new StepFailed(step);
  }

  /** Records a failed condition on an answer without stopping the scenario; returns the condition. */
  flag(condition: boolean, step: string, exchange: Exchange, message: string): boolean {
    if (!condition) this.findings.push(finding(this.context.http, exchange, `${step}: ${message}`));
    return condition;
  }

  /** The answer's body as an object. */
  object(step: string, answer: Answer): JsonObject {
    if (!isObject(answer.value)) this.fail(step, answer.exchange, `${step}: expected a JSON object`);
    return answer.value;
  }

  /** The answer's body as a list. */
  list(step: string, answer: Answer): Json[] {
    if (!Array.isArray(answer.value)) this.fail(step, answer.exchange, `${step}: expected a JSON array`);
    return answer.value;
  }

  /** A string field of an object answer (an identifier the next steps need). */
  text(step: string, answer: Answer, field: string): string {
    const value = this.object(step, answer)[field];
    if (typeof value !== 'string' || value === '')
      this.fail(step, answer.exchange, `${step}: the answer has no ${field}`);
    return value;
  }

  /** Stops a scenario that cannot run here (a control API, a clock, a setting missing): the run is then incomplete. */
  skip(reason: string): never {
    throw new ScenarioSkipped(reason);
  }

  /** Stops a scenario the contract gives nothing to try (no such state machine, no example): not a gap in the run. */
  notApplicable(reason: string): never {
    throw new ScenarioSkipped(reason, true);
  }

  /** A documented refusal because of the target's settings or balance means the scenario cannot run there. */
  private skipOnConfiguration(operation: OperationModel, exchange: Exchange, expected: Expected): void {
    const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
    if (typeof code !== 'string') return;
    const expectedCodes = expected.errorCode === undefined ? [] : [expected.errorCode].flat();
    const trigger = operation.errorTriggers[code];
    if (!trigger || expectedCodes.includes(code)) return;
    const refusedBy = configurationRefusal(trigger);
    if (refusedBy === undefined || !statusesOf(operation, code).includes(exchange.status)) return;
    this.skip(
      `${operation.operationId} answered ${code}: the target's ${refusedBy} refuses the request this scenario needs`,
    );
  }

  notReached(): string[] {
    const index = this.lastStep === undefined ? -1 : this.steps.indexOf(this.lastStep);
    return this.steps.slice(index + 1);
  }
}

/** Runs a scenario to its end or its first failed step, and turns it into a result. */
export async function runScenario(
  context: CheckContext,
  check: CheckName,
  subject: string,
  steps: readonly string[],
  script: (scenario: Scenario) => Promise<void>,
): Promise<CheckResult> {
  const scenario = new Scenario(context, subject, steps);
  const result = (extra: Partial<CheckResult>): CheckResult => ({
    check,
    subject,
    outcome: outcomeOf(scenario.findings),
    cases: scenario.cases,
    findings: scenario.findings,
    ...(scenario.notes.length > 0 ? { notes: scenario.notes } : {}),
    ...extra,
  });
  try {
    await script(scenario);
    return result({});
  } catch (error) {
    if (error instanceof ScenarioSkipped) {
      const failed = outcomeOf(scenario.findings) === 'failed';
      return result({
        outcome: failed ? 'failed' : 'skipped',
        skippedReason: error.reason,
        ...(error.notApplicable && !failed ? { notApplicable: true } : {}),
      });
    }
    if (!(error instanceof StepFailed)) {
      // A bug or an unforeseen answer shape must not end the run: it is this subject's failure.
      scenario.findings.push({
        severity: 'failure',
        message: `${subject}: the scenario stopped unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    const missed = scenario.notReached();
    const last = scenario.findings.at(-1);
    if (last && missed.length > 0) last.message += ` (steps not reached: ${missed.join(', ')})`;
    return result({ outcome: 'failed' });
  }
}
