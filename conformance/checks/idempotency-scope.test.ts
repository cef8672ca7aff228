// The idempotency_scope check: the cases it builds from the contract's data, the sandbox passing it with
// every key, the cases left undone (never passed) without the isolation keys, and a fake in front of the
// sandbox that compares keys in lower case failing it.
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { bodyExamples } from '../data/requests.js';
import { failedResults, runAgainst, startMutant, type MutantTarget } from '../mutants/runner.js';
import { runConformance } from '../run.js';
import { keyShape, refusals } from '../workflows/idempotency-scope-cases.js';

const contract = loadContract();
const operation = (id: string) => contract.model.operations.find((o) => o.operationId === id)!;
const keyHeaders = new Set(
  contract.model.operations.flatMap((o) => (o.idempotency ? [o.idempotency.header.toLowerCase()] : [])),
);

describe('what the check builds from the contract', () => {
  it("reads every key header's x-idempotency: merchant, mode and operation scope, exact comparison, the refusals that use the key up", () => {
    expect(
      contract.model.operations
        .filter((o) => o.idempotency)
        .map((o) => [o.operationId, o.idempotency?.scope, o.idempotency?.rememberedRefusals]),
    ).toEqual([
      ['createDisbursement', ['merchant', 'mode', 'operation'], ['DIRECT_DISBURSEMENT_BALANCE_INSUFFICIENT_ERROR']],
      ['createDirectDebitPayment', ['merchant', 'mode', 'operation'], ['PAYMENT_METHOD_NOT_FOUND_ERROR']],
    ]);
  });

  it('refuses a first request for its schema, for each request-data rule and for a reference naming nothing', () => {
    const codes = (id: string): string[] =>
      refusals(contract, operation(id), bodyExamples(contract, operation(id))[0]!.value).map(
        (r) => r.expected.errorCode,
      );
    expect(codes('createDisbursement')).toEqual(['API_VALIDATION_ERROR', 'BANK_CODE_NOT_SUPPORTED_ERROR']);
    expect(codes('createDirectDebitPayment')).toEqual(['API_VALIDATION_ERROR', 'PAYMENT_METHOD_NOT_FOUND_ERROR']);
  });

  it("takes the shapes of key from the header's schema: its bounds and every printable character it allows", () => {
    const header = (id: string) =>
      operation(id).parameters.find((p) => p.name.toLowerCase() === operation(id).idempotency?.header.toLowerCase())!;
    expect(keyShape(contract, header('createDisbursement').schema)).toMatchObject({ min: 1, max: 1000 });
    expect(keyShape(contract, header('createDirectDebitPayment').schema)).toMatchObject({ min: 1, max: 100 });
    expect(keyShape(contract, header('createDisbursement').schema).characters.join('')).toBe(
      Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join(''),
    );
  });
});

describe('against the sandbox', () => {
  let target: MutantTarget;
  beforeAll(async () => {
    target = await startMutant(undefined);
  }, 60_000);
  afterAll(async () => {
    await target.close();
  });

  it('passes every operation with every key, leaving nothing undone', async () => {
    const summary = await runAgainst(target, { only: ['idempotency_scope'] });
    expect(summary.results.map((r) => `${r.subject}: ${r.outcome}`).sort()).toEqual([
      'createDirectDebitPayment: passed',
      'createDisbursement: passed',
    ]);
    expect(summary.results.flatMap((r) => [...(r.unchecked ?? []), ...(r.notes ?? [])])).toEqual([]);
    expect(summary.verdict).toBe('pass');
  }, 60_000);

  it('without the isolation keys, leaves the cases across merchants and modes undone: the run is incomplete, not passed', async () => {
    const summary = await runConformance({
      baseUrl: target.url,
      apiKey: target.keys.test,
      profile: 'stateful',
      only: ['idempotency_scope:createDisbursement'],
      timeoutMs: 15_000,
      concurrency: 4,
      strict: false,
    });
    expect(summary.results.map((r) => r.unchecked)).toEqual([
      [
        expect.stringMatching(/^same key across merchants: not tried/),
        expect.stringMatching(/^same key across modes: not tried/),
      ],
    ]);
    expect(summary.verdict).toBe('incomplete');
  }, 60_000);

  it('fails a target that compares keys in lower case (a proxy lower-casing the key in front of the sandbox)', async () => {
    const proxy: Server = createServer((incoming, outgoing) => {
      const headers = Object.fromEntries(
        Object.entries(incoming.headers).map(([name, value]) => [
          name,
          keyHeaders.has(name) && typeof value === 'string' ? value.toLowerCase() : value,
        ]),
      );
      const upstream = new URL(incoming.url ?? '/', target.url);
      const call = forward(
        upstream,
        { method: incoming.method, headers: { ...headers, host: upstream.host } },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(call);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const summary = await runAgainst({ ...target, url }, { only: ['idempotency_scope'] });
      expect(failedResults(summary).sort()).toEqual([
        'idempotency_scope:createDirectDebitPayment',
        'idempotency_scope:createDisbursement',
      ]);
      expect(summary.results.flatMap((r) => r.findings.map((f) => f.message)).join('\n')).toMatch(
        /keys differing in letter case/,
      );
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 60_000);
});
