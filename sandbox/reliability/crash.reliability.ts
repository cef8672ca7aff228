// SIGKILL under write load, for each store: a sandbox process takes creations from many clients at once and
// is killed with SIGKILL at a random moment, several times, each time restarted on the same DATA_DIR. Every
// creation it acknowledged (a 2xx answer) must be there after the restart; a creation with an idempotency
// key that got no answer, sent again with its key after the restart, must leave exactly one resource. The
// creations are every one of the contract's that refers to nothing else and can be read back (by id, or by
// its lookup), with the conformance suite's fresh example bodies.
import { randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  identifierField,
  isIdempotencyHeader,
  resourceOperations,
  successStatuses,
  UniqueValues,
} from '@payments-contract/conformance/testing';
import { STORE_KINDS, type StoreKind } from '../store/open-store.js';
import { liveContext, serviceContract } from './live-conformance.js';
import { figures, summaryLine } from './scale.js';
import { useTempDir } from './fixtures.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { printedSecrets } from './secrets.js';
import { found, isPresent, load, writableOperations, type Write } from './writes.js';

interface StoreFigures {
  kills: number;
  acknowledged: number;
  lost: number;
  unanswered: number;
  /** Unanswered writes with an idempotency key, sent again after the restart. */
  retried: number;
  duplicates: number;
  restartMs: number[];
}

/** Sends each unanswered write with an idempotency key again, and counts the resources its lookup then finds beyond one. */
async function retryUnanswered(
  url: string,
  writes: Write[],
  examples: string[],
): Promise<{ retried: number; duplicates: number }> {
  const context = liveContext({ baseUrl: url, key: 'aTest' });
  let retried = 0;
  let duplicates = 0;
  for (const write of writes.filter(
    (w) => w.cutOff && !w.retried && w.operation.parameters.some(isIdempotencyHeader),
  )) {
    write.retried = true;
    const exchange = await context.http.send(write.request);
    retried++;
    const ids = resourceOperations(serviceContract, write.operation).lookup ? await found(url, write) : [];
    duplicates += Math.max(0, ids.length - 1);
    if (ids.length > 1 && examples.length < 5)
      examples.push(
        `${write.operation.operationId} ${JSON.stringify(write.request.headers)} answered ${exchange.status} ${exchange.bodyText.slice(0, 120)}; found ${ids.join(', ')}`,
      );
    // A retry that succeeds is acknowledged now: it must survive the next kill too.
    const id = (exchange.json as Record<string, unknown> | undefined)?.[
      identifierField(serviceContract, write.operation, resourceOperations(serviceContract, write.operation).read)
    ];
    if (successStatuses(write.operation).includes(exchange.status) && typeof id === 'string')
      writes.push({ operation: write.operation, body: write.body, request: write.request, id });
  }
  return { retried, duplicates };
}

describe.each(STORE_KINDS)('SIGKILL under write load, %s store', (store: StoreKind) => {
  const dir = useTempDir(`crash-${store}`);
  let sandbox: SandboxProcess | undefined;
  afterAll(async () => {
    await sandbox?.remove();
  });

  it(`loses no acknowledged write and duplicates none across ${figures.kills} kills`, async () => {
    const operations = writableOperations();
    const unique = new UniqueValues(serviceContract);
    const writes: Write[] = [];
    const counts: StoreFigures = {
      kills: 0,
      acknowledged: 0,
      lost: 0,
      unanswered: 0,
      retried: 0,
      duplicates: 0,
      restartMs: [],
    };
    const lostExamples: string[] = [];
    const duplicateExamples: string[] = [];
    let output = '';
    /** Starts the sandbox on the data, checks every acknowledged write so far, and sends unanswered ones again. */
    const restart = async (): Promise<void> => {
      sandbox = await startSandboxProcess({ dataDir: dir.path, store });
      counts.restartMs.push(Math.round(sandbox.startMs));
      for (const write of writes.filter((w) => w.id !== undefined)) {
        if (await isPresent(sandbox.url, write)) continue;
        counts.lost++;
        if (lostExamples.length < 5) lostExamples.push(`${write.operation.operationId} ${write.id}`);
      }
      const { retried, duplicates } = await retryUnanswered(sandbox.url, writes, duplicateExamples);
      counts.retried += retried;
      counts.duplicates += duplicates;
    };

    for (let round = 0; round < figures.kills; round++) {
      await restart();
      const acknowledgedBefore = writes.filter((w) => w.id !== undefined).length;
      const running = load(sandbox!.url, operations, unique, writes, figures.writersInFlight);
      // A random moment, once the load is well under way.
      await new Promise((resolve) => setTimeout(resolve, randomInt(300, 2_000)));
      await sandbox!.kill();
      counts.kills++;
      output += sandbox!.output();
      await running.stop();
      if (writes.filter((w) => w.id !== undefined).length === acknowledgedBefore)
        throw new Error(`round ${round + 1}: no write was acknowledged before the kill`);
    }
    await restart();
    await sandbox!.stop();
    output += sandbox!.output();

    counts.acknowledged = writes.filter((w) => w.id !== undefined).length;
    counts.unanswered = writes.filter((w) => w.cutOff).length;
    console.log(
      summaryLine(`SIGKILL under write load (${store} store)`, {
        kills: counts.kills,
        operations: operations.map((o) => o.operationId).join(','),
        clients: figures.writersInFlight,
        acknowledged: counts.acknowledged,
        lost: counts.lost,
        'cut off unanswered': counts.unanswered,
        'retried with their key': counts.retried,
        duplicates: counts.duplicates,
        'restart ms': counts.restartMs.join('/'),
      }),
    );
    for (const example of lostExamples) console.log(`  lost: ${example}`);
    for (const example of duplicateExamples) console.log(`  created twice: ${example}`);
    expect(counts.lost, 'acknowledged writes lost').toBe(0);
    expect(counts.duplicates, 'resources created twice').toBe(0);
    expect(printedSecrets(output), 'secrets in the sandbox output').toEqual([]);
  });
});
