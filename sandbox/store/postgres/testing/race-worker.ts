// Test helper: one of several processes racing on one PostgreSQL schema (argv[2]) on the server
// SANDBOX_TEST_DATABASE_URL names. It runs argv[3] rounds, each a read-modify-write of a shared counter and a
// check-then-insert of the round's key (the idempotency pattern), many at once, and prints what it won as JSON.
import type { JsonRecord, Scope } from '../../store.js';
import { collections } from '../../testing/store-contract.js';
import { openTestStore, TEST_DATABASE_URL } from './test-schemas.js';

const scope: Scope = { merchantId: 'm-a', mode: 'test' };
const rounds = Number(process.argv[3]);
const store = await openTestStore(process.env[TEST_DATABASE_URL] ?? '', process.argv[2] ?? '', collections, {
  poolSize: 8,
  statementTimeoutMs: 60_000,
});

const increment = () =>
  store.transaction(async (tx) => {
    const counter = await tx.get<JsonRecord & { count: number }>('things', scope, 'counter');
    if (counter) await tx.update('things', scope, { ...counter, count: counter.count + 1 });
    else await tx.insert('things', scope, { id: 'counter', count: 1 });
  });
const claim = (round: number) =>
  store.transaction(async (tx) => {
    if ((await tx.findBy('things', scope, 'external_id', `key-${round}`)).length > 0) return false;
    await tx.insert('things', scope, { id: `${process.pid}-${round}`, external_id: `key-${round}`, state: 'claimed' });
    return true;
  });

let claimed = 0;
await Promise.all(
  Array.from({ length: rounds }, async (_, round) => {
    await increment();
    if (await claim(round)) claimed++;
  }),
);
await store.close();
process.stdout.write(`${JSON.stringify({ increments: rounds, claimed })}\n`);
