// Hostile requests over every operation of both contracts (the service and the control API), sent over
// raw sockets to a sandbox process through the generated Node listener, with and without a valid key. Each
// answer must be a JSON answer with a documented status: never a 5xx, an empty or non-JSON body, a dropped
// connection or a hang.
import { describe, expect, it } from 'vitest';
import { mapPool } from '@payments-contract/conformance/testing';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { useSandbox } from './fixtures.js';
import { hostileCases, sample } from './hostile-cases.js';
import { createJudge, Tally } from './judge.js';
import { controlContract, serviceContract } from './live-conformance.js';
import { sendRaw } from './raw-http.js';
import { figures, summaryLine } from './scale.js';
import { printedSecrets } from './secrets.js';

describe('hostile requests', () => {
  // Rate limits off: each hostile request is judged by the answer its input deserves, and thousands of them
  // in two seconds would otherwise be answered 429 before they are read (the limits have tests of their own).
  const started = useSandbox({ env: { SANDBOX_RATE_LIMITS: 'false' } });

  it(`answers at least ${figures.hostileRequests} hostile requests over every operation with documented JSON answers`, async () => {
    const { sandbox, receiver } = started;
    const contracts = [serviceContract, controlContract];
    const all = hostileCases({ contracts, baseUrl: sandbox.url, callbackUrl: receiver.publicUrl });
    const cases = sample(all, figures.hostileRequests);
    const judge = createJudge(contracts);
    const tally = new Tally();
    const byGroup = new Map<string, Tally>();
    const startedAt = performance.now();
    await mapPool(cases, figures.hostileConcurrency, async (item) => {
      const outcome = await sendRaw(item.build(), {
        port: sandbox.port,
        timeoutMs: figures.requestTimeoutMs,
        ...(item.expectation.head ? { head: true } : {}),
      });
      const judged = judge(outcome, item.expectation);
      tally.add(item.name, judged);
      const group = byGroup.get(item.group) ?? new Tally();
      group.add(item.name, judged);
      byGroup.set(item.group, group);
    });
    const seconds = (performance.now() - startedAt) / 1000;

    // Still alive and serving once it is over.
    const after = await fetch(`${sandbox.url}/balance`, {
      headers: { authorization: basicAuthorization({ username: DEFAULT_TEST_SECRET_KEY, password: '' }) },
    });
    const operations = contracts.reduce((sum, contract) => sum + contract.model.operations.length, 0);
    console.log(
      summaryLine('hostile requests', {
        requests: tally.total,
        derived: all.length,
        operations,
        classes: byGroup.size,
        seconds: seconds.toFixed(1),
        ...tally.failures(),
      }),
    );
    console.log(`  statuses: ${tally.statusLine()}`);
    for (const [group, counts] of [...byGroup].sort(([a], [b]) => a.localeCompare(b))) {
      const failing = Object.entries(counts.failures()).filter(([, count]) => count > 0);
      console.log(
        `  ${group}: ${counts.total} sent${failing.length > 0 ? `, ${failing.map(([verdict, count]) => `${verdict}=${count}`).join(' ')}` : ''}`,
      );
    }
    for (const line of tally.exampleLines()) console.log(line);

    expect(tally.total).toBeGreaterThanOrEqual(figures.hostileRequests);
    expect(after.status, 'the sandbox answers a plain request after the run').toBe(200);
    expect(printedSecrets(sandbox.output()), 'secrets in the sandbox output').toEqual([]);
    expect(tally.failures()).toEqual(Object.fromEntries(Object.keys(tally.failures()).map((verdict) => [verdict, 0])));
  });
});
