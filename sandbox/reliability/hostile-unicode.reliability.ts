// Text no store keeps (a lone surrogate escape, U+0000) in every string of every operation's JSON body, on
// every store: PostgreSQL's jsonb refuses both, and once answered 500 where the embedded stores answered 200
// (issue 24). Each store must answer every probe as the contract says (the operation's validation error,
// decision `json-body-text`); the figure printed per store is the count of 5xx answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallbackReceiver, mapPool, startReceiver } from '@payments-contract/conformance/testing';
import { STORE_CHOICES, type StoreChoice } from '../store/open-store.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import { unicodeTextCases } from './hostile-cases.js';
import { createJudge, Tally } from './judge.js';
import { controlContract, serviceContract } from './live-conformance.js';
import { sendRaw } from './raw-http.js';
import { figures, summaryLine } from './scale.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

const { server } = useThrowawayPostgres();

describe.each(STORE_CHOICES)('text no store keeps, on the %s store', (store: StoreChoice) => {
  let receiver: CallbackReceiver;
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    receiver = await startReceiver({ contract: serviceContract, host: '127.0.0.1', port: 0 });
    const database: Record<string, string> = store === 'postgres' ? { DATABASE_URL: server().url } : {};
    // Rate limits off, as in hostile.reliability.ts: each probe is judged by the answer its input deserves.
    // STORE in env: the process options name only the embedded stores.
    sandbox = await startSandboxProcess({
      env: {
        STORE: store,
        ...database,
        SANDBOX_CALLBACK_URL: receiver.publicUrl,
        SANDBOX_RATE_LIMITS: 'false',
        LOG_LEVEL: 'warn',
      },
    });
  });
  afterAll(async () => {
    await sandbox?.remove();
    await receiver?.close();
  });

  it('answers a lone surrogate or U+0000 anywhere in a JSON body with the validation error, never a 5xx', async () => {
    const contracts = [serviceContract, controlContract];
    const cases = unicodeTextCases({ contracts, baseUrl: sandbox.url, callbackUrl: receiver.publicUrl });
    const judge = createJudge(contracts);
    const tally = new Tally();
    await mapPool(cases, figures.hostileConcurrency, async (item) => {
      tally.add(
        item.name,
        judge(
          await sendRaw(item.build(), { port: sandbox.port, timeoutMs: figures.requestTimeoutMs }),
          item.expectation,
        ),
      );
    });
    console.log(summaryLine(`unicode probes on the ${store} store`, { requests: tally.total, ...tally.failures() }));
    console.log(`  statuses: ${tally.statusLine()}`);
    for (const line of tally.exampleLines()) console.log(line);

    expect(tally.total).toBeGreaterThan(0);
    expect(tally.failures()).toEqual(Object.fromEntries(Object.keys(tally.failures()).map((verdict) => [verdict, 0])));
  });
});
