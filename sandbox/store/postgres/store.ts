// The PostgreSQL store (STORE=postgres): several sandbox processes over one database. Tables and migrations:
// schema.ts. Records are jsonb, one table per collection, read and written with the `pg` client's pool.
//
// Transactions keep the interface's promise ("transactions do not interleave") across processes: a
// transaction takes an advisory lock on each scope (merchant and mode) before its first read or write of
// that scope, held until it ends, and runs in READ COMMITTED, so each statement after the lock sees
// everything committed before it. Two transactions of one scope therefore run one after the other, whatever
// process runs them: no lost update, and a check-then-insert (an idempotency key, a unique number) cannot
// be raced. Unique indexes stay as the last word. A deadlock between two transactions that lock two scopes in
// opposite orders is broken by PostgreSQL; the store runs the loser again. Transactions of different scopes
// run side by side. Reads outside a transaction are single statements and see committed data only.
//
// A write that would duplicate a unique value writes nothing and fails with DuplicateKeyError, leaving the
// rest of its transaction usable (the domain code catches it and goes on): the write checks the unique
// values in the same statement, which under the scope's lock no other transaction can change meanwhile.
//
// Durability: a transaction's promise resolves after COMMIT has returned, so an acknowledged write is in the
// database, whatever happens to the sandbox process after it.
import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  deepFreeze,
  DuplicateKeyError,
  isUnstorableValue,
  JOBS_COLLECTION,
  type ClaimRequest,
  type JobRecord,
  recordText,
  type CollectionDefinition,
  type FindOptions,
  type JsonRecord,
  type Scope,
  type Store,
  type Transaction,
} from '../store.js';
import {
  codeOf,
  DatabaseUnreachableError,
  isRetryable,
  isUnavailable,
  maskConnectionString,
  unavailable,
  uniqueViolation,
} from './errors.js';
import { keyOf, keyValue, prepareSchema, tablesOf, type CollectionTable, type KeyIndex } from './schema.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database; without it, the PG* variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE) say. */
  connectionString?: string;
  /** The schema holding the tables (created if missing). Default `public`. */
  schema?: string;
  collections: CollectionDefinition[];
  /** Connections of this process at most (DATABASE_POOL_SIZE). Default 3. */
  poolSize?: number;
  /** A statement running longer is cancelled and its request answered 503 (DATABASE_STATEMENT_TIMEOUT_MS). Default 5000. */
  statementTimeoutMs?: number;
  /** Waiting longer for a connection (a new one, or a free one of the pool) fails the request with 503. Default 3000. */
  connectTimeoutMs?: number;
}

// Few connections, the work queued in the sandbox. A scope's transactions already go one at a time (local turns)
// and the reads of a turn share one connection, so a connection past a few is a server process woken and put to
// sleep on the database's cores, and, with several sandboxes on one database, a transaction that waits for a
// merchant's lock inside the database, holding its connection, instead of in its sandbox holding nothing.
// Measured under the bench's mix over four merchants on the 2-core machine (bench README, tenth pass): two
// sandboxes served 5-13% less than one with 10 connections each, and from 3.5% less to 9% more with 3; one
// sandbox about the same.
export const DEFAULT_POOL_SIZE = 3;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5000;
const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
/** Runs of a transaction that lost a deadlock, at most. */
const TRANSACTION_TRIES = 5;
/** SQLSTATE of a deferred update that found no record (updateOrFail). */
const DIVISION_BY_ZERO = '22012';
/** Inserts of this process into a table before the store first analyzes it (then each time they double). */
export const ANALYZE_FIRST_AFTER = 100;

/** Where the store connects, for messages: the URL without its password, or what the PG* variables say. */
export function describeTarget(
  connectionString: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (connectionString) return maskConnectionString(connectionString);
  return `${env.PGHOST ?? 'localhost'}:${env.PGPORT ?? '5432'}/${env.PGDATABASE ?? env.PGUSER ?? '(PGDATABASE)'} (from the PG* variables)`;
}

interface TableStatements {
  get: string;
  listNewest: string;
  listOldest: string;
  insert: string;
  update: string;
  /** The update of a write sent without waiting: fails at the server (division by zero) when no record has the id. */
  updateOrFail: string;
  delete: string;
  clear: string;
  acrossById: string;
  /** Whether a record's unique value is taken by another record of the scope ($1 mode, $2 merchant, $3 id, $4 value as jsonb). */
  taken: Map<string, string>;
  /** By field: records of the scope with that key ($1, $2, $3 the key), newest or oldest first ($4 limit, $5 offset). */
  findNewest: Map<string, string>;
  findOldest: Map<string, string>;
  across: Map<string, string>;
}

function statementsOf(schema: string, { table, keys }: CollectionTable): TableStatements {
  const unique = keys.filter((key) => key.unique);
  // Another record of the scope holding one of the new record's unique values ($4 the new record).
  const conflict = unique
    .map((key) => `${keyOf(schema, key.field, 'o.data')} = ${keyOf(schema, key.field, '$4::jsonb')}`)
    .join(' OR ');
  const scope = 'merchant_id = $1 AND mode = $2';
  const byKey = (key: KeyIndex, order: 'DESC' | 'ASC') =>
    `SELECT data FROM ${table} WHERE ${keyOf(schema, key.field)} = $3::jsonb AND ${scope} ORDER BY seq ${order} LIMIT $4 OFFSET $5`;
  return {
    get: `SELECT data FROM ${table} WHERE ${scope} AND id = $3`,
    listNewest: `SELECT data FROM ${table} WHERE ${scope} ORDER BY seq DESC LIMIT $3 OFFSET $4`,
    listOldest: `SELECT data FROM ${table} WHERE ${scope} ORDER BY seq ASC LIMIT $3 OFFSET $4`,
    insert:
      unique.length === 0
        ? `INSERT INTO ${table} (merchant_id, mode, id, data) VALUES ($1, $2, $3, $4::jsonb)`
        : `INSERT INTO ${table} (merchant_id, mode, id, data) SELECT $1, $2, $3, $4::jsonb WHERE NOT EXISTS (SELECT 1 FROM ${table} o WHERE o.merchant_id = $1 AND o.mode = $2 AND (${conflict}))`,
    update:
      unique.length === 0
        ? `UPDATE ${table} SET data = $4::jsonb WHERE ${scope} AND id = $3`
        : `UPDATE ${table} SET data = $4::jsonb WHERE ${scope} AND id = $3 AND NOT EXISTS (SELECT 1 FROM ${table} o WHERE o.merchant_id = $1 AND o.mode = $2 AND o.id <> $3 AND (${conflict}))`,
    // A failing statement aborts the transaction, so the COMMIT sent behind it is answered ROLLBACK: nothing
    // of the transaction is kept although the COMMIT went before the update's answer was in (see commit).
    updateOrFail: `WITH written AS (UPDATE ${table} SET data = $4::jsonb WHERE ${scope} AND id = $3 RETURNING 1) SELECT 1 / count(*) FROM written`,
    delete: `DELETE FROM ${table} WHERE ${scope} AND id = $3`,
    clear: `DELETE FROM ${table} WHERE ${scope}`,
    acrossById: `SELECT merchant_id, mode, data FROM ${table} WHERE id = $1 ORDER BY seq ASC`,
    taken: new Map(
      unique.map((key) => [
        key.field,
        `SELECT 1 FROM ${table} o WHERE o.merchant_id = $1 AND o.mode = $2 AND o.id <> $3 AND ${keyOf(schema, key.field, 'o.data')} = ${keyOf(schema, key.field, '$4::jsonb')} LIMIT 1`,
      ]),
    ),
    findNewest: new Map(keys.map((key) => [key.field, byKey(key, 'DESC')])),
    findOldest: new Map(keys.map((key) => [key.field, byKey(key, 'ASC')])),
    across: new Map(
      keys.map((key) => [
        key.field,
        `SELECT merchant_id, mode, data FROM ${table} WHERE ${keyOf(schema, key.field)} = $1::jsonb ORDER BY seq ASC`,
      ]),
    ),
  };
}

interface ClaimStatements {
  any: string;
  scope: string;
  named: string;
}

/**
 * The claim on due jobs, one statement each (as graphile-worker's getJobs): the due, free rows are picked and
 * row-locked with FOR UPDATE SKIP LOCKED, so instances claiming at once each get other rows and none waits,
 * and the same statement writes the hold into them. Parameters: $1 real time now, $2 the holder, $3 the lease.
 * No scope's advisory lock is taken: a claim never waits for a merchant's transactions, nor they for it.
 */
function claimStatementsOf(schema: string, table: string): ClaimStatements {
  const runAt = (row: string) => keyOf(schema, 'run_at_ms', `${row}.data`);
  const due = (row: string) => `${runAt(row)} <= to_jsonb($1::bigint)`;
  // Within one scope, not by the run_at_ms index (which would walk every scope's due jobs): the scope's rows
  // by its own index, then sorted.
  const runAtValue = (row: string) => `(${row}.data ->> 'run_at_ms')::bigint`;
  const free = (row: string) =>
    `(${row}.data ->> 'locked_until_ms' IS NULL OR (${row}.data ->> 'locked_until_ms')::bigint <= $1 OR ${row}.data ->> 'locked_by' = $2)`;
  const take = (picked: string) => `${picked}
    UPDATE ${table} t SET data = t.data || jsonb_build_object(
      'run_at_ms', least(${runAtValue('t')}, $1::bigint), 'locked_by', $2::text, 'locked_until_ms', $1::bigint + $3::bigint)
    FROM picked WHERE t.merchant_id = picked.merchant_id AND t.mode = picked.mode AND t.id = picked.id
    RETURNING t.merchant_id, t.mode, t.data`;
  return {
    // Fair between merchants and modes: at most $4 jobs of each scope, from at most $5 scopes with due work.
    any: take(`WITH scopes AS (
      SELECT DISTINCT o.merchant_id, o.mode FROM ${table} o WHERE ${due('o')} AND ${free('o')} LIMIT $5
    ), picked AS (
      SELECT j.merchant_id, j.mode, j.id FROM scopes s CROSS JOIN LATERAL (
        SELECT o.merchant_id, o.mode, o.id FROM ${table} o
        WHERE o.merchant_id = s.merchant_id AND o.mode = s.mode AND ${runAtValue('o')} <= $1 AND ${free('o')}
        ORDER BY ${runAtValue('o')} LIMIT $4 FOR UPDATE SKIP LOCKED
      ) j
    )`),
    // A job another instance holds for later and has not started ($1 before its run_at_ms) is a reservation:
    // the advance of its scope's clock takes it over.
    scope: take(`WITH picked AS (
      SELECT o.merchant_id, o.mode, o.id FROM ${table} o
      WHERE o.merchant_id = $4 AND o.mode = $5 AND (o.data ->> 'due_ms')::bigint <= $6
        AND (${free('o')} OR (o.data ->> 'run_at_ms')::bigint > $1)
      ORDER BY (o.data ->> 'due_ms')::bigint LIMIT $7 FOR UPDATE SKIP LOCKED
    )`),
    named: take(`WITH picked AS (
      SELECT o.merchant_id, o.mode, o.id FROM ${table} o
      JOIN unnest($4::text[], $5::text[], $6::text[]) AS w(merchant_id, mode, id)
        ON o.merchant_id = w.merchant_id AND o.mode = w.mode AND o.id = w.id
      WHERE ${due('o')} AND ${free('o')} FOR UPDATE OF o SKIP LOCKED
    )`),
  };
}

/**
 * Turns per scope within this process: a transaction waits for the one before it on the same scope here,
 * holding nothing, before it takes a connection and the scope's database lock.
 */
function createLocalTurns() {
  const tails = new Map<string, Promise<void>>();
  return {
    /** Resolves when it is this caller's turn on `key`, with the function that ends the turn. */
    take: async (key: string): Promise<() => void> => {
      const before = tails.get(key) ?? Promise.resolve();
      let end!: () => void;
      const mine = new Promise<void>((resolve) => (end = resolve));
      const tail = before.then(() => mine);
      tails.set(key, tail);
      await before;
      return () => {
        end();
        if (tails.get(key) === tail) tails.delete(key);
      };
    },
  };
}

const statementNames = new Map<string, string>();
/** A statement's short name, made from its text once per text. */
const nameOf = (text: string): string => {
  let name = statementNames.get(text);
  if (name === undefined)
    statementNames.set(text, (name = `s${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return name;
};

/** `name` is set by pg's constructor from a config object, and read when the query is sent. */
type NamedQuery = pg.Query & { name?: string };
/**
 * A statement prepared once per connection (under its name), then only bound and run. Made as a pg Query from
 * its text, named afterwards, and given to the connection as it is: a config object is copied property by
 * property (descriptors and all) by pg, twice for a promise; 2% of the sandbox's samples under the mix.
 */
function runPrepared<R extends pg.QueryResultRow>(
  on: pg.ClientBase,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  return new Promise((resolve, reject) => {
    const statement: NamedQuery = new pg.Query<R>(text, values, (error, result) =>
      error ? reject(error) : resolve(result as unknown as pg.QueryResult<R>),
    );
    statement.name = nameOf(text);
    on.query(statement);
  });
}

const corked = new WeakSet<pg.ClientBase>();
/**
 * The statements given to a connection in one go (those a transaction sends ahead, then the one it waits
 * for) leave in one write: its socket is corked at the first and uncorked once the current callback and
 * the promise reactions it set off have run. A write to the database's socket is a system call that wakes
 * the server's process: one per statement was a fifth of the sandbox's CPU profile under the bench's mix.
 */
function oneWrite(client: pg.ClientBase): void {
  if (corked.has(client)) return;
  // The pool's clients are pg.Client (its types give them as the base).
  const { stream } = (client as pg.Client).connection;
  corked.add(client);
  stream.cork();
  process.nextTick(() => {
    corked.delete(client);
    stream.uncork();
  });
}

/** A checked-out connection's 'error' event (the connection lost): the statement under way fails on its own. */
const ignoreError = (): void => undefined;

interface ClaimedRow {
  merchant_id: string;
  mode: string;
  data: unknown;
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = options.schema ?? 'public';
  const tables = tablesOf(schema, options.collections);
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const target = describeTarget(options.connectionString);
  const connection = {
    ...(options.connectionString ? { connectionString: options.connectionString } : {}),
    application_name: 'payments-sandbox',
    connectionTimeoutMillis: connectTimeoutMs,
  };

  // Start-up on a connection of its own, without the statement timeout: waiting for another instance's
  // start-up to finish its migrations is not a statement running too long.
  const setup = new pg.Client(connection);
  setup.on('error', () => undefined);
  try {
    await setup.connect();
  } catch (error) {
    await setup.end().catch(() => undefined);
    throw new DatabaseUnreachableError(target, error);
  }
  try {
    await prepareSchema(setup, schema, tables);
  } finally {
    await setup.end().catch(() => undefined);
  }

  // `pipeline` is newer than the client's published types.
  const poolConfig: pg.PoolConfig & { pipeline: boolean } = {
    ...connection,
    // The pool counts waiting for a free connection in this timeout too: a busy scope's queue may take as
    // long as a statement may, while a database that is down refuses a new connection at once.
    connectionTimeoutMillis: Math.max(connectTimeoutMs, statementTimeoutMs),
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    statement_timeout: statementTimeoutMs,
    // A statement is sent without waiting for the answers to those before it (each still has its own Sync,
    // so outside a transaction one failing fails no other): a transaction's deferred writes use it.
    pipeline: true,
    // The server cancels a statement at statement_timeout; this also ends the wait when the server itself
    // does not answer at all (stopped, or the network dropped the connection without a word).
    query_timeout: statementTimeoutMs + 2000,
    // A transaction left open by a process that stopped answering is ended by the server, its locks freed.
    idle_in_transaction_session_timeout: Math.max(30_000, statementTimeoutMs * 2),
  };
  const pool = new pg.Pool(poolConfig);
  // An idle connection the server closed (a restart): the pool drops it and opens another when asked.
  pool.on('error', () => undefined);

  const byCollection = new Map(tables.map((t) => [t.collection, { table: t, sql: statementsOf(schema, t) }]));
  const tableOf = (collection: string) => {
    const found = byCollection.get(collection);
    if (!found) throw new Error(`unknown collection ${collection}`);
    return found;
  };
  const lookupOf = (statements: Map<string, string>, collection: string, field: string): string => {
    const found = statements.get(field);
    if (!found) throw new Error(`${collection}.${field} is not an indexed field`);
    return found;
  };
  const jobs = byCollection.get(JOBS_COLLECTION);
  const claims = jobs ? claimStatementsOf(schema, jobs.table.table) : undefined;
  const indexNamed = new Map(tables.flatMap((t) => t.keys).map((key) => [key.name, key]));

  const query = async <R extends pg.QueryResultRow>(
    on: pg.ClientBase,
    text: string,
    values: unknown[],
  ): Promise<pg.QueryResult<R>> => {
    oneWrite(on);
    try {
      return await runPrepared<R>(on, text, values);
    } catch (error) {
      throw isUnavailable(error) ? unavailable(error, 'a statement failed') : error;
    }
  };
  const page = (options?: FindOptions): [number | null, number] => [options?.limit ?? null, options?.offset ?? 0];
  const data = <T>(rows: { data: unknown }[]): T[] => rows.map((row) => row.data as T);

  /** The unique field of `record` another record of the scope already holds, if any. */
  const takenField = async (
    on: pg.ClientBase,
    collection: string,
    scope: Scope,
    record: JsonRecord,
  ): Promise<DuplicateKeyError | undefined> => {
    const { sql } = tableOf(collection);
    for (const [field, text] of sql.taken) {
      const value = record[field];
      if (value === undefined || value === null) continue;
      const { rowCount } = await query(on, text, [scope.merchantId, scope.mode, record.id, JSON.stringify(record)]);
      if (rowCount) return new DuplicateKeyError(collection, field, String(value));
    }
    return undefined;
  };
  /** A unique violation the index caught (a write outside the scope's lock) as DuplicateKeyError. */
  const duplicateOf = (error: unknown, record: JsonRecord): unknown => {
    const name = uniqueViolation(error);
    const index = name ? indexNamed.get(name) : undefined;
    return index ? new DuplicateKeyError(index.collection, index.field, String(record[index.field])) : error;
  };

  type Run = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;
  // Reads: inside a transaction on its connection, outside gathered on a connection of the pool (readBatch).
  const reads = (run: Run) => ({
    get: async <T extends JsonRecord>(collection: string, scope: Scope, id: string): Promise<T | undefined> =>
      data<T>((await run<{ data: unknown }>(tableOf(collection).sql.get, [scope.merchantId, scope.mode, id])).rows)[0],
    findBy: async <T extends JsonRecord>(
      collection: string,
      scope: Scope,
      field: string,
      value: string | number | boolean,
      options?: FindOptions,
    ) => {
      const { sql } = tableOf(collection);
      const text = lookupOf(options?.order === 'oldest' ? sql.findOldest : sql.findNewest, collection, field);
      // jsonb cannot read such a value as a key: no record holds it.
      if (isUnstorableValue(value)) return [];
      return data<T>(
        (await run<{ data: unknown }>(text, [scope.merchantId, scope.mode, keyValue(value), ...page(options)])).rows,
      );
    },
    list: async <T extends JsonRecord>(collection: string, scope: Scope, options?: FindOptions) => {
      const { sql } = tableOf(collection);
      return data<T>(
        (
          await run<{ data: unknown }>(options?.order === 'oldest' ? sql.listOldest : sql.listNewest, [
            scope.merchantId,
            scope.mode,
            ...page(options),
          ])
        ).rows,
      );
    },
  });

  // Reads outside a transaction (and the scheduler's claims) asked for during one round of the event loop's
  // I/O (the requests that came in together, the shared state's reads, a timer's claim) go out together: on
  // one connection of the pool, in one write, pipelined, each still a statement of its own (its own Sync: one
  // failing fails no other, each sees what was committed before it ran). One connection and one write each
  // cost a system call and a wake-up of a server process per read.
  let batch: { text: string; values: unknown[]; settle: (answer: Promise<pg.QueryResult>) => void }[] | undefined;
  const sendBatch = async (): Promise<void> => {
    const reads = batch ?? [];
    batch = undefined;
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      for (const read of reads) read.settle(Promise.reject(unavailable(error, 'no connection')));
      return;
    }
    let lost = false;
    client.on('error', ignoreError);
    oneWrite(client);
    const answers = reads.map(({ text, values, settle }) => {
      const answer = query(client, text, values);
      settle(answer);
      return answer.catch((error: unknown) => void (lost ||= isUnavailable(error)));
    });
    await Promise.all(answers);
    client.removeListener('error', ignoreError);
    client.release(lost ? true : undefined);
  };
  const readBatch: Run = <R extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    new Promise<pg.QueryResult<R>>((resolve, reject) => {
      if (!batch) {
        batch = [];
        setImmediate(() => void sendBatch());
      }
      batch.push({ text, values, settle: (answer) => (answer as Promise<pg.QueryResult<R>>).then(resolve, reject) });
    });

  const lockKeys = new Map<string, string>();
  const lockKey = (scope: Scope): string => {
    const text = `${schema}\n${scope.merchantId}\n${scope.mode}`;
    let key = lockKeys.get(text);
    if (key === undefined)
      lockKeys.set(text, (key = createHash('sha256').update(text).digest().readBigInt64BE(0).toString()));
    return key;
  };

  const localTurns = createLocalTurns();

  /**
   * One transaction. Its connection is taken at its first read or write, after its turn in this process's
   * queue for that scope: transactions of one scope waiting here hold no connection, so the pool stays free
   * for reads and other scopes. BEGIN goes with the first scope's lock; a further scope takes its own lock.
   */
  const openTransaction = () => {
    let client: pg.PoolClient | undefined;
    let endTurn: (() => void) | undefined;
    const passTurn = (): void => {
      endTurn?.();
      endTurn = undefined;
    };
    let broken = false;
    /** COMMIT was sent: the transaction is over at the server whatever its answer. */
    let ended = false;
    const entered = new Map<string, Promise<void>>();
    const lock = async (key: string): Promise<void> => {
      if (!client) {
        endTurn = await localTurns.take(key);
        try {
          client = await pool.connect();
        } catch (error) {
          throw unavailable(error, 'no connection');
        }
        // A connection lost while checked out reports here rather than crashing the process; the statement
        // under way fails on its own.
        client.on('error', ignoreError);
        // BEGIN and the lock in one statement (the simple protocol runs both), and sent ahead like a deferred
        // write: the statement that asked for the scope goes out with them, in the same write, and runs once
        // the lock is held, so a transaction pays no round trip of its own for its lock.
        sendAhead(client, `BEGIN; SELECT pg_advisory_xact_lock(${key})`);
        return;
      }
      sendAhead(client, `SELECT pg_advisory_xact_lock(${key})`);
    };
    /** Takes a scope's lock without waiting for it; its failure fails what follows, reported first. */
    const sendAhead = (on: pg.PoolClient, text: string): void => {
      oneWrite(on);
      deferred.push(
        on.query(text).then(
          () => undefined,
          (error: unknown) => {
            // A connection lost (or a server gone) is not used again, not even for ROLLBACK.
            if (isUnavailable(error)) broken = true;
            fail(isUnavailable(error) ? unavailable(error, 'waiting for the scope') : error);
          },
        ),
      );
    };
    /** Locks the scope for this transaction (once), and gives the connection to use. */
    const enter = async (scope: Scope): Promise<pg.PoolClient> => {
      const key = lockKey(scope);
      let entering = entered.get(key);
      if (!entering) entered.set(key, (entering = lock(key)));
      await entering;
      return client!;
    };
    /** Whether the statement wrote the record (it writes nothing when a unique value is taken, or, updating, when there is no such record). */
    const write = async (
      statement: 'insert' | 'update',
      collection: string,
      scope: Scope,
      record: JsonRecord,
    ): Promise<boolean> => {
      // Refused before the scope is locked: jsonb would refuse it with an error of its own.
      const text = recordText(collection, record);
      const on = await enter(scope);
      try {
        return (
          ((await query(on, tableOf(collection).sql[statement], [scope.merchantId, scope.mode, record.id, text]))
            .rowCount ?? 0) > 0
        );
      } catch (error) {
        throw duplicateOf(error, record);
      }
    };
    // Writes to a collection without unique values are sent without waiting for their answer: the connection
    // pipelines (pool option `pipeline`), so the statements behind them go out at once, still run after
    // them in order (a later read sees the write), and the transaction pays one round trip for a run of
    // writes instead of one each. Such a write can only fail on a fault (a lost record, a lost connection,
    // a deadlock), never on a value the domain code would catch: its failure fails every later statement
    // and the commit, which rolls back.
    let deferredFailure: { error: unknown } | undefined;
    const deferred: Promise<void>[] = [];
    const fail = (error: unknown) => void (deferredFailure ??= { error });
    /** The deferred write's failure, if one failed, before whatever a later statement then reports. */
    const firstFailure = (error: unknown): unknown => (deferredFailure ? deferredFailure.error : error);
    const afterDeferred = async <T>(statement: Promise<T>): Promise<T> => {
      if (deferredFailure) throw deferredFailure.error;
      try {
        return await statement;
      } catch (error) {
        throw firstFailure(error);
      }
    };
    /** Sends a statement of the scope without waiting for its answer; `failure` says what its error means. */
    const sendLater = async (
      scope: Scope,
      text: string,
      values: unknown[],
      failure: (error: unknown) => unknown = (error) => error,
    ): Promise<void> => {
      const on = await enter(scope);
      if (deferredFailure) throw deferredFailure.error;
      deferred.push(
        query(on, text, values).then(
          () => undefined,
          (error: unknown) => fail(failure(error)),
        ),
      );
    };
    const writeLater = async (
      statement: 'insert' | 'update',
      collection: string,
      scope: Scope,
      record: JsonRecord,
    ): Promise<void> => {
      const text = recordText(collection, record);
      const { sql } = tableOf(collection);
      const missing = () => new Error(`${collection} ${record.id} does not exist`);
      // An insert without unique values writes its row or fails (its id taken), at the server.
      await sendLater(
        scope,
        statement === 'update' ? sql.updateOrFail : sql.insert,
        [scope.merchantId, scope.mode, record.id, text],
        (error) => (codeOf(error) === DIVISION_BY_ZERO ? missing() : duplicateOf(error, record)),
      );
    };
    const deferrable = (collection: string) => tableOf(collection).sql.taken.size === 0;
    /** Inserts by collection, counted once committed (an ANALYZE sees only committed rows). */
    const inserts = new Map<string, number>();
    const read = reads((text, values) => query(client!, text, values));
    const tx: Transaction = {
      get: async <T extends JsonRecord>(collection: string, scope: Scope, id: string): Promise<T | undefined> => {
        await enter(scope);
        return afterDeferred(read.get<T>(collection, scope, id));
      },
      findBy: async <T extends JsonRecord>(
        collection: string,
        scope: Scope,
        field: string,
        value: string | number | boolean,
        options?: FindOptions,
      ) => {
        await enter(scope);
        return afterDeferred(read.findBy<T>(collection, scope, field, value, options));
      },
      list: async <T extends JsonRecord>(collection: string, scope: Scope, options?: FindOptions) => {
        await enter(scope);
        return afterDeferred(read.list<T>(collection, scope, options));
      },
      insert: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
        inserts.set(collection, (inserts.get(collection) ?? 0) + 1);
        if (deferrable(collection)) {
          await writeLater('insert', collection, scope, record);
          return record;
        }
        if (!(await afterDeferred(write('insert', collection, scope, record))))
          throw (
            (await takenField(client!, collection, scope, record)) ??
            new Error(`${collection} ${record.id}: the insert wrote nothing`)
          );
        return record;
      },
      update: async <T extends JsonRecord>(collection: string, scope: Scope, record: T) => {
        if (deferrable(collection)) {
          await writeLater('update', collection, scope, record);
          return record;
        }
        if (!(await afterDeferred(write('update', collection, scope, record))))
          throw (
            (await takenField(client!, collection, scope, record)) ??
            new Error(`${collection} ${record.id} does not exist`)
          );
        return record;
      },
      delete: async (collection, scope, id) => {
        const on = await enter(scope);
        return (
          ((await afterDeferred(query(on, tableOf(collection).sql.delete, [scope.merchantId, scope.mode, id])))
            .rowCount ?? 0) > 0
        );
      },
      // A delete that finds nothing is no failure: sent like a deferred write.
      discard: (collection, scope, id) =>
        sendLater(scope, tableOf(collection).sql.delete, [scope.merchantId, scope.mode, id]),
      clearScope: async (scope) => {
        const on = await enter(scope);
        for (const { sql } of byCollection.values())
          await afterDeferred(query(on, sql.clear, [scope.merchantId, scope.mode]));
      },
    };
    return {
      tx,
      broken: () => broken,
      commit: async (): Promise<void> => {
        if (!client) return;
        if (broken || deferredFailure) throw firstFailure(new Error('the transaction failed'));
        // COMMIT goes behind the deferred writes without waiting for their answers (in the same write as the
        // last of them): a deferred write that fails aborts the transaction at the server, which then answers
        // the COMMIT with ROLLBACK. One round trip and one write less under the scope's lock per transaction.
        oneWrite(client);
        const committing = client.query('COMMIT');
        ended = true;
        // The next transaction of the scope in this process may go as soon as COMMIT is on its way: its
        // BEGIN and lock reach the server behind it and wait there for the scope's lock, which the commit
        // frees, instead of a round trip later (and after this request's answer is written).
        passTurn();
        let answer: pg.QueryResult;
        try {
          answer = await committing;
        } catch (error) {
          broken = true;
          // Whether a COMMIT the connection lost on the way was applied is unknown: never run it again.
          throw isUnavailable(error) ? unavailable(error, 'the commit was not confirmed') : error;
        }
        // Answered before the COMMIT was; their handlers never reject.
        await Promise.all(deferred);
        if (answer.command !== 'COMMIT')
          throw firstFailure(new Error(`the transaction was not committed (${answer.command})`));
        for (const [collection, count] of inserts) noteInserts(collection, count);
      },
      rollback: async (): Promise<void> => {
        // A COMMIT answered ROLLBACK (or lost) ended the transaction already.
        if (!client || broken || ended) return;
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      },
      end: (): void => {
        if (client) {
          client.removeListener('error', ignoreError);
          client.release(broken ? true : undefined);
        }
        passTurn();
      },
    };
  };

  const open = new Set<Promise<unknown>>();
  let closed = false;

  // A young table's statistics. Until a table is analyzed, the planner takes each scope of it for about one
  // row, so it reads a record by id (or looks a value up) through the scope's index (merchant_id, mode, seq),
  // reading every record of the scope, and under the scope's lock when in a transaction: measured under the
  // bench's mix, 0.4-2.7 ms a statement instead of 20-100 us, and the lock held for most of it. Autovacuum
  // analyzes a table only once a minute at best, so the store analyzes a table it writes to itself, in the
  // background: after the first ANALYZE_FIRST_AFTER inserts this process committed to it, then each time they
  // double (a bounded cost per insert, and up to date while the table is young).
  const analyses = new Set<Promise<unknown>>();
  const inserted = new Map<string, { count: number; next: number }>();
  const noteInserts = (collection: string, count: number): void => {
    let counted = inserted.get(collection);
    if (!counted) inserted.set(collection, (counted = { count: 0, next: ANALYZE_FIRST_AFTER }));
    counted.count += count;
    if (counted.count < counted.next || closed) return;
    while (counted.next <= counted.count) counted.next *= 2;
    // Its failure (the database away) is the next statement's to report.
    const analysis = pool.query(`ANALYZE ${tableOf(collection).table.table}`).catch(() => undefined);
    analyses.add(analysis);
    void analysis.then(() => analyses.delete(analysis));
  };

  const runTransaction = async <T>(work: (tx: Transaction) => Promise<T>): Promise<T> => {
    for (let run = 1; ; run++) {
      if (closed) throw new Error('the store is closed');
      const transaction = openTransaction();
      try {
        const result = await work(transaction.tx);
        await transaction.commit();
        return result;
      } catch (error) {
        await transaction.rollback();
        if (!transaction.broken() && isRetryable(error) && run < TRANSACTION_TRIES) continue;
        throw isUnavailable(error) ? unavailable(error, 'a transaction failed') : error;
      } finally {
        transaction.end();
      }
    }
  };

  const transaction = <T>(work: (tx: Transaction) => Promise<T>): Promise<T> => {
    const running = runTransaction(work);
    open.add(running);
    const forget = () => void open.delete(running);
    running.then(forget, forget);
    return running;
  };

  const read = reads(readBatch);
  return {
    shared: true,
    transaction,
    // Frozen as the embedded stores give it (Store.get): a reader that changed it would fail there only.
    get: async <T extends JsonRecord>(collection: string, scope: Scope, id: string) =>
      deepFreeze(await read.get<T>(collection, scope, id)),
    findBy: read.findBy,
    list: read.list,
    insert: (collection, scope, record) => transaction((tx) => tx.insert(collection, scope, record)),
    update: (collection, scope, record) => transaction((tx) => tx.update(collection, scope, record)),
    delete: (collection, scope, id) => transaction((tx) => tx.delete(collection, scope, id)),
    discard: (collection, scope, id) => transaction((tx) => tx.discard(collection, scope, id)),
    clearScope: (scope) => transaction((tx) => tx.clearScope(scope)),
    findAcrossScopes: async <T extends JsonRecord>(
      collection: string,
      field: string,
      value: string | number | boolean,
    ) => {
      const { sql } = tableOf(collection);
      if (isUnstorableValue(value)) return [];
      const { rows } =
        field === 'id'
          ? await readBatch<ClaimedRow>(sql.acrossById, [String(value)])
          : await readBatch<ClaimedRow>(lookupOf(sql.across, collection, field), [keyValue(value)]);
      return rows.map((row) => ({
        scope: { merchantId: row.merchant_id, mode: row.mode as Scope['mode'] },
        record: row.data as T,
      }));
    },
    claim: async ({ holder, nowMs, leaseMs, which }: ClaimRequest) => {
      if (!claims) throw new Error(`the store was opened without the ${JOBS_COLLECTION} collection`);
      const common = [nowMs, holder, leaseMs];
      // Gathered with the reads asked for meanwhile: a claim is a statement of its own too (its own Sync).
      const { rows } =
        which.due === 'any'
          ? await readBatch<ClaimedRow>(claims.any, [...common, which.perScope, which.scopes])
          : which.due === 'scope'
            ? await readBatch<ClaimedRow>(claims.scope, [
                ...common,
                which.scope.merchantId,
                which.scope.mode,
                which.dueByMs,
                which.limit,
              ])
            : which.jobs.length === 0
              ? { rows: [] }
              : await readBatch<ClaimedRow>(claims.named, [
                  ...common,
                  which.jobs.map((job) => job.scope.merchantId),
                  which.jobs.map((job) => job.scope.mode),
                  which.jobs.map((job) => job.id),
                ]);
      return rows.map((row) => ({
        scope: { merchantId: row.merchant_id, mode: row.mode as Scope['mode'] },
        job: row.data as JobRecord,
      }));
    },
    settled: async () => void (await Promise.allSettled([...open])),
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...open]);
      await Promise.allSettled([...analyses]);
      await pool.end();
    },
  };
}
