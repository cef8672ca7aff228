// The cases of the idempotency_scope check: what an idempotency key belongs to and which answers use it
// up, as the operation's `x-idempotency` says (decision idempotency-key-reuse). Each case starts from the
// ground of idempotency-cases.ts (a first request that succeeded) and is independent of the others: a
// failed case records its findings and the next one still runs.
import { randomBytes, randomUUID } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import type { IdempotencyModel, Json, OperationModel } from '@payments-contract/contract/model/types';
import { expectedAnswer } from '../data/violations.js';
import { isRequestDataTrigger, triggerRequests } from '../data/trigger-requests.js';
import type { Expected } from '../expectations.js';
import type { Exchange } from '../http.js';
import type { Contract } from '../contract.js';
import type { CheckContext } from '../types.js';
import type { ForeignSide } from '../checks/isolation.js';
import { getPath, setPath, unknownIdentifier } from './data.js';
import { guarded, type Ground } from './idempotency-cases.js';
import { withReferences, type Action, type Provided } from './provision.js';
import { propertySchema, successStatuses, triggersOf } from './resources.js';
import { refusal, refusalWhat, Scenario, ScenarioSkipped } from './scenario.js';
import type { WorkflowEnv } from './steps.js';

/** How many requests with distinct keys are sent at once. */
export const DISTINCT_AT_ONCE = 4;
/** A key of the shortest length may have been used by an earlier run: this many are tried. */
const SHORTEST_TRIES = 5;

export interface ScopeGround extends Ground {
  idempotency: IdempotencyModel;
  env: WorkflowEnv;
  /** The actions that provide what the body refers to, to run again under another key. */
  setup: Action[];
  mismatch?: string;
}

const succeeded = (operation: OperationModel, exchange: Exchange): boolean =>
  successStatuses(operation).includes(exchange.status);

/** Requires a success and returns the created object's identifier. */
function createdBy(g: ScopeGround, step: string, exchange: Exchange, what: string): unknown {
  const { operation } = g.subject;
  g.s.judge(
    step,
    operation,
    exchange,
    { status: successStatuses(operation) },
    `${step}: ${what} (${operation.operationId})`,
  );
  const id = g.idOf(exchange.json);
  g.s.require(id !== undefined, step, exchange, `the ${exchange.status} answer names no created object`);
  return id;
}

/** Two requests that must each have created its own object. */
function requireDistinct(g: ScopeGround, step: string, exchange: Exchange, ids: unknown[], what: string): void {
  g.s.require(
    new Set(ids.map(String)).size === ids.length,
    step,
    exchange,
    `${what}: the answers name ${ids.map(String).join(', ')}, one object each was expected`,
  );
}

// ---- across merchants and modes -------------------------------------------------------------------------

/** A scenario with another key, whose findings and requests are counted in the ground's. */
async function withSide<T>(g: ScopeGround, side: ForeignSide, work: (s: Scenario) => Promise<T>): Promise<T> {
  const context: CheckContext = { ...g.s.context, http: side.client };
  const scenario = new Scenario(context, g.s.subject, g.s.steps);
  try {
    return await work(scenario);
  } finally {
    g.s.findings.push(...scenario.findings);
    g.s.notes.push(...scenario.notes);
    g.s.cases += scenario.cases;
  }
}

/** What the same key under another merchant or in the other mode must do, per the key's scope. */
export const otherKeyStep = (side: ForeignSide): string => `same key, ${side.label}`;
export const atOnceStep = (side: ForeignSide): string => `same key at once, ${side.label}`;

/**
 * The ground's key, sent by another merchant or in the other mode with a body whose references are that
 * key's own: a key of its own scope is another key (a new object, never the first one, never a refusal);
 * one the scope does not separate is the same key (the replay or mismatch code). Then the run's key sends
 * its first request again: still a replay of its own object. Last, a fresh key sent by both at once.
 */
export async function acrossKeys(g: ScopeGround, side: ForeignSide): Promise<void> {
  const { operation } = g.subject;
  const separate = g.idempotency.scope.includes(side.relation);
  const step = otherKeyStep(side);
  await guarded(() =>
    withSide(g, side, async (other) => {
      const provided: Provided = new Map();
      try {
        for (const action of g.setup) await action.run(other, g.env, provided);
      } catch (error) {
        if (error instanceof ScenarioSkipped)
          return void g.s.notes.push(
            `${step}: not tried, what the body refers to could not be made with ${side.label} (${error.reason})`,
          );
        throw error;
      }
      const body = withReferences(g.s.contract, operation, g.first, provided);
      const exchange = await other.send(step, operation, g.request(g.key, body));
      if (separate) {
        const id = createdBy(
          g,
          step,
          exchange,
          `the key is ${side.relation === 'merchant' ? "the merchant's" : "the mode's"} own (x-idempotency scope), so its first use there is executed`,
        );
        other.require(
          String(id) !== String(g.id),
          step,
          exchange,
          `the answer is the run's key's object ${String(g.id)}`,
        );
      } else {
        const code = JSON.stringify(body) === JSON.stringify(g.first) ? g.replay : (g.mismatch ?? g.replay);
        other.judge(step, operation, exchange, refusal(operation, code), refusalWhat(step, operation, code));
      }
      // The key's first use stays the run's key's own.
      const again = await g.s.send(step, operation, g.request(g.key, g.first));
      g.s.judge(
        step,
        operation,
        again,
        refusal(operation, g.replay),
        `${step}: afterwards the run's key sends its first request again, ${operation.operationId} should answer ${g.replay}`,
      );
      if (!separate) return;
      // Both at once, with a key neither used.
      const both = atOnceStep(side);
      const key = randomUUID();
      const [mine, theirs] = await Promise.all([
        g.s.send(both, operation, g.request(key, g.body())),
        other.send(both, operation, g.request(key, withReferences(g.s.contract, operation, g.body(), provided))),
      ]);
      const ids = [
        createdBy(g, both, mine!, "the run's key's request"),
        createdBy(g, both, theirs!, `the request of ${side.label}`),
      ];
      requireDistinct(g, both, theirs!, ids, `one key sent at once by the run's key and ${side.label}`);
    }),
  );
}

// ---- after a refused first request ----------------------------------------------------------------------

interface Refused {
  what: string;
  body: Json;
  expected: Expected & { errorCode: string };
}

/** A body with one required field left out, and the answer the contract gives it. */
function schemaRefusal(contract: Contract, operation: OperationModel, body: Json): Refused | undefined {
  const schema = operation.body?.schema;
  if (!isObject(body) || schema === undefined) return undefined;
  for (const field of Object.keys(body)) {
    const { [field]: _left, ...rest } = body;
    const errors = contract.validate(schema, rest);
    if (errors.length === 0) continue;
    const answer = expectedAnswer(operation, errors);
    if (answer)
      return {
        what: `${field} left out`,
        body: rest,
        expected: { status: answer.status, errorCode: answer.errorCode },
      };
  }
  return undefined;
}

/** The request-data rules (a value not in a catalog...) broken in a body otherwise valid, with their codes. */
function dataRefusals(contract: Contract, operation: OperationModel, body: Json): Refused[] {
  return triggerRequests(contract, operation).requests.flatMap((request) => {
    const code = String(request.expected.errorCode);
    const trigger = operation.errorTriggers[code];
    const field = trigger && isRequestDataTrigger(trigger) ? trigger.field : undefined;
    const sent = request.spec.body ? (JSON.parse(request.spec.body.text) as Json) : undefined;
    const value = field === undefined ? undefined : getPath(sent, field);
    if (field === undefined || value === undefined) return [];
    const broken = setPath(body, field, value);
    return contract.validate(operation.body?.schema ?? {}, broken).length === 0
      ? [
          {
            what: `${field} ${JSON.stringify(value)}`,
            body: broken,
            expected: { status: request.expected.status, errorCode: code },
          },
        ]
      : [];
  });
}

/** A body naming an object that does not exist (`not_found` in the body). */
function unknownReferences(contract: Contract, operation: OperationModel, body: Json): Refused[] {
  return triggersOf(operation, 'not_found').flatMap(([code, trigger]) => {
    const parameter = trigger.parameter;
    if (!isObject(parameter) || parameter.in !== 'body' || typeof parameter.name !== 'string') return [];
    const current = getPath(body, parameter.name);
    if (typeof current !== 'string') return [];
    const value = unknownIdentifier(
      contract,
      propertySchema(contract, operation.body?.schema, parameter.name),
      current,
    );
    return [
      {
        what: `${parameter.name} naming nothing`,
        body: setPath(body, parameter.name, value),
        expected: refusal(operation, code) as Expected & { errorCode: string },
      },
    ];
  });
}

/** Every refusal of the first request the suite can cause from the contract's data. */
export function refusals(contract: Contract, operation: OperationModel, body: Json): Refused[] {
  const schema = schemaRefusal(contract, operation, body);
  return [
    ...(schema ? [schema] : []),
    ...dataRefusals(contract, operation, body),
    ...unknownReferences(contract, operation, body),
  ];
}

export const refusedStep = (refused: Refused): string =>
  `refused first (${refused.expected.errorCode}, ${refused.what}), then a valid retry`;

/**
 * A fresh key whose first request is refused, then the valid request with the same key: a refusal the
 * contract remembers (`remembered_refusals`) makes the retry the mismatch code and creates nothing; any
 * other leaves the key unused, so the retry is executed.
 */
export async function afterRefusal(g: ScopeGround, refused: Refused): Promise<void> {
  const step = refusedStep(refused);
  const { operation } = g.subject;
  await guarded(async () => {
    const key = randomUUID();
    await g.s.expect(step, operation, g.request(key, refused.body), refused.expected);
    const valid = g.body();
    const retry = await g.s.send(step, operation, g.request(key, valid));
    if (g.idempotency.rememberedRefusals.includes(refused.expected.errorCode)) {
      const code = g.mismatch ?? g.replay;
      g.s.judge(
        step,
        operation,
        retry,
        refusal(operation, code),
        `${step}: ${refused.expected.errorCode} uses up the key (x-idempotency remembered_refusals), so ${operation.operationId} should answer ${code}`,
      );
      const found = await g.created(step, valid);
      if (found)
        g.s.require(found.length === 0, step, retry, `the retry with a used-up key created ${found.length} object(s)`);
      return;
    }
    createdBy(g, step, retry, `${refused.expected.errorCode} does not use up the key, so the valid retry is executed`);
  });
}

// ---- shapes of key --------------------------------------------------------------------------------------

export interface KeyShape {
  min: number;
  max?: number;
  /** Characters the key's schema allows inside a key (space included, never at an end). */
  characters: string[];
}

/** What keys the header's schema allows. */
export function keyShape(contract: Contract, schema: Json): KeyShape {
  const resolved = contract.deref(schema);
  const min = isObject(resolved) && typeof resolved.minLength === 'number' ? Math.max(1, resolved.minLength) : 1;
  const max = isObject(resolved) && typeof resolved.maxLength === 'number' ? resolved.maxLength : undefined;
  const pad = 'k'.repeat(Math.max(0, min - 3));
  const characters = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).filter(
    (c) => contract.validate(schema, `k${c}${pad}k`).length === 0,
  );
  return { min, ...(max === undefined ? {} : { max }), characters };
}

const randomFrom = (characters: string[], length: number): string =>
  Array.from(randomBytes(length), (byte) => characters[byte % characters.length]).join('');

/** Sends a key's first request (it must be executed) and the same again (it must be the replay). */
async function honoured(g: ScopeGround, step: string, key: string): Promise<unknown> {
  const { operation } = g.subject;
  const body = g.body();
  const id = createdBy(
    g,
    step,
    await g.s.send(step, operation, g.request(key, body)),
    `a first use of a key its schema allows`,
  );
  const again = await g.s.send(step, operation, g.request(key, body));
  g.s.judge(
    step,
    operation,
    again,
    refusal(operation, g.replay),
    `${step}: the same key and body again, ${operation.operationId} should answer ${g.replay}`,
  );
  return id;
}

export const SHAPE_STEPS = [
  'shortest key',
  'every allowed character',
  'longest keys differing in the last character',
  'keys differing in letter case',
];

/** Keys of every shape the schema allows are each honoured, and keys that differ anywhere are different keys. */
export async function keyShapes(g: ScopeGround): Promise<void> {
  const { operation } = g.subject;
  const shape = keyShape(g.s.contract, g.subject.header.schema);
  const inner = shape.characters.filter((c) => c !== ' ');
  if (inner.length === 0)
    return void g.s.notes.push(
      `${g.subject.header.name}: its schema allows no character the suite could find, so the shapes of key are not checked`,
    );
  const [shortest, every, longest, letterCase] = SHAPE_STEPS as [string, string, string, string];
  await guarded(async () => {
    // A key this short may have been used by an earlier run against the same target: another is tried then.
    for (let tried = 0; tried < SHORTEST_TRIES; tried++) {
      const key = randomFrom(inner, shape.min);
      const exchange = await g.s.send(shortest, operation, g.request(key, g.body()));
      const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
      if (!succeeded(operation, exchange) && (code === g.replay || code === g.mismatch)) continue;
      createdBy(g, shortest, exchange, `a key of ${shape.min} character(s)`);
      const again = await g.s.send(shortest, operation, g.request(key, g.body()));
      return void g.s.judge(
        shortest,
        operation,
        again,
        refusal(operation, g.mismatch ?? g.replay),
        `${shortest}: the key again with another body, ${operation.operationId} should answer ${g.mismatch ?? g.replay}`,
      );
    }
    g.s.notes.push(`${shortest}: every key of ${shape.min} character(s) tried was used before; not judged`);
  });
  await guarded(async () => {
    const text = shape.characters.join('');
    const key = `${randomUUID()}${text}`.slice(0, shape.max ?? Infinity).trim();
    await honoured(g, every, key);
  });
  await guarded(async () => {
    if (shape.max === undefined)
      return void g.s.notes.push(`${longest}: ${g.subject.header.name} declares no maxLength`);
    const stem = `${randomUUID()}${randomFrom(inner, shape.max)}`.slice(0, shape.max - 1);
    const [a, b] = inner.slice(0, 2);
    if (b === undefined) return;
    const first = await honoured(g, longest, `${stem}${a}`);
    const exchange = await g.s.send(longest, operation, g.request(`${stem}${b}`, g.body()));
    const second = createdBy(
      g,
      longest,
      exchange,
      `a key of ${shape.max} characters differing from a used one only in its last`,
    );
    requireDistinct(g, longest, exchange, [first, second], 'two keys differing in the last character');
  });
  await guarded(async () => {
    const letters = inner.filter(
      (c) => /[a-z]/i.test(c) && inner.includes(c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()),
    );
    if (letters.length === 0)
      return void g.s.notes.push(`${letterCase}: the key's schema allows no letter in both cases`);
    const key = `${randomFrom(
      letters.map((c) => c.toLowerCase()),
      12,
    )}${randomFrom(
      letters.map((c) => c.toUpperCase()),
      12,
    )}`;
    const swapped = [...key].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    const first = createdBy(
      g,
      letterCase,
      await g.s.send(letterCase, operation, g.request(key, g.body())),
      'a fresh key',
    );
    const exchange = await g.s.send(letterCase, operation, g.request(swapped, g.body()));
    const second = createdBy(
      g,
      letterCase,
      exchange,
      'the same key in the other letter case (x-idempotency comparison exact)',
    );
    requireDistinct(g, letterCase, exchange, [first, second], 'two keys differing only in letter case');
  });
}

// ---- at once --------------------------------------------------------------------------------------------

export const DISTINCT_STEP = 'distinct keys at once';

/** Requests with distinct keys sent at once each create their own object. */
export async function distinctKeysAtOnce(g: ScopeGround): Promise<void> {
  const { operation } = g.subject;
  await guarded(async () => {
    const exchanges = await Promise.all(
      Array.from({ length: DISTINCT_AT_ONCE }, () =>
        g.s.send(DISTINCT_STEP, operation, g.request(randomUUID(), g.body())),
      ),
    );
    const ids = exchanges.map((exchange) => createdBy(g, DISTINCT_STEP, exchange, 'one of several keys sent at once'));
    requireDistinct(g, DISTINCT_STEP, exchanges[0]!, ids, `${DISTINCT_AT_ONCE} distinct keys sent at once`);
  });
}
