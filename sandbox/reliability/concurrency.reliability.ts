// Races: many identical creations at once must create one resource. For every operation with an idempotency
// header, requests sharing one key; for every creation whose contract names a duplicate rule (a unique value
// such as external_id), requests sharing that value. Exactly one succeeds, every other gets the code the
// contract documents (the replay or the duplicate code), and the resource's lookup finds one. What the
// requests refer to (a customer, a payment method...) is provided first by the conformance suite's planning.
import { describe, expect, it } from 'vitest';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import {
  buildRequest,
  type CheckResult,
  DEFAULT_WORKFLOW_SETTINGS,
  type Exchange,
  firstRequest,
  freshBody,
  getPath,
  isIdempotencyHeader,
  lookupRequest,
  planReferences,
  type Provided,
  refusal,
  refusalWhat,
  type RequestSpec,
  resourceOperations,
  runScenario,
  type Scenario,
  setPath,
  successStatuses,
  triggersOf,
  UniqueValues,
  withReferences,
  type WorkflowEnv,
} from '@payments-contract/conformance/testing';
import { findingLines, liveContext } from './live-conformance.js';
import { figures, summaryLine } from './scale.js';
import { STORE_KINDS } from '../store/open-store.js';
import { useSandbox } from './fixtures.js';

interface RaceFigures {
  subject: string;
  sent: number;
  succeeded: number;
  /** Answered with the code the contract documents for the race (replay or duplicate), at its status. */
  refused: number;
  other: number;
  /** What the lookup finds afterwards; undefined when the contract has no lookup for the resource. */
  found?: number;
  /** Whether what the lookup finds is the resource the successful request created. */
  foundIsWinner?: boolean;
}

/** Sends `request` `count` times at once and sorts the answers; every answer is also judged by check 1. */
async function race(
  s: Scenario,
  operation: OperationModel,
  request: () => RequestSpec,
  count: number,
  code: string,
  subject: string,
): Promise<{ figures: RaceFigures; winners: Exchange[] }> {
  const exchanges = await Promise.all(Array.from({ length: count }, () => s.send(subject, operation, request())));
  const winners = exchanges.filter((exchange) => successStatuses(operation).includes(exchange.status));
  const losers = exchanges.filter((exchange) => !winners.includes(exchange));
  const refused = losers.filter((loser) =>
    s.verify(subject, operation, loser, refusal(operation, code), refusalWhat(subject, operation, code)),
  ).length;
  return {
    figures: { subject, sent: count, succeeded: winners.length, refused, other: losers.length - refused },
    winners,
  };
}

/** How many resources the operation's lookup finds for a body's identifiers (undefined without a lookup). */
async function lookupCount(
  s: Scenario,
  operation: OperationModel,
  body: Json,
  step: string,
): Promise<number | undefined> {
  const lookup = resourceOperations(s.contract, operation).lookup;
  if (!lookup) return undefined;
  const exchange = await s.send(step, lookup, lookupRequest(s, lookup, body).request);
  if (!successStatuses(lookup).includes(exchange.status)) return 0;
  return Array.isArray(exchange.json) ? exchange.json.length : 1;
}

/** A string of digits plus one, its length kept ("0041" -> "0042"); other values as they are. */
const nextValue = (value: Json | undefined): Json =>
  typeof value === 'string' && /^\d+$/.test(value)
    ? (BigInt(value) + 1n).toString().padStart(value.length, '0')
    : (value ?? null);

/**
 * The value an answer gives for a request field: under the same name, or under the longest ending of it at
 * a `_` (a request's `virtual_account_number` is its answer's `account_number`).
 */
function answered(answer: Json, field: string): Json | undefined {
  const names = field.split('_').map((_, i, parts) => parts.slice(i).join('_'));
  return names.map((name) => getPath(answer, name)).find((value) => value !== undefined);
}

/**
 * A fresh body that sends the fields of the duplicate rule. Where the example leaves them to the service (a
 * virtual account number it picks within the merchant's range), one creation shows a value the service
 * accepts, and the race takes the next one.
 */
async function withUniqueFields(
  s: Scenario,
  env: WorkflowEnv,
  operation: OperationModel,
  fields: string[],
  step: string,
): Promise<Json> {
  const body = freshBody(s, env, operation);
  if (fields.every((field) => getPath(body, field) !== undefined)) return body;
  const created = await s.succeed(
    step,
    operation,
    buildRequest(s.contract, operation, { body: freshBody(s, env, operation) }),
  );
  const last = fields.at(-1) ?? '';
  return fields.reduce<Json>(
    (current, field) =>
      setPath(
        current,
        field,
        field === last ? nextValue(answered(created.value, field)) : (answered(created.value, field) ?? null),
      ),
    body,
  );
}

describe.each(STORE_KINDS)('races on the %s store', (store) => {
  const started = useSandbox({ store });

  it(`creates one resource from ${figures.raceSize} concurrent requests with one idempotency key, or one unique value`, async () => {
    const { sandbox, receiver } = started;
    const context = liveContext({ baseUrl: sandbox.url, key: 'aTest', callbackUrl: receiver.publicUrl });
    const contract = context.contract;
    const env: WorkflowEnv = { unique: new UniqueValues(contract), settings: DEFAULT_WORKFLOW_SETTINGS };
    const raced: RaceFigures[] = [];
    const results: CheckResult[] = [];

    // Same key: every operation with an idempotency header and a documented replay code.
    for (const operation of contract.model.operations) {
      const header = operation.parameters.find(isIdempotencyHeader);
      const replay = header
        ? triggersOf(operation, 'idempotency_replay').find(
            ([, trigger]) => String(trigger.header).toLowerCase() === header.name.toLowerCase(),
          )?.[0]
        : undefined;
      if (!header || !replay) continue;
      const subject = `${operation.operationId} same ${header.name}`;
      results.push(
        await runScenario(context, 'idempotency', subject, [], async (s) => {
          const provided: Provided = new Map();
          for (const action of planReferences(contract, operation)) await action.run(s, env, provided);
          const ground = await firstRequest(s, env, { operation, header, replay }, replay, provided);
          const key = `race-${env.unique.tag}-${operation.operationId}`;
          const body = ground.body();
          const { figures: counts, winners } = await race(
            s,
            operation,
            () => ground.request(key, body),
            figures.raceSize,
            replay,
            subject,
          );
          const found = await ground.created(subject, body);
          const winner = ground.idOf(winners[0]?.json);
          raced.push({
            ...counts,
            ...(found
              ? { found: found.length, foundIsWinner: found.every((item) => ground.idOf(item) === winner) }
              : {}),
          });
        }),
      );
    }

    // Same value: every creation with a duplicate rule, its unique fields the same in every request.
    for (const operation of contract.model.operations) {
      const duplicate = triggersOf(operation, 'duplicate')[0]?.[0];
      if (operation.method !== 'post' || !duplicate || operation.parameters.some((p) => p.in === 'path')) continue;
      const fields = triggersOf(operation, 'duplicate')[0]?.[1].fields;
      const subject = `${operation.operationId} same ${Array.isArray(fields) ? fields.join(' and ') : 'value'}`;
      results.push(
        await runScenario(context, 'idempotency', subject, [], async (s) => {
          const provided: Provided = new Map();
          for (const action of planReferences(contract, operation)) await action.run(s, env, provided);
          const body = withReferences(
            contract,
            operation,
            await withUniqueFields(s, env, operation, Array.isArray(fields) ? fields.map(String) : [], subject),
            provided,
          );
          const { figures: counts } = await race(
            s,
            operation,
            () => buildRequest(contract, operation, { body }),
            figures.raceSize,
            duplicate,
            subject,
          );
          const found = await lookupCount(s, operation, body, subject);
          raced.push({ ...counts, ...(found === undefined ? {} : { found }) });
        }),
      );
    }

    const findings = results.flatMap((result) => result.findings.filter((finding) => finding.severity === 'failure'));
    const wrong = raced.filter(
      (r) =>
        r.succeeded !== 1 || r.other !== 0 || (r.found !== undefined && r.found !== 1) || r.foundIsWinner === false,
    );
    console.log(
      summaryLine(`races (${store} store)`, {
        subjects: raced.length,
        'requests each': figures.raceSize,
        duplicates: raced.reduce((sum, r) => sum + Math.max(0, r.succeeded - 1) + Math.max(0, (r.found ?? 1) - 1), 0),
        'wrong races': wrong.length,
        findings: findings.length,
      }),
    );
    for (const r of raced)
      console.log(
        `  ${r.subject}: sent=${r.sent} succeeded=${r.succeeded} refused-as-documented=${r.refused} other=${r.other} found=${r.found ?? 'no lookup'}`,
      );
    for (const line of findingLines(findings)) console.log(`  ${line}`);
    for (const result of results.filter((r) => r.outcome === 'skipped'))
      console.log(`  skipped ${result.subject}: ${result.skippedReason}`);

    expect(results.filter((r) => r.outcome === 'skipped').map((r) => `${r.subject}: ${r.skippedReason}`)).toEqual([]);
    expect(raced.length, 'races run').toBe(results.length);
    expect(wrong, 'races that did not create exactly one resource').toEqual([]);
    expect(findingLines(findings)).toEqual([]);
  });
});
