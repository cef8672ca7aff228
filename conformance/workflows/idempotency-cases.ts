// The cases of the idempotency check (check 6). After one first request succeeds, each case is
// independent: a failed case records its findings and the next one still runs. Whether a request created
// something is asked of the resource's lookup operation (a GET whose query parameters are fields of the
// create body), never assumed from the answer.
import { randomBytes, randomUUID } from 'node:crypto';
import { assertNever, isObject } from '@payments-contract/contract/model';
import type { ErrorTrigger, Json, OperationModel, ParameterModel } from '@payments-contract/contract/model/types';
import { buildRequest } from '../data/requests.js';
import type { Expected } from '../expectations.js';
import type { RequestSpec } from '../http.js';
import type { Contract } from '../contract.js';
import { setPath, uniquify } from './data.js';
import { withReferences, type Provided } from './provision.js';
import { identifierField, resourceOperations, statusesOf, successStatuses, triggersOf } from './resources.js';
import { refusal, refusalWhat, StepFailed, type Scenario } from './scenario.js';
import { freshBody, lookupRequest, type WorkflowEnv } from './steps.js';

/** How many requests race with one key. */
export const CONCURRENT_REQUESTS = 10;

export interface Subject {
  operation: OperationModel;
  header: ParameterModel;
  replay?: string;
  mismatch?: string;
}

/** What every case works with once the first request succeeded. */
export interface Ground {
  s: Scenario;
  subject: Subject;
  replay: string;
  key: string;
  first: Json;
  id: unknown;
  /** A fresh valid body (new identifiers, references filled). */
  body: () => Json;
  request: (key: string | undefined, body: Json) => RequestSpec;
  idOf: (value: unknown) => unknown;
  /** What the lookup finds for a body's identifiers; undefined when the contract has no lookup. */
  created: (step: string, body: Json) => Promise<unknown[] | undefined>;
  other: (body: Json) => Json;
}

export type Case = (ground: Ground) => Promise<void>;

const listed = (g: Ground, found: unknown[]): string =>
  `${found.length} resource(s) (${found.map((item) => String(g.idOf(item))).join(', ')})`;

/** Runs a case; its failed step ends the case, not the check. */
export async function guarded(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
  }
}

/** Sends the first request with a fresh key; everything else compares with it. */
export async function firstRequest(
  s: Scenario,
  env: WorkflowEnv,
  subject: Subject,
  replay: string,
  provided: Provided,
): Promise<Ground> {
  const { operation, header } = subject;
  const contract = s.contract;
  const { lookup, read } = resourceOperations(contract, operation);
  const idField = identifierField(contract, operation, read);
  if (!lookup)
    s.notes.push(
      `the contract has no lookup for what ${operation.operationId} creates: the number of resources created is not checked`,
    );
  const ground: Omit<Ground, 'first' | 'id'> = {
    s,
    subject,
    replay,
    key: randomUUID(),
    body: () => withReferences(contract, operation, freshBody(s, env, operation), provided),
    request: (key, body) =>
      buildRequest(contract, operation, { body, ...(key === undefined ? {} : { parameters: { [header.name]: key } }) }),
    idOf: (value) => (isObject(value as Json) ? (value as Record<string, unknown>)[idField] : undefined),
    created: async (step, body) => {
      if (!lookup) return undefined;
      const exchange = await s.send(step, lookup, lookupRequest(s, lookup, body).request);
      // Nothing found is the lookup's not-found code, or an empty list.
      const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
      const notFound = triggersOf(lookup, 'not_found').some(
        ([documented]) => documented === code && statusesOf(lookup, documented).includes(exchange.status),
      );
      if (notFound) return [];
      s.judge(step, lookup, exchange, { status: successStatuses(lookup) });
      return Array.isArray(exchange.json) ? exchange.json : [exchange.json];
    },
    other: (body) => uniquify(contract, operation, body, env.unique),
  };
  const first = ground.body();
  const answer = await s.succeed('first request', operation, ground.request(ground.key, first));
  return { ...ground, first, id: ground.idOf(answer.value) };
}

/** Same key, same body: the replay answer, and still one resource. */
export const sameKeyAndBody: Case = (g) =>
  guarded(async () => {
    const step = 'same key and body';
    const { operation } = g.subject;
    const again = await g.s.send(step, operation, g.request(g.key, g.first));
    // A wrong answer is one finding; what the replay did to the target's state is another.
    g.s.verify(step, operation, again, refusal(operation, g.replay), refusalWhat(step, operation, g.replay));
    const found = await g.created(step, g.first);
    if (found)
      g.s.require(
        found.length === 1 && g.idOf(found[0]) === g.id,
        step,
        again,
        `the replayed key created another resource: the lookup answers ${listed(g, found)}, expected only ${String(g.id)}`,
      );
  });

/** Same key, another body: the mismatch code, and nothing created for the other body. */
export const otherBody: Case = (g) =>
  guarded(async () => {
    const step = 'same key, other body';
    const { operation, mismatch } = g.subject;
    if (!mismatch)
      return void g.s.notes.push(
        `${operation.operationId} documents no mismatch code (x-error-triggers kind idempotency_mismatch): a reused key with another body is not checked`,
      );
    const other = g.other(g.first);
    if (JSON.stringify(other) === JSON.stringify(g.first))
      return void g.s.notes.push(
        'the body has no identifier field to vary: a reused key with another body is not checked',
      );
    const answer = await g.s.send(step, operation, g.request(g.key, other));
    g.s.verify(step, operation, answer, refusal(operation, mismatch), refusalWhat(step, operation, mismatch));
    const found = await g.created(step, other);
    if (found)
      g.s.require(
        found.length === 0,
        step,
        answer,
        `a reused key with another body created a resource: the lookup answers ${listed(g, found)}`,
      );
  });

/** Body fields the contract attaches a rule to by name (triggers' field, fields, parameter) or selects test outcomes by. */
function ruledFields(operation: OperationModel): Set<string> {
  const names = Object.values(operation.errorTriggers).flatMap(namedFields);
  return new Set([...names, operation.testMode?.field].filter((name): name is string => typeof name === 'string'));
}

/** The fields a trigger names (its field, fields or parameter). */
function namedFields(trigger: ErrorTrigger): string[] {
  switch (trigger.when) {
    case 'not_found':
    case 'other_merchant':
      return [trigger.parameter.name];
    case 'duplicate':
      return trigger.fields;
    case 'past_timestamp':
    case 'stored_field':
    case 'not_in_catalog':
    case 'forbidden_terms':
      return [trigger.field];
    // The amount is the free number a changed body changes: a balance rule compares it, it names no other field.
    case 'insufficient_balance':
    case 'state':
    case 'merchant_setting':
    case 'idempotency_replay':
    case 'idempotency_mismatch':
    case 'otp':
    case 'upstream_unavailable':
    case 'test_mode':
      return [];
    default:
      return assertNever(trigger);
  }
}

/**
 * The body with its free numbers changed (an amount), identifiers kept: what a fingerprint must cover
 * besides the identifiers. Fields a rule of the contract names are left alone, so the change breaks nothing.
 */
export function otherValues(contract: Contract, operation: OperationModel, body: Json): Json | undefined {
  if (!isObject(body)) return undefined;
  const ruled = ruledFields(operation);
  const changed = Object.entries(body).reduce<Json>((current, [name, value]) => {
    if (typeof value !== 'number' || ruled.has(name)) return current;
    const candidate = setPath(current, name, value + 1);
    return contract.validate(operation.body?.schema ?? {}, candidate).length === 0 ? candidate : current;
  }, body);
  return JSON.stringify(changed) === JSON.stringify(body) ? undefined : changed;
}

/** Same key, same identifiers, another amount: the mismatch code, and still only the first resource. */
export const otherValuesBody: Case = (g) =>
  guarded(async () => {
    const step = 'same key, other values';
    const { operation, mismatch } = g.subject;
    if (!mismatch) return;
    const other = otherValues(g.s.contract, operation, g.first);
    if (other === undefined)
      return void g.s.notes.push(
        'the body has no free number to vary: a reused key with the same identifiers and other values is not checked',
      );
    const answer = await g.s.send(step, operation, g.request(g.key, other));
    g.s.verify(step, operation, answer, refusal(operation, mismatch), refusalWhat(step, operation, mismatch));
    const found = await g.created(step, other);
    if (found)
      g.s.require(
        found.length === 1 && g.idOf(found[0]) === g.id,
        step,
        answer,
        `a reused key with other values changed what exists: the lookup answers ${listed(g, found)}, expected only ${String(g.id)}`,
      );
  });

/** Requests racing with one fresh key: exactly one executes, the others get the replay answer. */
export const concurrentRequests: Case = (g) =>
  guarded(async () => {
    const step = 'concurrent requests';
    const { operation } = g.subject;
    const key = randomUUID();
    const body = g.body();
    const exchanges = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, () => g.s.send(step, operation, g.request(key, body))),
    );
    const winners = exchanges.filter((exchange) => successStatuses(operation).includes(exchange.status));
    const losers = exchanges.filter((exchange) => !winners.includes(exchange));
    const shown = winners[1] ?? losers[0] ?? winners[0];
    if (!shown) return;
    // Each rule is judged on its own, so one report shows every way the race went wrong.
    const single = g.s.flag(
      winners.length === 1,
      step,
      shown,
      `${CONCURRENT_REQUESTS} concurrent requests with one key: ${winners.length} succeeded, exactly one should`,
    );
    const found = await g.created(step, body);
    const winner = g.idOf(winners[0]?.json);
    const once =
      !found ||
      g.s.flag(
        found.length === 1 && g.idOf(found[0]) === winner,
        step,
        shown,
        `${CONCURRENT_REQUESTS} concurrent requests with one key: the lookup answers ${listed(g, found)}, expected only ${String(winner)}`,
      );
    const wrong = losers.filter(
      (loser) =>
        !g.s.verify(step, operation, loser, refusal(operation, g.replay), refusalWhat(step, operation, g.replay)),
    );
    if (!single || !once || wrong.length > 0) throw new StepFailed(step);
  });

const keyOfLength = (length: number): string =>
  randomBytes(Math.ceil(length / 2) + 1)
    .toString('hex')
    .slice(0, length);

/** The header's own schema: required, minLength, maxLength (and a key at maxLength is accepted). */
export const keyLimits: Case = async (g) => {
  const { operation, header } = g.subject;
  const invalid = operation.validationError;
  if (!invalid)
    return void g.s.notes.push(
      `${operation.operationId} documents no validation answer (x-validation-error): the key's limits are not checked`,
    );
  const refused: Expected = { status: invalid.status, errorCode: invalid.error_code };
  const schema = g.s.contract.deref(header.schema);
  const min = isObject(schema) && typeof schema.minLength === 'number' ? schema.minLength : undefined;
  const max = isObject(schema) && typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  if (header.required) {
    await guarded(async () => {
      const spec = g.request(undefined, g.body());
      // buildRequest fills a required header with a fresh key; this case sends none.
      const headers = Object.fromEntries(
        Object.entries(spec.headers ?? {}).filter(([name]) => name.toLowerCase() !== header.name.toLowerCase()),
      );
      await g.s.expect('no key', operation, { ...spec, headers }, refused);
    });
  }
  if (max === undefined) g.s.notes.push(`${header.name} declares no maxLength: no upper limit to check`);
  else {
    await guarded(
      async () =>
        void (await g.s.expect('key too long', operation, g.request(keyOfLength(max + 1), g.body()), refused)),
    );
    await guarded(
      async () => void (await g.s.succeed('key at the longest', operation, g.request(keyOfLength(max), g.body()))),
    );
  }
  if (min !== undefined && min > 0)
    await guarded(
      async () =>
        void (await g.s.expect('key too short', operation, g.request(keyOfLength(min - 1), g.body()), refused)),
    );
};
