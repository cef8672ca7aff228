// Check `boundaries`: the allowed side of every line a request schema draws. For every numeric and length
// bound (minimum, maximum, exclusive ones, minLength, maxLength, minItems, maxItems) of every request schema,
// a request whose value sits exactly at the bound on its allowed side is accepted (2xx); for every rule under
// a condition (a per-bank amount limit, a BCA account number's digits), a request that breaks the rule where
// its condition does not hold (another bank) is accepted too. negative_data sends the values just outside;
// both come from one derivation (data/violations.ts). Each request is a fresh resource with identifiers
// unique to the run, its references provided, and, for an operation on an existing resource, a resource
// created for it; a refusal the contract ties to the target's settings or balance skips that case.
import { randomInt } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { fromWire } from '../data/negative-requests.js';
import { bodyExamples, buildRequest, parameterValue } from '../data/requests.js';
import { collectHints } from '../data/synthesize.js';
import { deriveAdmissible, getAt, setAt, type Admissible } from '../data/violations.js';
import { mapPool } from '../pool.js';
import { mergeBySubject } from '../results.js';
import type { Exchange } from '../http.js';
import type { Check, CheckContext, CheckResult } from '../types.js';
import { identifierFields, UniqueValues, uniquify, withFutureTime } from '../workflows/data.js';
import { expiryField, machineForResource } from '../workflows/machines.js';
import { planReferences, withReferences, type Provided } from '../workflows/provision.js';
import {
  bodyReferences,
  normalizePath,
  parentPath,
  resourceKind,
  schemaProperties,
  statusesOf,
  successStatuses,
  triggersOf,
} from '../workflows/resources.js';
import { runScenario, type Scenario } from '../workflows/scenario.js';
import { createdId, DEFAULT_WORKFLOW_SETTINGS, type WorkflowEnv } from '../workflows/steps.js';

interface BoundaryCase {
  operation: OperationModel;
  what: string;
  /** A body value, or one parameter's value. */
  body?: Json;
  parameter?: { name: string; value: string };
  /** JSON Pointer of the value at the line (for keeping it while identifiers are made unique). */
  at: string;
}

/** A body field's dotted path (`address.city`) as the JSON Pointer a rule's instance path gives (`/address/city`). */
const pointerOf = (field: string): string => `/${field.split('.').join('/')}`;

const tokens = (pointer: string): string[] =>
  pointer
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));

function describe(where: string, item: Admissible): string {
  const { rule } = item;
  const text = rule.description.startsWith('(root)')
    ? `${where}${rule.description.slice('(root)'.length)}`
    : `${where} ${rule.description}`;
  return item.kind === 'edge'
    ? `${text}: at the bound, on its allowed side`
    : `${text}: its condition not holding, so the rule does not apply`;
}

function casesOf(contract: Contract, operation: OperationModel): { cases: BoundaryCase[]; notes: string[] } {
  const cases: BoundaryCase[] = [];
  const notes: string[] = [];
  if (operation.body) {
    const bases = bodyExamples(contract, operation).map((example) => example.value);
    const { values, unconstructed } = deriveAdmissible(contract, operation.body.schema, bases, {
      hints: collectHints(bases),
    });
    const references = bodyReferences(contract, operation).map((reference) => pointerOf(reference.field));
    for (const item of values) {
      const what = describe('body', item);
      // A field that names another resource must name one that exists: its own bounds cannot be met by one.
      if (references.includes(item.rule.instancePath))
        notes.push(`${what}: not tested, the field names another resource`);
      // An example already at the bound (a length its pattern fixes, such as a 6-digit OTP) is what positive_data sends.
      else if (item.kind === 'edge' && bases.some((base) => JSON.stringify(base) === JSON.stringify(item.value)))
        notes.push(`${what}: an example already sits at the bound`);
      else cases.push({ operation, what, body: item.value, at: item.rule.instancePath });
    }
    notes.push(...unconstructed.map((u) => `body ${u.rule.description}: not tested, ${u.reason}`));
  }
  for (const parameter of operation.parameters.filter((p) => p.in !== 'header')) {
    const base = fromWire(contract, parameter.schema, parameterValue(contract, parameter, operation));
    const accept = (value: Json): boolean =>
      ['string', 'number', 'boolean'].includes(typeof value) &&
      JSON.stringify(fromWire(contract, parameter.schema, String(value))) === JSON.stringify(value);
    for (const item of deriveAdmissible(contract, parameter.schema, [base], { accept }).values) {
      const what = describe(`${parameter.in} ${parameter.name}`, item);
      // A path parameter names an existing resource: an id of exactly the bound's length names none.
      if (parameter.in === 'path') notes.push(`${what}: not tested, the path parameter names an existing resource`);
      else cases.push({ operation, what, parameter: { name: parameter.name, value: String(item.value) }, at: '' });
    }
  }
  return { cases, notes };
}

/** The operation that creates what an operation on `/things/{id}` acts on: POST `/things`. */
function creatorFor(contract: Contract, operation: OperationModel): OperationModel | undefined {
  const path = operation.parameters.filter((p) => p.in === 'path');
  if (path.length !== 1 || normalizePath(operation.path) !== `${parentPath(operation.path)}/{${path[0]?.name}}`)
    return undefined;
  return contract.model.operations.find(
    (o) =>
      o.method === 'post' &&
      o.parameters.every((p) => p.in !== 'path') &&
      normalizePath(o.path) === parentPath(operation.path),
  );
}

/** How many values a case at a length too short to carry the run's tag tries while each is answered as another resource's. */
const SHORT_VALUE_TRIES = 8;
const SHORT_VALUE_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A value of `length` characters drawn at random, none of the `tried` ones while any is left. */
function randomUntried(length: number, tried: Set<string>): string {
  for (;;) {
    const value = Array.from({ length }, () => SHORT_VALUE_ALPHABET[randomInt(SHORT_VALUE_ALPHABET.length)]).join('');
    // A length with every value tried (the empty string is the only one of its length) gives a repeat rather than loop.
    if (!tried.has(value) || tried.size >= SHORT_VALUE_ALPHABET.length ** length) return value;
  }
}

interface CaseBody {
  body: Json;
  /** The identifier at the line is too short to carry the run's tag: another resource of the target may already have it. */
  shared: boolean;
}

/**
 * A string made unique to the run at the same length (its end replaced by the run's tag and a counter), when
 * the schema still accepts it. A length too short for the tag gets random characters not tried before by
 * this case: a fixed choice ("the counter's last digit") collides with the run's other short values and with
 * earlier runs against a target that keeps its data.
 */
function uniqueAtLength(
  contract: Contract,
  schema: Json | undefined,
  body: Json,
  at: string[],
  unique: UniqueValues,
  tried: Set<string>,
): CaseBody {
  const value = getAt(body, at);
  if (typeof value !== 'string') return { body, shared: false };
  const tag = String(unique.next(undefined, `${unique.tag}`));
  const shared = value.length < tag.length;
  const replaced = shared ? randomUntried(value.length, tried) : value.slice(0, value.length - tag.length) + tag;
  const candidate = setAt(body, at, replaced);
  const valid = schema === undefined || contract.validate(schema, candidate).length === 0;
  // `tried` holds the values sent at the line, for the skip's reason and so that none is sent twice.
  tried.add(valid ? replaced : value);
  return { body: valid ? candidate : body, shared };
}

/** The case's body with its identifiers unique to this run, the value at the line kept as derived. */
function freshCaseBody(
  contract: Contract,
  operation: OperationModel,
  c: BoundaryCase,
  unique: UniqueValues,
  tried: Set<string>,
): CaseBody | undefined {
  if (c.body === undefined) return undefined;
  const at = tokens(c.at);
  // The value at the line is kept as derived; a rule on the whole body (a conditional `required`) keeps nothing.
  const made = uniquify(contract, operation, c.body, unique);
  const uniquified = at.length === 0 ? made : setAt(made, at, getAt(c.body, at) ?? null);
  const edgeIsIdentifier = identifierFields(contract, operation).some((field) => pointerOf(field) === c.at);
  return edgeIsIdentifier
    ? uniqueAtLength(contract, operation.body?.schema, uniquified, at, unique, tried)
    : { body: uniquified, shared: false };
}

/** The error codes that say a value at `at` is already another resource's (the `duplicate` triggers over that field). */
function takenCodes(operation: OperationModel, at: string): string[] {
  return triggersOf(operation, 'duplicate')
    .filter(
      ([, trigger]) => Array.isArray(trigger.fields) && trigger.fields.some((field) => pointerOf(String(field)) === at),
    )
    .map(([code]) => code);
}

/**
 * The creation body for the resource an update acts on: an example of the creator that, with the update's
 * values, is still a valid creation (the resource must already be what the update's values fit: a bank that
 * takes a suggested amount, a business customer for a business name); else the first example.
 */
function creationBody(contract: Contract, creator: OperationModel, change: Json | undefined): Json | undefined {
  const examples = bodyExamples(contract, creator).map((example) => example.value);
  const schema = creator.body?.schema ?? {};
  const declared = Object.keys(schemaProperties(contract, schema));
  const updates = isObject(change)
    ? Object.fromEntries(Object.entries(change).filter(([name]) => declared.includes(name)))
    : {};
  const merged = examples.filter(isObject).map((example) => ({ ...example, ...updates }));
  return [...merged, ...examples].find((candidate) => contract.validate(schema, candidate).length === 0) ?? examples[0];
}

async function runCase(s: Scenario, env: WorkflowEnv, c: BoundaryCase): Promise<void> {
  const { contract } = s;
  const { operation } = c;
  const parameters: Record<string, string> = c.parameter ? { [c.parameter.name]: c.parameter.value } : {};
  const creator = creatorFor(contract, operation);
  if (operation.parameters.some((p) => p.in === 'path')) {
    if (!creator)
      return s.skip(
        `${operation.operationId} acts on an existing resource the suite cannot create (no POST on ${parentPath(operation.path)})`,
      );
    const provided: Provided = new Map();
    for (const action of planReferences(contract, creator)) await action.run(s, env, provided);
    const kind = resourceKind(contract, creator);
    const machine = kind ? machineForResource(contract, kind) : undefined;
    const base =
      creationBody(contract, creator, c.body) ??
      s.skip(`no example of ${creator.operationId} creates a resource the case's values fit`);
    const fresh = withFutureTime(
      contract,
      creator,
      uniquify(contract, creator, base, env.unique),
      machine ? expiryField(machine) : undefined,
    );
    const created = await s.succeed(
      creator.operationId,
      creator,
      buildRequest(contract, creator, { body: withReferences(contract, creator, fresh, provided) }),
    );
    const pathParameter = operation.parameters.find((p) => p.in === 'path');
    if (pathParameter) parameters[pathParameter.name] = createdId(s, creator.operationId, created, creator);
  }
  const provided: Provided = new Map();
  for (const action of planReferences(contract, operation)) await action.run(s, env, provided);
  // A query value at its bound may name nothing the target has, a code at a length bound may be in no
  // catalog: those answers take the value's form and refuse only what it names.
  const namesNothing = [
    ...(c.parameter ? triggersOf(operation, 'not_found') : []),
    ...triggersOf(operation, 'not_in_catalog'),
  ].map(([code]) => code);
  const taken = takenCodes(operation, c.at);
  const tried = new Set<string>();
  const answered = (exchange: Exchange, codes: string[]): string | undefined => {
    const code = isObject(exchange.json as Json) ? (exchange.json as { error_code?: unknown }).error_code : undefined;
    return typeof code === 'string' && codes.includes(code) && statusesOf(operation, code).includes(exchange.status)
      ? code
      : undefined;
  };
  for (let attempt = 1; ; attempt++) {
    const fresh = freshCaseBody(contract, operation, c, env.unique, tried);
    const body = fresh === undefined ? undefined : withReferences(contract, operation, fresh.body, provided);
    const request = buildRequest(contract, operation, { parameters, ...(body === undefined ? {} : { body }) });
    const exchange = await s.send(c.what, operation, request);
    const nothing = answered(exchange, namesNothing);
    if (nothing) {
      s.notes.push(`${c.what}: answered ${nothing}, the value names nothing the target has`);
      return;
    }
    // A value too short to be the run's own may be another resource's: that refusal is the contract's, so try another value.
    // A value unique to the run refused as taken is judged below, as the failure it is.
    const duplicate = fresh?.shared ? answered(exchange, taken) : undefined;
    if (duplicate && attempt < SHORT_VALUE_TRIES) continue;
    if (duplicate)
      s.skip(
        `${c.what}: every value tried (${[...tried].map((v) => JSON.stringify(v)).join(', ')}) was answered ${duplicate}, already another resource's`,
      );
    s.judge(
      c.what,
      operation,
      exchange,
      { status: successStatuses(operation) },
      `${c.what} (${operation.operationId}): a valid request, should be accepted`,
    );
    return;
  }
}

export const boundaries: Check = {
  name: 'boundaries',
  description:
    'Every numeric and length bound of every request schema is accepted exactly at its allowed edge, and every conditional rule (per-bank limits) is not applied where its condition does not hold.',
  run: async (context: CheckContext): Promise<CheckResult[]> => {
    const { contract } = context;
    const env: WorkflowEnv = { unique: new UniqueValues(contract), settings: DEFAULT_WORKFLOW_SETTINGS };
    const plans = contract.model.operations
      .filter((o) => context.selected('boundaries', o.operationId))
      .map((operation) => ({ operation, ...casesOf(contract, operation) }));
    const work = plans.flatMap((plan) => plan.cases);
    const results = await mapPool(work, context.options.concurrency, (c) =>
      runScenario(context, 'boundaries', c.operation.operationId, [c.what], async (s) => {
        await runCase(s, env, c);
      }),
    );
    const merged = mergeBySubject(results);
    // An operation whose requests declare no bound and no conditional rule has nothing to report here.
    return plans.flatMap((plan) => {
      const result = merged.find((r) => r.subject === plan.operation.operationId);
      const notes = [...(result?.notes ?? []), ...plan.notes];
      return result ? [{ ...result, ...(notes.length > 0 ? { notes } : {}) }] : [];
    });
  },
};
