// Check 2 against in-test targets: one that checks keys as the contract says (nothing to report), one that
// cannot tell keys apart (a fault only where keys can be judged: stateful and full), one whose 401 carries
// another code. The expected status and code are the contract's, read here the same way.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { createContract, loadContract } from '../contract.js';
import { startTarget, type Target } from '../tests/target.js';
import { failed, resultOf, runSelected, VALID_KEY, validatingOverride } from '../tests/validating-target.js';
import { securitySchemes } from './auth.js';

// The stateful profile sends thirteen requests to every operation: a loaded two-core machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 30_000 });

const contract = loadContract();
const operations = contract.model.operations;
const [first, second] = operations;
if (!first || !second) throw new Error('the contract needs two operations');
const targets: Target[] = [];

async function target(...args: Parameters<typeof validatingOverride>): Promise<Target> {
  const started = await startTarget(contract, VALID_KEY, validatingOverride(...args));
  targets.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});

describe('auth against a target that checks keys', () => {
  let url: string;
  beforeAll(async () => {
    url = (await target(contract)).url;
  });

  it('passes every operation; the stateless profile leaves the wrong key out and says so', async () => {
    const summary = await runSelected(url, ['auth'], 'stateless');
    expect(failed(summary)).toEqual([]);
    const results = summary.results.filter((r) => r.check === 'auth');
    expect(results.map((r) => r.subject)).toEqual(operations.map((o) => o.operationId));
    for (const result of results) {
      expect(result.cases).toBe(4);
      expect(result.notes?.join(' ')).toMatch(
        /wrong well-formed key, the valid key's wrong forms, the scheme name's letter case and the other mode's key: not applicable in the stateless profile/,
      );
    }
  });

  it("sends the wrong key, the valid key's six wrong forms and its two other scheme cases too in the stateful profile", async () => {
    const summary = await runSelected(url, ['auth'], 'stateful');
    expect(failed(summary)).toEqual([]);
    for (const result of summary.results.filter((r) => r.check === 'auth')) {
      expect(result.cases).toBe(13);
      expect(result.notes).toEqual([
        `the other mode's key: not sent, give it with --other-mode-api-key (PAYMENTS_OTHER_MODE_API_KEY)`,
      ]);
    }
  });
});

describe('auth against a target that accepts any well-formed key', () => {
  let url: string;
  beforeAll(async () => {
    url = (await target(contract, { acceptsUnknownKeys: true })).url;
  });

  it('is not judged on it in the stateless profile', async () => {
    expect(failed(await runSelected(url, ['auth'], 'stateless'))).toEqual([]);
  });

  it('fails every operation in the stateful profile: 2xx without a valid key', async () => {
    const summary = await runSelected(url, ['auth'], 'stateful');
    expect(failed(summary)).toEqual(operations.map((o) => `auth:${o.operationId}`));
    const findings = resultOf(summary, 'auth', first.operationId).findings;
    expect(findings.map((f) => f.message)).toContain('2xx without a valid key (a wrong key)');
    expect(findings.map((f) => f.message)).toContain('2xx without a valid key (the valid key with a trailing space)');
    expect(findings[0]?.curl).toMatch(/^curl .*-H 'authorization: Basic /);
    // The valid key's wrong forms are replayed from $PAYMENTS_API_KEY; the key itself never shows.
    const spaced = findings.find((f) => f.message.includes('trailing space'));
    expect(spaced?.curl).toContain(
      `-H "authorization: Basic $(printf '%s' "\${PAYMENTS_API_KEY} :" | base64 | tr -d '\\n')"`,
    );
    for (const f of findings) expect(f.curl).not.toContain(VALID_KEY);
  });
});

describe('auth against a target whose 401 carries another code', () => {
  it('reports the code the contract documents for the 401', async () => {
    const started = await startTarget(contract, VALID_KEY, ({ authorized }) =>
      authorized ? undefined : { status: 401, body: '{"error_code":"UNAUTHORIZED","message":"no"}' },
    );
    targets.push(started);
    const summary = await runSelected(started.url, [`auth:${first.operationId}`]);
    const documented = contract.response(first, 401)?.errorCodes ?? [];
    expect(documented.length).toBeGreaterThan(0);
    const messages = resultOf(summary, 'auth', first.operationId).findings.map((f) => f.message);
    expect(messages).toContain(`no key: expected error_code ${documented.join(' or ')}, got UNAUTHORIZED`);
  });
});

describe('securitySchemes', () => {
  it("reads the document's security: HTTP Basic for every operation of the contract", () => {
    for (const operation of operations)
      expect(securitySchemes(contract, operation)).toEqual([
        expect.objectContaining({ type: 'http', scheme: 'basic' }),
      ]);
  });

  it('treats security: [] and an empty requirement as public', () => {
    const doc = structuredClone(contract.doc);
    const paths = doc.paths as Record<string, Record<string, JsonObject>>;
    const raw = (id: string): JsonObject =>
      Object.values(paths)
        .flatMap((item) => Object.values(item))
        .find((op) => op.operationId === id) as JsonObject;
    raw(first.operationId).security = [];
    raw(second.operationId).security = [{}];
    const copy = createContract(doc);
    expect(securitySchemes(copy, copy.operation(first.operationId))).toEqual([]);
    expect(securitySchemes(copy, copy.operation(second.operationId))).toEqual([]);
    expect(securitySchemes(copy, copy.operation(operations[2]?.operationId ?? ''))).toHaveLength(1);
  });
});
