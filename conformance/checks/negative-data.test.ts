// Check 3: what it derives from the bundled contract, and how it judges in-test targets. The derivation
// must reach every rule that carries its own code (x-error-codes), send a body that does not parse where
// the contract documents an answer to one, and leave out only rules no request can break alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import { negativeRequests } from '../data/negative-requests.js';
import { triggerRequests } from '../data/trigger-requests.js';
import { startTarget, type Target } from '../tests/target.js';
import { failed, resultOf, runSelected, VALID_KEY, validatingOverride } from '../tests/validating-target.js';

const contract = loadContract();
/** A whole negative_data run or two against an in-test target: 7 s alone, over 20 s once at a load of 10. */
const RUNS_TIMEOUT_MS = 60_000;
const plans = new Map(
  contract.model.operations.map((operation) => [operation.operationId, negativeRequests(contract, operation)]),
);

/** Every code an `x-error-codes` reachable from the schema gives (references followed, cycles cut). */
function ruleCodes(schema: Json | undefined, seen = new Set<string>()): string[] {
  if (Array.isArray(schema)) return schema.flatMap((item) => ruleCodes(item, seen));
  if (!isObject(schema)) return [];
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return [];
    seen.add(schema.$ref);
    return ruleCodes(contract.deref(schema), seen);
  }
  const own = isObject(schema['x-error-codes']) ? Object.values(schema['x-error-codes']).map(String) : [];
  return [
    ...own,
    ...Object.entries(schema)
      .filter(([key]) => key !== 'x-error-codes' && key !== 'examples')
      .flatMap(([, child]) => ruleCodes(child, seen)),
  ];
}

const requestSchemas = (operation: OperationModel): Json[] => [
  operation.body?.schema ?? null,
  ...operation.parameters.map((p) => p.schema),
];

describe('negative requests derived from the bundled contract', () => {
  it.each(
    contract.model.operations
      .filter((o) => requestSchemas(o).some((s) => ruleCodes(s).length > 0))
      .map((o) => [o.operationId, o] as const),
  )('%s: every rule with its own code is broken and expected with that code', (_id, operation) => {
    const expectedCodes = new Set(plans.get(operation.operationId)?.requests.map((r) => r.expected.errorCode));
    for (const code of new Set(requestSchemas(operation).flatMap((s) => ruleCodes(s))))
      expect(expectedCodes, code).toContain(code);
  });

  it('sends a body that breaks its schema for every body case, and one malformed body per operation that documents the answer', () => {
    for (const operation of contract.model.operations) {
      const requests = plans.get(operation.operationId)?.requests ?? [];
      for (const request of requests.filter((r) => r.what.startsWith('body '))) {
        expect(
          contract.validate(operation.body?.schema ?? {}, JSON.parse(request.spec.body?.text ?? 'null')).length,
          request.what,
        ).toBeGreaterThan(0);
      }
      const malformed = requests.filter((r) => r.what === 'malformed JSON body');
      expect(malformed.length, operation.operationId).toBe(operation.malformedBodyError && operation.body ? 1 : 0);
      for (const request of malformed) expect(() => JSON.parse(request.spec.body?.text ?? '')).toThrow();
    }
  });

  it('leaves out only what no request can carry, and says so', () => {
    const notes = [...plans.values()].flatMap((plan) => plan.notes);
    for (const note of notes)
      expect(note).toMatch(/an empty path segment addresses another route|takes no request body/);
  });

  it('derives the three conditional rules of the brief with their own codes', () => {
    const expected = (operationId: string, pattern: RegExp): string[] =>
      (plans.get(operationId)?.requests ?? []).filter((r) => pattern.test(r.what)).map((r) => r.expected.errorCode);
    // Each code is the one the contract puts on the `then` that holds the rule.
    const codeAt = (schema: string, path: Array<string | number>): Json | undefined =>
      path.reduce<Json | undefined>(
        (node, key) => (isObject(node) ? node[String(key)] : Array.isArray(node) ? node[Number(key)] : undefined),
        contract.model.componentSchemas[schema],
      );
    expect(expected('createFixedVirtualAccount', /missing required field expected_amount \(when/)).toEqual([
      codeAt('CreateFixedVirtualAccountRequest', ['allOf', 0, 'then', 'x-error-codes', 'required']),
    ]);
    expect(expected('createFixedVirtualAccount', /a combination the contract forbids/)).toEqual([
      codeAt('CreateFixedVirtualAccountRequest', ['allOf', 1, 'then', 'x-error-codes', 'not']),
    ]);
    expect(expected('createDisbursement', /account_number: does not match .*\(when \{"bank_code":\{"const"/)).toEqual([
      codeAt('CreateDisbursementRequest', [
        'allOf',
        0,
        'then',
        'allOf',
        0,
        'properties',
        'account_number',
        'x-error-codes',
        'pattern',
      ]),
    ]);
  });
});

describe('negative data against in-test targets', () => {
  const targets: Target[] = [];
  afterAll(async () => {
    await Promise.all(targets.map((t) => t.close()));
  });
  const start = async (...args: Parameters<typeof validatingOverride>): Promise<string> => {
    const target = await startTarget(contract, VALID_KEY, validatingOverride(...args));
    targets.push(target);
    return target.url;
  };

  let conforming: string;
  let prismLike: string;
  beforeAll(async () => {
    conforming = await start(contract);
    prismLike = await start(contract, { firstExample: true });
  });

  it(
    'passes a target that answers as the contract says, in the stateful profile (exact codes)',
    async () => {
      const summary = await runSelected(conforming, ['negative_data', 'response_conformance'], 'stateful');
      expect(failed(summary)).toEqual([]);
      const cases = summary.results.filter((r) => r.check === 'negative_data').reduce((sum, r) => sum + r.cases, 0);
      // Against a target that keeps state, the request-data rules of x-error-triggers are broken too.
      const triggered = contract.model.operations.reduce(
        (sum, operation) => sum + triggerRequests(contract, operation).requests.length,
        0,
      );
      expect(triggered).toBeGreaterThan(0);
      expect(cases).toBe([...plans.values()].reduce((sum, plan) => sum + plan.requests.length, 0) + triggered);
    },
    RUNS_TIMEOUT_MS,
  );

  it(
    'relaxes codes in the stateless profile only: a target answering the first example of the right status',
    async () => {
      expect(failed(await runSelected(prismLike, ['negative_data'], 'stateless'))).toEqual([]);
      const stateful = await runSelected(prismLike, ['negative_data'], 'stateful');
      expect(failed(stateful).length).toBeGreaterThan(0);
      const result = resultOf(stateful, 'negative_data', 'createDisbursement');
      expect(result.findings.map((f) => f.message)).toContainEqual(
        expect.stringMatching(/account_number: does not match .*expected error_code \w+, got \w+/),
      );
      expect(result.findings.every((f) => f.curl?.startsWith('curl '))).toBe(true);
      expect(
        result.findings
          .filter((f) => f.message.startsWith('body '))
          .every((f) => f.schemaPath?.startsWith('#/components/schemas/')),
      ).toBe(true);
      // A request-data rule is answered with the first example too, and its finding points at the trigger.
      expect(
        result.findings.filter((f) => f.message.startsWith('x-error-triggers ')).map((f) => f.schemaPath),
      ).toContainEqual(expect.stringMatching(/\/x-error-triggers\/\w+$/));
    },
    RUNS_TIMEOUT_MS,
  );
});
