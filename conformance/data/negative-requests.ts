// The invalid requests of one operation: one per rule of its body schema and of each parameter's schema,
// a request without each required parameter, and a body that is not JSON. Each carries the answer the
// contract prescribes for it (`expectedAnswer`, `x-malformed-body-error`), and what could not be built.
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import type { RequestSpec } from '../http.js';
import { bodyExamples, buildRequest, parameterValue } from './requests.js';
import { collectHints, synthesize, typesOf } from './synthesize.js';
import { deriveViolations, expectedAnswer, type ExpectedAnswer, type Rule, type Unconstructed } from './violations.js';

export interface NegativeRequest {
  /** "body /amount: below the minimum 1", "query account_type: not one of the allowed values". */
  what: string;
  spec: RequestSpec;
  /** The answer, and where the contract says so (a request-data rule's answer is its x-error-triggers code). */
  expected: Omit<ExpectedAnswer, 'source'> & { source: ExpectedAnswer['source'] | 'x-error-triggers' };
  /** JSON Pointer into the contract of the keyword the request breaks, when there is one. */
  schemaPath?: string;
}

export interface NegativePlan {
  requests: NegativeRequest[];
  /** Rules no request could be built for, and why. */
  notes: string[];
}

/** Where a rule's keyword sits in the contract, for reports. */
function rulePointer(rule: Rule, fallback: string): string {
  return `${rule.resource ?? fallback}${rule.schemaPath.slice(1)}`;
}

/** "body /amount: below the minimum 1", "query account_type: not one of the allowed values". */
function label(where: string, rule: Rule): string {
  return rule.description.startsWith('(root)')
    ? `${where}${rule.description.slice('(root)'.length)}`
    : `${where} ${rule.description}`;
}

function noteFor(where: string, item: Unconstructed): string {
  return `${label(where, item.rule)}: not tested, ${item.reason}`;
}

const NO_ANSWER = 'not tested, the contract documents no answer to an invalid request here (no x-validation-error)';

function bodyRequests(contract: Contract, operation: OperationModel, plan: NegativePlan): void {
  if (!operation.body) return;
  const examples = bodyExamples(contract, operation).map((example) => example.value);
  const synthesized = examples.length === 0 ? synthesize(contract, operation.body.schema) : undefined;
  const bases = examples.length > 0 ? examples : synthesized === undefined ? [] : [synthesized];
  if (bases.length === 0) {
    plan.notes.push(
      'body rules: not tested, the contract has no body example and no valid body could be built from the schema',
    );
    return;
  }
  const { violations, unconstructed } = deriveViolations(contract, operation.body.schema, bases, {
    hints: collectHints(bases),
  });
  const bodyPointer = `${operation.pointer}/requestBody/content/application~1json/schema`;
  for (const violation of violations) {
    const expected = expectedAnswer(operation, violation.errors);
    const what = label('body', violation.rule);
    if (!expected) {
      plan.notes.push(`${what}: ${NO_ANSWER}`);
      continue;
    }
    plan.requests.push({
      what,
      spec: buildRequest(contract, operation, { body: violation.value }),
      expected,
      schemaPath: rulePointer(violation.rule, bodyPointer),
    });
  }
  plan.notes.push(...unconstructed.map((item) => noteFor('body', item)));
}

/** A parameter value as the schema sees it after the wire (every URL and header value is text). */
export function fromWire(contract: Contract, schema: Json, raw: string): Json {
  const resolved = contract.deref(schema);
  const types = isObject(resolved) ? typesOf(resolved) : [];
  if (types.includes('string') || types.length === 0) return raw;
  if ((types.includes('number') || types.includes('integer')) && raw.trim() !== '' && !Number.isNaN(Number(raw)))
    return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function parameterRequests(contract: Contract, operation: OperationModel, plan: NegativePlan): void {
  const answer = expectedAnswer(operation, []);
  for (const parameter of operation.parameters) {
    const where = `${parameter.in} ${parameter.name}`;
    const base = fromWire(contract, parameter.schema, parameterValue(contract, parameter, operation));
    // A candidate must survive the trip as text, a path segment cannot be empty (it would address another
    // route), and a header cannot carry a control character (HTTP refuses it before any operation).
    const accept = (value: Json): boolean =>
      (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') &&
      JSON.stringify(fromWire(contract, parameter.schema, String(value))) === JSON.stringify(value) &&
      (parameter.in !== 'path' || String(value) !== '') &&
      (parameter.in !== 'header' || !/[\u0000-\u001f\u007f]/.test(String(value)));
    const { violations, unconstructed } = deriveViolations(contract, parameter.schema, [base], { accept });
    for (const violation of violations) {
      const expected = expectedAnswer(operation, violation.errors);
      const what = label(where, violation.rule);
      if (!expected) plan.notes.push(`${what}: ${NO_ANSWER}`);
      else
        plan.requests.push({
          what,
          spec: buildRequest(contract, operation, { parameters: { [parameter.name]: String(violation.value) } }),
          expected,
          schemaPath: rulePointer(violation.rule, `${operation.pointer} parameter ${parameter.name} schema `),
        });
    }
    // A string parameter's type cannot be broken on the wire: every value arrives as text.
    plan.notes.push(
      ...unconstructed.filter((item) => item.rule.keyword !== 'type').map((item) => noteFor(where, item)),
    );
    if (parameter.required && parameter.in !== 'path') {
      const what = `${where}: missing required parameter`;
      if (!answer) {
        plan.notes.push(`${what}: ${NO_ANSWER}`);
        continue;
      }
      const spec = buildRequest(contract, operation);
      const without = (values: Record<string, string> | undefined): Record<string, string> =>
        Object.fromEntries(Object.entries(values ?? {}).filter(([name]) => name !== parameter.name));
      plan.requests.push({
        what,
        spec: { ...spec, query: without(spec.query), headers: without(spec.headers) },
        expected: answer,
      });
    }
  }
}

function malformedRequest(contract: Contract, operation: OperationModel, plan: NegativePlan): void {
  const answer = operation.malformedBodyError;
  if (!answer) return;
  if (!operation.body) {
    plan.notes.push(
      `malformed body: not tested, the operation documents x-malformed-body-error but takes no request body (a ${operation.method.toUpperCase()} carries none)`,
    );
    return;
  }
  const spec = buildRequest(contract, operation);
  // A valid body cut short by its last character: JSON that does not parse, and nothing else wrong.
  const text = spec.body?.text ?? '{}';
  plan.requests.push({
    what: 'malformed JSON body',
    spec: { ...spec, body: { contentType: 'application/json', text: text.slice(0, -1) } },
    expected: { status: answer.status, errorCode: answer.error_code, source: 'x-malformed-body-error' },
  });
}

export function negativeRequests(contract: Contract, operation: OperationModel): NegativePlan {
  const plan: NegativePlan = { requests: [], notes: [] };
  bodyRequests(contract, operation, plan);
  parameterRequests(contract, operation, plan);
  malformedRequest(contract, operation, plan);
  return plan;
}
