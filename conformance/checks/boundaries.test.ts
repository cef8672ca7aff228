// The boundaries check against in-test targets whose customers' `external_id`s are partly taken already:
// a value at a length too short to carry the run's tag (one character) may be another customer's, which the
// contract answers DUPLICATE_CUSTOMER_ERROR; the check tries other values of that length rather than
// calling the target wrong. A value long enough to be the run's own, refused as taken, is still a failure.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { Json } from '@payments-contract/contract/model/types';
import { loadContract } from '../contract.js';
import { runCheck } from '../tests/check-context.js';
import { startTarget, type Override, type Target } from '../tests/target.js';
import { boundaries } from './boundaries.js';

vi.setConfig({ testTimeout: 30_000 });

const contract = loadContract();
const API_KEY = 'boundaries-test-key';
const CUSTOMER_WRITES = ['createCustomer', 'updateCustomer'];
const targets: Target[] = [];

afterAll(async () => {
  await Promise.all(targets.map((t) => t.close()));
});

/** A target whose customer writes refuse, as the contract says, every `external_id` `isTaken` calls another customer's. */
async function targetWithTakenIds(isTaken: (externalId: string) => boolean): Promise<{ url: string; sent: string[] }> {
  const sent: string[] = [];
  const override: Override = ({ operation, body }) => {
    if (!CUSTOMER_WRITES.includes(operation.operationId)) return undefined;
    const parsed = body === '' ? undefined : (JSON.parse(body) as Json);
    const externalId = isObject(parsed) && typeof parsed.external_id === 'string' ? parsed.external_id : undefined;
    if (externalId === undefined) return undefined;
    sent.push(externalId);
    if (!isTaken(externalId)) return undefined;
    return {
      status: 400,
      body: JSON.stringify({
        error_code: 'DUPLICATE_CUSTOMER_ERROR',
        message: `A customer with external_id ${externalId} already exists.`,
      }),
    };
  };
  const target = await startTarget(contract, API_KEY, override);
  targets.push(target);
  return { url: target.url, sent };
}

const run = (url: string) =>
  runCheck(boundaries, { baseUrl: url, apiKey: API_KEY, only: CUSTOMER_WRITES.map((id) => `boundaries:${id}`) });

describe('boundaries on an identifier too short to be unique to the run', () => {
  it("passes when the one-character values first tried are other customers' (every digit taken)", async () => {
    const { url, sent } = await targetWithTakenIds((id) => /^[0-9]$/.test(id));
    const { results } = await run(url);
    for (const operationId of CUSTOMER_WRITES) {
      const result = results.find((r) => r.subject === operationId);
      expect(result?.outcome, JSON.stringify(result?.findings)).toBe('passed');
    }
    // Each accepted one-character value is one no other customer had.
    const accepted = sent.filter((id) => id.length === 1 && !/^[0-9]$/.test(id));
    expect(accepted.length).toBeGreaterThanOrEqual(2);
  });

  it('skips only that case, naming the values tried, when every one it tries is taken', async () => {
    const { url } = await targetWithTakenIds((id) => id.length === 1);
    const { results } = await run(url);
    for (const operationId of CUSTOMER_WRITES) {
      const result = results.find((r) => r.subject === operationId);
      expect(result?.outcome).toBe('passed');
      expect(result?.notes?.join('\n')).toMatch(
        /skipped: body \/external_id: shorter than 1: at the bound.*every value tried \("[^"]+"(, "[^"]+"){7}\) was answered DUPLICATE_CUSTOMER_ERROR/,
      );
    }
  });

  it("fails a target that calls a value unique to the run another customer's", async () => {
    const { url } = await targetWithTakenIds((id) => id.length === 100);
    const { results } = await run(url);
    for (const operationId of CUSTOMER_WRITES) {
      const result = results.find((r) => r.subject === operationId);
      expect(result?.outcome).toBe('failed');
      expect(result?.findings.map((f) => f.message).join('\n')).toMatch(
        /longer than 100: at the bound, on its allowed side.*expected status 2\d\d|expected status 200, got 400/,
      );
    }
  });
});
