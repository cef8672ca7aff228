// Proof that check 1 (response conformance) catches the response-level fault classes, against a real
// target: Prism serving a copy of the contract with three faults planted in what it answers, while the
// suite judges against the real contract. Each fault must be reported against its own operation, with the
// schema path that failed, and no other operation may be blamed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import { startPrism, type PrismProcess } from '../mock/prism.js';
import { runConformance } from '../run.js';
import type { CheckResult, RunSummary } from '../types.js';

const contract = loadContract();

/** The operation's lowest documented 2xx, its first example (in the copy), and the schema's required properties. */
function successOf(
  doc: JsonObject,
  operation: OperationModel,
): { status: string; example: JsonObject; required: string[]; response: JsonObject } | undefined {
  const response = contract.response(
    operation,
    Math.min(...operation.responses.filter((r) => r.status < 300).map((r) => r.status)),
  );
  const raw = pointerGet(doc, operation.pointer);
  const responses = isObject(raw) && isObject(raw.responses) ? raw.responses : undefined;
  const documented = response && responses ? responses[String(response.status)] : undefined;
  const media =
    isObject(documented) && isObject(documented.content) ? documented.content['application/json'] : undefined;
  const first = isObject(media) && isObject(media.examples) ? Object.values(media.examples)[0] : undefined;
  const schema = contract.deref(response?.schema);
  if (
    !response ||
    !isObject(documented) ||
    !isObject(first) ||
    !isObject(first.value) ||
    !isObject(schema) ||
    !Array.isArray(schema.required)
  )
    return undefined;
  return {
    status: String(response.status),
    example: first.value,
    required: schema.required.map(String),
    response: documented,
  };
}

function pointerGet(doc: JsonObject, pointer: string): Json | undefined {
  return pointer
    .slice(2)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<Json | undefined>((node, token) => (isObject(node) ? node[token] : undefined), doc);
}

interface Fault {
  operation: OperationModel;
  property?: string;
}

let mock: PrismProcess;
let summary: RunSummary;
let dir: string;
const faults: { wrongType?: Fault; missingRequired?: Fault; undocumentedStatus?: Fault } = {};

beforeAll(async () => {
  // A deep copy of the contract to plant faults in; examples are what Prism answers with.
  const copy = JSON.parse(JSON.stringify(contract.doc)) as JsonObject;
  const candidates = contract.model.operations.filter((o) => successOf(copy, o) !== undefined);
  const [first, second, third] = candidates;
  if (!first || !second || !third) throw new Error('the contract needs three operations with an object 2xx example');

  const wrongType = successOf(copy, first);
  const property = wrongType?.required.find(
    (name) => wrongType.example[name] !== undefined && typeof wrongType.example[name] !== 'object',
  );
  if (!wrongType || !property) throw new Error(`${first.operationId}: no scalar required property to retype`);
  // A string where the contract wants a number, and the other way round.
  wrongType.example[property] =
    typeof wrongType.example[property] === 'string' ? 12345 : String(wrongType.example[property]);
  faults.wrongType = { operation: first, property };

  const missing = successOf(copy, second);
  const dropped = missing?.required.find((name) => missing.example[name] !== undefined);
  if (!missing || !dropped) throw new Error(`${second.operationId}: no required property to drop`);
  delete missing.example[dropped];
  faults.missingRequired = { operation: second, property: dropped };

  const renamed = successOf(copy, third);
  const raw = pointerGet(copy, third.pointer);
  if (!renamed || !isObject(raw) || !isObject(raw.responses)) throw new Error(`${third.operationId}: no responses`);
  // Prism answers the undocumented status with the documented body.
  const undocumented = [203, 206, 299].find((status) => !third.responses.some((r) => r.status === status)) ?? 299;
  delete raw.responses[renamed.status];
  raw.responses[String(undocumented)] = renamed.response;
  faults.undocumentedStatus = { operation: third, property: String(undocumented) };

  dir = mkdtempSync(join(tmpdir(), 'conformance-faults-'));
  const specPath = join(dir, 'mutated.json');
  writeFileSync(specPath, JSON.stringify(copy));
  // Prism itself, not the mock's front: the router there would refuse to pass on an undocumented status.
  mock = await startPrism({ specPath });
  summary = await runConformance({
    baseUrl: mock.url,
    apiKey: 'sk_test_faults',
    profile: 'stateless',
    only: ['positive_data', 'response_conformance'],
    timeoutMs: 10_000,
    concurrency: 8,
    strict: false,
  });
}, 90_000);

afterAll(async () => {
  await mock?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function conformanceOf(operation: OperationModel | undefined): CheckResult {
  const result = summary.results.find(
    (r) => r.check === 'response_conformance' && r.subject === operation?.operationId,
  );
  if (!result) throw new Error(`no response_conformance result for ${operation?.operationId ?? '?'}`);
  return result;
}

describe('response-level faults are reported against the right operation', () => {
  it('a field of the wrong type', () => {
    const result = conformanceOf(faults.wrongType?.operation);
    expect(result.outcome).toBe('failed');
    const finding = result.findings.find((f) =>
      f.schemaPath?.endsWith(`/properties/${faults.wrongType?.property ?? ''}/type`),
    );
    expect(finding?.message).toContain(`/${faults.wrongType?.property ?? ''} must be`);
    expect(finding?.curl).toMatch(/^curl /);
  });

  it('a missing required field', () => {
    const result = conformanceOf(faults.missingRequired?.operation);
    expect(result.outcome).toBe('failed');
    const finding = result.findings.find((f) => f.schemaPath?.endsWith('/required'));
    expect(finding?.message).toContain(`must have required property '${faults.missingRequired?.property ?? ''}'`);
  });

  it('an undocumented status', () => {
    const result = conformanceOf(faults.undocumentedStatus?.operation);
    expect(result.outcome).toBe('failed');
    expect(result.findings.map((f) => f.message)).toContain(
      `status ${faults.undocumentedStatus?.property ?? ''} is not documented for ${faults.undocumentedStatus?.operation.operationId ?? ''} (documented: ${faults.undocumentedStatus?.operation.responses.map((r) => r.status).join(', ') ?? ''})`,
    );
    expect(result.findings[0]?.status).toBe(Number(faults.undocumentedStatus?.property));
  });

  it('blames no other operation', () => {
    const planted = new Set(
      [faults.wrongType, faults.missingRequired, faults.undocumentedStatus].map((f) => f?.operation.operationId),
    );
    // Prism itself adds Access-Control-Allow-Origin to every answer (its CORS switch notwithstanding), a header
    // the contract says is never sent: a fault of the tool, not one planted here, so it is left out of the tally.
    const prismOwn = (message: string): boolean =>
      message.includes('access-control-allow-origin header, which the contract says is never sent');
    const blamed = summary.results
      .filter(
        (r) =>
          r.check === 'response_conformance' && r.outcome === 'failed' && r.findings.some((f) => !prismOwn(f.message)),
      )
      .map((r) => r.subject);
    expect(blamed.sort()).toEqual([...planted].sort());
  });
});
