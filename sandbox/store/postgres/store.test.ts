import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  DuplicateKeyError,
  isStoreUnavailable,
  JOBS_COLLECTION,
  StoreUnavailableError,
  type CollectionDefinition,
  type JsonRecord,
} from '../store.js';
import { collections, describeStoreContract, merchantA, merchantB, thing } from '../testing/store-contract.js';
import { DatabaseUnreachableError } from './errors.js';
import { ANALYZE_FIRST_AFTER, openPostgresStore } from './store.js';
import { useThrowawayPostgres } from './testing/test-database.js';
import { openTestStore, schemaFor } from './testing/test-schemas.js';

const { server } = useThrowawayPostgres();

describeStoreContract('postgres', (dataDir) => openTestStore(server().url, dataDir, collections), { sharedData: true });

/** Runs the race worker in `processes` processes at once on one schema; what each won. */
async function race(
  processes: number,
  rounds: number,
  schema: string,
): Promise<{ increments: number; claimed: number }[]> {
  const worker = fileURLToPath(new URL('./testing/race-worker.ts', import.meta.url));
  return Promise.all(
    Array.from(
      { length: processes },
      () =>
        new Promise<{ increments: number; claimed: number }>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', worker, schema, String(rounds)], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.once('exit', (code) =>
            code === 0
              ? resolve(JSON.parse(out) as { increments: number; claimed: number })
              : reject(new Error(`race worker exited with ${String(code)}`)),
          );
        }),
    ),
  );
}

describe('the postgres store across processes', () => {
  it('loses no update and claims each key once when four processes race on one scope', async () => {
    const dir = 'race';
    // The schema exists before the racers start, as it does for sandboxes started one after another.
    await (await openTestStore(server().url, dir, collections)).close();
    const results = await race(4, 100, dir);
    const store = await openTestStore(server().url, dir, collections);
    try {
      const counter = await store.get<JsonRecord & { count: number }>('things', merchantA, 'counter');
      expect(counter?.count).toBe(4 * 100);
      expect(results.reduce((sum, result) => sum + result.claimed, 0)).toBe(100);
      expect(await store.findBy('things', merchantA, 'state', 'claimed')).toHaveLength(100);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('prepares one schema once when several stores start together (migrations under the start-up lock)', async () => {
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => openTestStore(server().url, 'together', collections)),
    );
    await stores[0]!.insert('things', merchantA, thing('1'));
    await expect(stores[3]!.insert('things', merchantA, thing('2', { external_id: 'ext-1' }))).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await Promise.all(stores.map((store) => store.close()));
  }, 60_000);
});

/** What crossed one connection of the slow link, in the order the relay passed it on. */
interface LinkEvent {
  connection: number;
  from: 'client' | 'database';
  /** The chunk as latin1 text: statements' text is readable in the PostgreSQL protocol's messages. */
  text: string;
}

/**
 * A TCP relay to `port` that holds every chunk `delayMs` each way, as a database a network away would, and
 * records what it passed. The tests count round trips from the record rather than timing them: a loaded
 * machine stretches times, not the order of what was sent.
 */
async function startSlowLink(port: number, delayMs: number) {
  const sockets = new Set<Socket>();
  const events: LinkEvent[] = [];
  let connections = 0;
  const relay = (connection: number, from: Socket, to: Socket, side: LinkEvent['from']) => {
    from.on('data', (chunk: Buffer) => {
      // The client's chunk counts when it is sent, the database's when the client gets it.
      const event = { connection, from: side, text: chunk.toString('latin1') };
      if (side === 'client') events.push(event);
      setTimeout(() => {
        if (side === 'database') events.push(event);
        to.write(chunk);
      }, delayMs);
    });
    from.on('close', () => void setTimeout(() => to.destroy(), delayMs));
    from.on('error', () => undefined);
  };
  const server = createServer((client) => {
    const connection = ++connections;
    const database = connect(port, '127.0.0.1');
    for (const socket of [client, database]) sockets.add(socket);
    relay(connection, client, database, 'client');
    relay(connection, database, client, 'database');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Everything passed so far, in order. */
    events: (): readonly LinkEvent[] => events,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The round trips of the last transaction on the link, from the one that sent its BEGIN to the one that sent
 * its COMMIT: each is what a client sent before it heard from the database again.
 */
function transactionTurns(events: readonly LinkEvent[]): string[] {
  const begin = events.findLastIndex((event) => event.from === 'client' && event.text.includes('BEGIN'));
  expect(begin).toBeGreaterThanOrEqual(0);
  const connection = events[begin]!.connection;
  const turns: string[] = [];
  let heard = true;
  for (const event of events.slice(begin).filter((on) => on.connection === connection)) {
    if (event.from === 'database') {
      heard = true;
      if (turns.at(-1)?.includes('COMMIT')) break;
      continue;
    }
    if (heard) turns.push('');
    heard = false;
    turns[turns.length - 1] += event.text;
  }
  expect(turns.at(-1)).toContain('COMMIT');
  return turns;
}

/** A store of its own schema whose every statement and answer takes `delayMs` more each way. */
async function openThroughSlowLink(dataDir: string, of: CollectionDefinition[], delayMs: number) {
  const link = await startSlowLink(server().port, delayMs);
  const url = new URL(server().url);
  url.port = String(link.port);
  return { store: await openTestStore(url.toString(), dataDir, of), link };
}

describe('discards of a postgres transaction', () => {
  it('go out without waiting for their answers: a run of them and the COMMIT behind it cost one round trip', async () => {
    const { store, link } = await openThroughSlowLink('discards', collections, 100);
    try {
      for (let n = 0; n < 8; n++) await store.insert('things', merchantA, thing(`d${n}`));
      await store.transaction(async (tx) => {
        expect(await tx.list('things', merchantA)).toHaveLength(8);
        for (let n = 0; n < 8; n++) await tx.discard('things', merchantA, `d${n}`);
      });
      // BEGIN with the lock and the list in one round trip, the eight deletes with COMMIT behind them in the
      // next: 2 round trips; waiting for each delete's answer would be 10.
      const [, ...rest] = transactionTurns(link.events());
      expect(rest).toHaveLength(1);
      for (let n = 0; n < 8; n++) expect(rest[0]).toContain(`d${n}`);
      expect(rest[0]).toMatch(/DELETE FROM.*COMMIT/s);
      expect(await store.list('things', merchantA)).toEqual([]);
    } finally {
      await store.close();
      await link.close();
    }
  }, 60_000);
});

describe('writes of a postgres transaction to a collection without unique values', () => {
  const withNotes = [...collections, { name: 'notes' }];
  const note = (id: string, text: string): JsonRecord => ({ id, text });

  it('are pipelined: eight of them in one transaction cost about one round trip, not eight', async () => {
    const { store, link } = await openThroughSlowLink('pipelined', withNotes, 100);
    try {
      await store.transaction(async (tx) => {
        for (let n = 0; n < 8; n++) await tx.insert('notes', merchantA, note(`n${n}`, 'first'));
        expect((await tx.get<JsonRecord>('notes', merchantA, 'n7'))?.text).toBe('first');
        await tx.update('notes', merchantA, note('n7', 'second'));
      });
      // BEGIN with the lock, the eight writes and the read in one round trip, the update with COMMIT behind
      // it in the next: 2 round trips; one per statement would be 12, COMMIT after the update's answer 3.
      const [first, ...rest] = transactionTurns(link.events());
      expect(first!.match(/INSERT INTO/g)).toHaveLength(1); // prepared once, bound eight times
      for (let n = 0; n < 8; n++) expect(first).toContain(`"id":"n${n}"`);
      expect(rest).toHaveLength(1);
      expect(rest[0]).toMatch(/UPDATE.*COMMIT/s);
      expect((await store.get<JsonRecord>('notes', merchantA, 'n7'))?.text).toBe('second');
      expect(await store.list('notes', merchantA)).toHaveLength(8);
    } finally {
      await store.close();
      await link.close();
    }
  }, 60_000);

  it('fail the transaction when one of them writes nothing, before later statements and the commit: nothing of it is kept', async () => {
    const store = await openTestStore(server().url, 'pipelined-failure', withNotes);
    try {
      await expect(
        store.transaction(async (tx) => {
          await tx.insert('notes', merchantA, note('kept?', 'no'));
          await tx.update('notes', merchantA, note('missing', 'no such note'));
          await tx.get('notes', merchantA, 'kept?');
          await tx.insert('notes', merchantA, note('after', 'no'));
        }),
      ).rejects.toThrow('notes missing does not exist');
      expect(await store.list('notes', merchantA)).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('fail the transaction when the last of them writes nothing, though COMMIT went before its answer', async () => {
    const store = await openTestStore(server().url, 'pipelined-last-failure', withNotes);
    try {
      await store.insert('notes', merchantA, note('kept', 'first'));
      await expect(
        store.transaction(async (tx) => {
          await tx.update('notes', merchantA, note('kept', 'second'));
          await tx.insert('notes', merchantA, note('new', 'no'));
          await tx.update('notes', merchantA, note('missing', 'no such note'));
        }),
      ).rejects.toThrow('notes missing does not exist');
      expect(await store.list('notes', merchantA)).toEqual([note('kept', 'first')]);
      // The connection is usable again: the next transaction commits.
      await store.transaction((tx) => tx.update('notes', merchantA, note('kept', 'third')));
      expect((await store.get<JsonRecord>('notes', merchantA, 'kept'))?.text).toBe('third');
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('a postgres transaction whose statement failed at the server', () => {
  it('fails at its commit, though its code caught the failure and went on: the server rolled it back', async () => {
    const store = await openTestStore(server().url, 'commit-rolled-back', collections);
    try {
      await store.insert('things', merchantA, thing('1'));
      await expect(
        store.transaction(async (tx) => {
          await tx.insert('things', merchantA, thing('2'));
          // The id is taken (the table's key, not a unique value the store checks): the server refuses it,
          // which aborts the transaction; the COMMIT is then answered ROLLBACK.
          await tx.insert('things', merchantA, thing('1', { external_id: 'ext-other' })).catch(() => undefined);
        }),
      ).rejects.toThrow('the transaction was not committed (ROLLBACK)');
      expect(await store.get('things', merchantA, '2')).toBeUndefined();
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('reads of the postgres store outside a transaction', () => {
  it('asked for together, go to the database together: one connection, one write', async () => {
    const { store, link } = await openThroughSlowLink('read-batch', collections, 5);
    try {
      await store.insert('things', merchantA, thing('1'));
      await store.get('things', merchantA, '1');
      const sent = () => link.events().filter((event) => event.from === 'client').length;
      const before = sent();
      const found = await Promise.all(
        Array.from({ length: 20 }, () => store.get<JsonRecord>('things', merchantA, '1')),
      );
      expect(found.map((record) => record?.id)).toEqual(Array(20).fill('1'));
      // One read per connection of the pool (ten) and one write each without gathering them.
      expect(sent() - before).toBeLessThanOrEqual(2);
    } finally {
      await store.close();
      await link.close();
    }
  }, 60_000);

  it("go out with the scheduler's claims and the reads across scopes asked for meanwhile, in one write", async () => {
    const { store, link } = await openThroughSlowLink('batch-claims', collections, 5);
    try {
      await store.insert(JOBS_COLLECTION, merchantA, {
        id: 'due',
        kind: 'thing',
        target: 'due',
        state: 'pending',
        due_ms: 1000,
        run_at_ms: 1000,
        locked_by: null,
        locked_until_ms: null,
      });
      await store.insert('things', merchantA, thing('1'));
      // The statements prepared once on this connection, so that the write counted below is one of each.
      const askAll = () =>
        Promise.all([
          store.get('things', merchantA, '1'),
          store.findAcrossScopes('things', 'state', 'open'),
          store.claim({
            holder: 'h',
            nowMs: 1000,
            leaseMs: 100,
            which: { due: 'named', jobs: [{ scope: merchantA, id: 'due' }] },
          }),
          store.claim({ holder: 'h', nowMs: 1000, leaseMs: 100, which: { due: 'any', perScope: 5, scopes: 5 } }),
        ]);
      await askAll();
      const sent = () => link.events().filter((event) => event.from === 'client').length;
      const before = sent();
      const [found, across, , claimed] = await askAll();
      expect(found?.id).toBe('1');
      expect(across.map(({ record }) => record.id)).toEqual(['1']);
      expect(claimed.map(({ job }) => job.id)).toEqual(['due']);
      // Each claim and read across scopes on a connection of its own, beside the read's, was a write each: four.
      expect(sent() - before).toBe(1);
    } finally {
      await store.close();
      await link.close();
    }
  }, 60_000);
});

describe("a postgres transaction's lock on its scope", () => {
  it('costs no round trip of its own: BEGIN and the lock go out with the first statement', async () => {
    const { store, link } = await openThroughSlowLink('lock-ahead', collections, 100);
    try {
      await store.insert('things', merchantA, thing('1'));
      const read = await store.transaction((tx) => tx.get<JsonRecord>('things', merchantA, '1'));
      expect(read?.id).toBe('1');
      // The read with BEGIN and the lock, then COMMIT: two round trips; waiting for the lock first made three.
      const [first, ...rest] = transactionTurns(link.events());
      expect(first).toMatch(/BEGIN; SELECT pg_advisory_xact_lock\(.*\bSELECT\b/s);
      expect(rest).toHaveLength(1);
    } finally {
      await store.close();
      await link.close();
    }
  }, 60_000);

  it("is asked for by the scope's next transaction once COMMIT is on its way, not once it is answered", async () => {
    const { store, link } = await openThroughSlowLink('lock-handover', collections, 100);
    try {
      // Two connections open before (two scopes at once), as a pool under load has them.
      await Promise.all([
        store.insert('things', merchantA, thing('1', { count: 0 })),
        store.insert('things', merchantB, thing('1', { count: 0 })),
      ]);
      const increment = () =>
        store.transaction(async (tx) => {
          const current = await tx.get<JsonRecord & { count: number }>('things', merchantA, '1');
          await tx.update('things', merchantA, { ...current!, count: current!.count + 1 });
        });
      const from = link.events().length;
      await Promise.all([increment(), increment()]);
      expect((await store.get<JsonRecord & { count: number }>('things', merchantA, '1'))?.count).toBe(2);
      // The second's BEGIN and lock go out after the first's COMMIT and before its answer comes back.
      const events = link.events().slice(from);
      const sentWith = (text: string) =>
        events.findIndex((event) => event.from === 'client' && event.text.includes(text));
      const firstCommit = sentWith('COMMIT');
      const committer = events[firstCommit]!.connection;
      const commitAnswered = events.findIndex(
        (event, at) => at > firstCommit && event.from === 'database' && event.connection === committer,
      );
      const secondBegin = events.findIndex(
        (event, at) => at > firstCommit && event.from === 'client' && event.text.includes('BEGIN'),
      );
      expect(secondBegin).toBeGreaterThan(firstCommit);
      expect(secondBegin).toBeLessThan(commitAnswered);
    } finally {
      await store.close();
      await link.close();
    }
  }, 60_000);

  it('failing, fails the transaction with its own error, and the statements sent behind it run nowhere', async () => {
    const store = await openTestStore(server().url, 'lock-failure', collections, { statementTimeoutMs: 500 });
    const holder = new pg.Client({ connectionString: server().url });
    await holder.connect();
    try {
      // Another session holds every advisory lock the store could take: its lock waits past the timeout.
      await holder.query('BEGIN');
      const held = await store.transaction(async (tx) => {
        await tx.insert('things', merchantA, thing('probe'));
        return (
          await holder.query<{ objid: string; classid: string }>(
            "SELECT classid::text, objid::text FROM pg_locks WHERE locktype = 'advisory' AND granted",
          )
        ).rows[0];
      });
      expect(held).toBeDefined();
      await holder.query('SELECT pg_advisory_xact_lock(($1::bigint << 32) | $2::bigint)', [held!.classid, held!.objid]);
      await expect(
        store.transaction(async (tx) => {
          await tx.insert('things', merchantA, thing('2'));
        }),
      ).rejects.toThrow(/waiting for the scope: canceling statement due to statement timeout/);
      await holder.query('ROLLBACK');
      expect(await store.get('things', merchantA, '2')).toBeUndefined();
    } finally {
      await holder.end();
      await store.close();
    }
  }, 60_000);
});

describe('the postgres store on a table it has just filled', () => {
  it('reads a record by id through the key and looks a value up through its index, not the whole scope', async () => {
    const schema = schemaFor('young-table');
    const store = await openTestStore(server().url, 'young-table', [{ name: 'notes', indexed: ['state'] }]);
    const client = new pg.Client({ connectionString: server().url });
    await client.connect();
    try {
      // Enough rows that reading the scope costs more than finding one by its key.
      for (let batch = 0; batch < 10; batch++)
        await store.transaction(async (tx) => {
          for (let n = 0; n < ANALYZE_FIRST_AFTER; n++)
            await tx.insert('notes', merchantA, { id: `n${batch}-${n}`, state: 'open' });
        });
      const table = `"${schema}"."records_notes"`;
      const planOf = async (sql: string): Promise<string> =>
        (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      const byId = `SELECT data FROM ${table} WHERE merchant_id = 'm-a' AND mode = 'test' AND id = 'n7-7'`;
      const byState = `SELECT data FROM ${table} WHERE "${schema}".sandbox_key(data -> 'state') = '"closed"' AND merchant_id = 'm-a' AND mode = 'test' ORDER BY seq DESC LIMIT 1`;
      // The store analyzes in the background: wait for it, a while at most (autovacuum would take a minute).
      const deadline = Date.now() + 10_000;
      while ((await planOf(byId)).includes('notes__scope_seq') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await planOf(byId)).toMatch(/Index Cond: .*\bid = 'n7-7'/);
      expect(await planOf(byState)).toContain('notes__state__key');
    } finally {
      await client.end();
      await store.close();
    }
  }, 60_000);
});

describe('the postgres store when the database is away', () => {
  it('refuses to open, saying where it tried, when nothing listens there', async () => {
    const url = `postgres://sandbox:secret@127.0.0.1:${server().port + 1}/nowhere`;
    const opening = openPostgresStore({ connectionString: url, collections, connectTimeoutMs: 2000 });
    await expect(opening).rejects.toBeInstanceOf(DatabaseUnreachableError);
    await expect(opening).rejects.toThrow(/127\.0\.0\.1:\d+\/nowhere/);
    await expect(opening).rejects.not.toThrow(/secret/);
  });

  it('fails reads and writes quickly with StoreUnavailableError while the server is down, and works again once it is back, without being reopened', async () => {
    const store = await openTestStore(server().url, 'away', collections, {
      connectTimeoutMs: 1000,
      statementTimeoutMs: 2000,
    });
    try {
      await store.insert('things', merchantA, thing('before'));
      await server().stopServer('immediate');
      const started = Date.now();
      const failures = await Promise.allSettled([
        store.get('things', merchantA, 'before'),
        store.insert('things', merchantA, thing('during')),
        store.findAcrossScopes('things', 'state', 'open'),
      ]);
      expect(Date.now() - started).toBeLessThan(5000);
      for (const failure of failures) {
        expect(failure.status).toBe('rejected');
        expect(isStoreUnavailable((failure as PromiseRejectedResult).reason)).toBe(true);
      }
      expect((failures[0] as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
      await server().startServer();
      await store.insert('things', merchantA, thing('after'));
      expect((await store.list('things', merchantA, { order: 'oldest' })).map((record) => record.id)).toEqual([
        'before',
        'after',
      ]);
    } finally {
      await server()
        .startServer()
        .catch(() => undefined);
      await store.close();
    }
  }, 60_000);

  it('names each test data directory by a schema of its own', () => {
    expect(schemaFor('/tmp/sandbox-store-AbC')).toBe('t_sandbox_store_abc');
    expect(schemaFor(':memory:')).not.toBe(schemaFor(':memory:'));
  });
});
