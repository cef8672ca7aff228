// The cases of the uniqueness check, one set per `duplicate` trigger of an operation's x-error-triggers.
// A creation: a first request succeeds; a second that repeats exactly the trigger's fields, everything else
// fresh (built from another example when the operation has one, identifiers new), gets the trigger's code;
// a request that differs from the first in one of the fields only is accepted (so refusing everything does
// not pass); with the isolation keys, the repeat by another merchant and in the other mode is accepted, as
// every trigger is scoped to the merchant and mode of the key. An update: the fields of another resource
// are refused with the code, fresh ones accepted, and a resource's own values are no duplicate of itself.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { bodyExamples, buildRequest } from '../data/requests.js';
import { createHttpClient } from '../http.js';
import type { CheckContext } from '../types.js';
import type { SubjectCase, UnavailableCase } from './case-results.js';
import { getPath, uniquify, withFutureTime } from './data.js';
import { expiryField, machineForResource } from './machines.js';
import { CannotProvide, planReferences, withReferences, type Provided } from './provision.js';
import { bodyReferences, creatorOf, propertySchema, resourceKind, triggersOf } from './resources.js';
import { Scenario } from './scenario.js';
import { createdId, freshBody, itemRequest, withFields, type WorkflowEnv } from './steps.js';

interface Rule {
  operation: OperationModel;
  code: string;
  fields: string[];
  /** Where the answer shows a field the target assigns when the request leaves it out (`answered_as`). */
  answeredAs: Record<string, string>;
}

function rules(contract: Contract): Rule[] {
  return contract.model.operations.flatMap((operation) =>
    triggersOf(operation, 'duplicate').flatMap(([code, trigger]) => {
      const fields = Array.isArray(trigger.fields) ? trigger.fields.map(String) : [];
      const answeredAs = isObject(trigger.answered_as)
        ? Object.fromEntries(Object.entries(trigger.answered_as).map(([field, shown]) => [field, String(shown)]))
        : {};
      return fields.length > 0 ? [{ operation, code, fields, answeredAs }] : [];
    }),
  );
}

const isCreation = (operation: OperationModel): boolean =>
  operation.method === 'post' && !operation.parameters.some((p) => p.in === 'path');
const listed = (fields: string[]): string => fields.join(' + ');

/** A body for the operation from its `index`-th example (the last when there are fewer), identifiers new, expiry ahead, references filled. */
function bodyFrom(s: Scenario, env: WorkflowEnv, operation: OperationModel, index: number, provided: Provided): Json {
  const examples = bodyExamples(s.contract, operation);
  const example =
    examples[Math.min(index, examples.length - 1)]?.value ??
    s.skip(`${operation.operationId} has no request body example to build from`);
  const kind = resourceKind(s.contract, operation);
  const machine = kind ? machineForResource(s.contract, kind) : undefined;
  const expiry = machine ? expiryField(machine) : undefined;
  const body =
    index === 0
      ? freshBody(s, env, operation, expiry)
      : withFutureTime(s.contract, operation, uniquify(s.contract, operation, example, env.unique), expiry);
  return withReferences(s.contract, operation, body, provided);
}

async function provide(s: Scenario, env: WorkflowEnv, operation: OperationModel): Promise<Provided> {
  const provided: Provided = new Map();
  for (const action of planReferences(s.contract, operation)) await action.run(s, env, provided);
  return provided;
}

/** Another value for one field: another resource for a reference, another enum member, a fresh identifier; undefined to leave the field out (the target assigns it). */
async function otherValue(
  s: Scenario,
  env: WorkflowEnv,
  rule: Rule,
  field: string,
  first: Json,
): Promise<{ value?: Json; provided?: Provided }> {
  const { operation } = rule;
  if (bodyReferences(s.contract, operation).some((r) => r.field === field))
    return { provided: await provide(s, env, operation) };
  const sent = getPath(first, field);
  if (sent === undefined) return {};
  const schema = s.contract.deref(propertySchema(s.contract, operation.body?.schema, field));
  if (isObject(schema) && Array.isArray(schema.enum)) {
    const other = schema.enum.find((member) => member !== sent);
    return other === undefined ? s.skip(`${field} has no other value than ${JSON.stringify(sent)}`) : { value: other };
  }
  const fresh = env.unique.next(schema, sent);
  return fresh === sent ? s.skip(`the suite finds no other valid value for ${field}`) : { value: fresh };
}

/** The trigger's fields as the first request set them, or as the target assigned them in its answer. */
function triggerValues(s: Scenario, rule: Rule, body: Json, answer: Json): Record<string, Json> {
  return Object.fromEntries(
    rule.fields.map((field) => {
      const value = getPath(body, field) ?? getPath(answer, rule.answeredAs[field] ?? field);
      return [
        field,
        value ??
          s.skip(
            `neither the request nor the ${rule.operation.operationId} answer carries ${field}, so there is no value to repeat`,
          ),
      ];
    }),
  );
}

/** Sends one request with another key, judged like the scenario's own, its findings and cases counted there. */
async function succeedWithKey(
  s: Scenario,
  key: string,
  whose: string,
  step: string,
  operation: OperationModel,
  body: Json,
): Promise<void> {
  const options = s.context.options;
  const http = createHttpClient({ baseUrl: options.baseUrl, apiKey: key, timeoutMs: options.timeoutMs });
  const other = new Scenario({ ...s.context, http }, s.subject, s.steps);
  try {
    await other.succeed(`${step} (${whose} key)`, operation, buildRequest(s.contract, operation, { body }));
  } finally {
    s.cases += other.cases;
    s.findings.push(...other.findings);
  }
}

function creationCases(context: CheckContext, env: WorkflowEnv, rule: Rule): SubjectCase[] {
  const { operation, code, fields } = rule;
  const subject = operation.operationId;
  const first = async (s: Scenario): Promise<{ body: Json; values: Record<string, Json>; provided: Provided }> => {
    const provided = await provide(s, env, operation);
    const body = bodyFrom(s, env, operation, 0, provided);
    const answer = await s.succeed('first request', operation, buildRequest(s.contract, operation, { body }));
    return { body, values: triggerValues(s, rule, body, answer.value), provided };
  };
  // Everything but the trigger's fields from another example, so only the duplicate rule can refuse it.
  const repeat = (s: Scenario, values: Record<string, Json>, provided: Provided): Json =>
    withFields(bodyFrom(s, env, operation, 1, provided), values);
  const cases: SubjectCase[] = [
    {
      subject,
      label: `same ${listed(fields)}`,
      steps: ['first request', 'same fields'],
      script: async (s) => {
        const { values, provided } = await first(s);
        await s.reject(
          'same fields',
          operation,
          buildRequest(s.contract, operation, { body: repeat(s, values, provided) }),
          code,
        );
      },
    },
    ...fields.map((field) => ({
      subject,
      label: `same ${listed(fields)} but another ${field}`,
      steps: ['first request', 'other field'],
      script: async (s: Scenario) => {
        const { body, values, provided } = await first(s);
        const other = await otherValue(s, env, rule, field, body);
        const kept = Object.fromEntries(Object.entries(values).filter(([name]) => name !== field));
        let changed = withFields(
          repeat(s, kept, other.provided ?? provided),
          other.value === undefined ? {} : { [field]: other.value },
        );
        if (other.value === undefined && !other.provided) changed = withoutField(changed, field);
        await s.succeed('other field', operation, buildRequest(s.contract, operation, { body: changed }));
      },
    })),
  ];
  // References name resources of this merchant and mode only, so the repeat cannot be made elsewhere.
  const scoped = bodyReferences(context.contract, operation).length === 0;
  const keys = context.options.isolation ?? {};
  for (const [key, whose] of [
    [keys.otherMerchantKey, "another merchant's"],
    [keys.otherModeKey, "the other mode's"],
  ] as const) {
    if (!scoped || !key) continue;
    cases.push({
      subject,
      label: `same ${listed(fields)} with ${whose} key`,
      steps: ['first request', 'same fields elsewhere'],
      script: async (s) => {
        const { values, provided } = await first(s);
        await succeedWithKey(s, key, whose, 'same fields elsewhere', operation, repeat(s, values, provided));
      },
    });
  }
  return cases;
}

function withoutField(body: Json, field: string): Json {
  const [head, ...rest] = field.split('.');
  if (!isObject(body) || head === undefined) return body;
  if (rest.length === 0)
    return Object.fromEntries(Object.entries(body).filter(([name]) => name !== head)) as JsonObject;
  return { ...body, [head]: withoutField(body[head] ?? {}, rest.join('.')) };
}

function updateCases(env: WorkflowEnv, rule: Rule, create: OperationModel): SubjectCase[] {
  const { operation, code, fields } = rule;
  const subject = operation.operationId;
  const two = async (s: Scenario): Promise<{ a: Json; aId: string; bId: string }> => {
    const ids: string[] = [];
    const bodies: Json[] = [];
    for (const step of ['create first', 'create second']) {
      const provided = await provide(s, env, create);
      const body = bodyFrom(s, env, create, 0, provided);
      bodies.push(body);
      ids.push(
        createdId(
          s,
          step,
          await s.succeed(step, create, buildRequest(s.contract, create, { body })),
          create,
          operation,
        ),
      );
    }
    return { a: bodies[0] ?? {}, aId: ids[0] ?? '', bId: ids[1] ?? '' };
  };
  const change = (s: Scenario, values: Record<string, Json>): Json => withFields(freshBody(s, env, operation), values);
  const valuesOf = (s: Scenario, a: Json): Record<string, Json> =>
    Object.fromEntries(fields.map((f) => [f, getPath(a, f) ?? s.skip(`${create.operationId}'s example sets no ${f}`)]));
  const steps = ['create first', 'create second', 'update'];
  return [
    {
      subject,
      label: `${listed(fields)} of another resource`,
      steps,
      script: async (s) => {
        const { a, bId } = await two(s);
        await s.reject('update', operation, itemRequest(s, operation, bId, change(s, valuesOf(s, a))), code);
      },
    },
    {
      subject,
      label: `new ${listed(fields)}`,
      steps,
      script: async (s) => {
        const { a, bId } = await two(s);
        const fresh = uniquify(s.contract, create, a, env.unique);
        await s.succeed('update', operation, itemRequest(s, operation, bId, change(s, valuesOf(s, fresh))));
      },
    },
    {
      subject,
      label: `its own ${listed(fields)}`,
      steps,
      script: async (s) => {
        const { a, aId } = await two(s);
        await s.succeed('update', operation, itemRequest(s, operation, aId, change(s, valuesOf(s, a))));
      },
    },
  ];
}

export function uniquenessCases(
  context: CheckContext,
  env: WorkflowEnv,
): { cases: SubjectCase[]; unavailable: UnavailableCase[] } {
  const cases: SubjectCase[] = [];
  const unavailable: UnavailableCase[] = [];
  for (const rule of rules(context.contract)) {
    const label = `${rule.code} on ${listed(rule.fields)}`;
    try {
      planReferences(context.contract, rule.operation);
    } catch (error) {
      if (!(error instanceof CannotProvide)) throw error;
      unavailable.push({ subject: rule.operation.operationId, label, reason: error.message });
      continue;
    }
    if (isCreation(rule.operation)) {
      cases.push(...creationCases(context, env, rule));
      continue;
    }
    const kind = resourceKind(context.contract, rule.operation);
    const create = kind ? creatorOf(context.contract, kind) : undefined;
    if (create && rule.operation.parameters.filter((p) => p.in === 'path').length === 1)
      cases.push(...updateCases(env, rule, create));
    else
      unavailable.push({
        subject: rule.operation.operationId,
        label,
        reason: `the suite cannot tell which resource ${rule.operation.operationId} changes and what creates it`,
      });
  }
  return { cases, unavailable };
}
