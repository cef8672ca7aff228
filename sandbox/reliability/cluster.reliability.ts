// Two sandbox processes over one PostgreSQL database (STORE=postgres), under write load on both, with
// callbacks going to a local receiver that refuses a quarter of them (so some are retried and fail after
// their attempts). One sandbox is killed with SIGKILL: the other must have every write either acknowledged,
// deliver or fail every callback that was due (what the dead one had claimed too, once its lease lapses),
// and no callback may reach the receiver more often than its recorded attempts plus the attempts the dead
// one had claimed and not recorded. Then the database itself is stopped as a crash would stop it and started
// again under load: no acknowledged write is lost, the sandboxes answer JSON 503 meanwhile (never a 500, never
// silence) and serve again without being restarted. And a sandbox whose database cannot be reached at start
// says so and exits with 2.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UniqueValues } from '@payments-contract/conformance/testing';
import type { DeliveryRecord } from '../callbacks/outbox.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import { TEST_KEYS } from '../testing/index.js';
import { serviceContract } from './live-conformance.js';
import { figures, summaryLine } from './scale.js';
import { StartFailed, startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { printedSecrets } from './secrets.js';
import { isPresent, load, writableOperations, type Write } from './writes.js';

const { server } = useThrowawayPostgres();

/** A receiver that counts every callback it gets and answers 500 to a fixed quarter of them (by body), 200 to the rest. */
function startCountingReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const http: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received++;
      const refused = createHash('sha256').update(Buffer.concat(chunks)).digest()[0]! < 64;
      response.writeHead(refused ? 500 : 200).end();
    });
  });
  return new Promise((resolve) =>
    http.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/callbacks`,
        received: () => received,
        close: () => new Promise<void>((done) => http.close(() => done())),
      }),
    ),
  );
}

async function createDatabase(name: string): Promise<string> {
  const client = new pg.Client({ connectionString: server().url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return server().urlOf(name);
}

const authorization = `Basic ${Buffer.from(`${TEST_KEYS.aTest}:`).toString('base64')}`;

async function deliveries(url: string, state?: string): Promise<DeliveryRecord[]> {
  const response = await fetch(`${url}/sandbox/callbacks${state ? `?state=${state}` : ''}`, {
    headers: { authorization },
    signal: AbortSignal.timeout(15_000),
  });
  if (response.status !== 200)
    throw new Error(`listing callbacks answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as DeliveryRecord[];
}

/** Callback attempts held by a sandbox and not yet recorded (their jobs' holds), in the database at `databaseUrl`. */
async function openClaims(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      "SELECT count(*) FROM records_sandbox_jobs WHERE data ->> 'kind' = 'callback' AND data ->> 'locked_by' IS NOT NULL",
    );
    return Number(rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}

const acknowledged = (writes: Write[]) => writes.filter((write) => write.id !== undefined);

async function lostWrites(url: string, writes: Write[]): Promise<string[]> {
  const lost: string[] = [];
  for (const write of acknowledged(writes))
    if (!(await isPresent(url, write))) lost.push(`${write.operation.operationId} ${write.id!}`);
  return lost;
}

describe('two sandboxes on one PostgreSQL database', () => {
  let receiver: Awaited<ReturnType<typeof startCountingReceiver>>;
  const sandboxes: SandboxProcess[] = [];
  beforeAll(async () => {
    receiver = await startCountingReceiver();
  });
  afterAll(async () => {
    await Promise.all(sandboxes.map((sandbox) => sandbox.remove()));
    await receiver?.close();
  });
  const start = async (databaseUrl: string): Promise<SandboxProcess> => {
    const sandbox = await startSandboxProcess({
      env: {
        STORE: 'postgres',
        DATABASE_URL: databaseUrl,
        SANDBOX_CALLBACK_URL: receiver.url,
        CALLBACK_RETRY_DELAY_MS: '200',
        SANDBOX_AUTO_PROGRESS_DELAY_MS: '200',
        LOG_LEVEL: 'warn',
      },
    });
    sandboxes.push(sandbox);
    return sandbox;
  };

  it('keeps every acknowledged write and settles every callback when one is killed under load, none sent more often than claimed', async () => {
    const databaseUrl = await createDatabase('kill_one');
    const [first, second] = [await start(databaseUrl), await start(databaseUrl)];
    const operations = writableOperations();
    const unique = new UniqueValues(serviceContract);
    const writes: Write[] = [];
    const clients = Math.max(2, Math.floor(figures.writersInFlight / 4));
    const loads = [
      load(first!.url, operations, unique, writes, clients),
      load(second!.url, operations, unique, writes, clients),
    ];
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await first!.kill();
    // Claimed by the dead one and not recorded: each may have reached the receiver before the kill.
    const claimedByTheDead = await openClaims(databaseUrl);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await Promise.all(loads.map((running) => running.stop()));

    const lost = await lostWrites(second!.url, writes);
    // Every callback settles on the survivor: its own, and the dead one's once their holds lapse (15 s).
    const settleBy = Date.now() + 60_000;
    while ((await deliveries(second!.url, 'pending')).length > 0 && Date.now() < settleBy)
      await new Promise((resolve) => setTimeout(resolve, 500));
    const all = await deliveries(second!.url);
    const recordedAttempts = all.reduce((sum, delivery) => sum + delivery.attempts.length, 0);
    const beyondRecords = receiver.received() - recordedAttempts;
    console.log(
      summaryLine('SIGKILL of one of two sandboxes on one PostgreSQL database', {
        acknowledged: acknowledged(writes).length,
        lost: lost.length,
        callbacks: all.length,
        delivered: all.filter((d) => d.state === 'delivered').length,
        'failed after their attempts': all.filter((d) => d.state === 'failed').length,
        pending: all.filter((d) => d.state === 'pending').length,
        'attempts recorded': recordedAttempts,
        'requests received': receiver.received(),
        'claimed by the killed one': claimedByTheDead,
      }),
    );
    expect(lost, 'acknowledged writes lost').toEqual([]);
    expect(acknowledged(writes).length).toBeGreaterThan(0);
    // Retention keeps the newest 1000 per merchant and mode: beyond that, the count below would not hold.
    expect(all.length, 'callbacks listed (keep the load under the retention)').toBeLessThan(1000);
    expect(
      all.filter((d) => d.state === 'pending'),
      'callbacks still pending',
    ).toEqual([]);
    for (const delivery of all) {
      if (delivery.state === 'delivered') expect(delivery.attempts.at(-1)?.status, delivery.id).toBe(200);
      else if (delivery.attempts.length > 0)
        expect(delivery.attempts.length, `${delivery.id} failed after ${delivery.attempts.length} attempts`).toBe(
          delivery.max_attempts,
        );
      expect(delivery.attempts.length, delivery.id).toBeLessThanOrEqual(delivery.max_attempts);
    }
    expect(
      all.some((d) => d.state === 'failed' && d.attempts.length === d.max_attempts),
      'some callback failed after its attempts',
    ).toBe(true);
    expect(beyondRecords, 'callbacks received beyond the recorded attempts').toBeGreaterThanOrEqual(0);
    expect(
      beyondRecords,
      'callbacks received beyond the recorded attempts (at most those the killed one had claimed)',
    ).toBeLessThanOrEqual(claimedByTheDead);
    expect(printedSecrets(second!.output()), 'secrets in the output').toEqual([]);
  });

  it('keeps every acknowledged write when the database restarts under load, answering 503 meanwhile, and serves again without a restart', async () => {
    const databaseUrl = await createDatabase('restart_db');
    const [first, second] = [await start(databaseUrl), await start(databaseUrl)];
    const operations = writableOperations();
    const unique = new UniqueValues(serviceContract);
    const writes: Write[] = [];
    const statuses = new Map<number, number>();
    const unavailableBodies: string[] = [];
    const onAnswer = (status: number, body: string) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 503 && unavailableBodies.length < 1) unavailableBodies.push(body);
    };
    const clients = Math.max(2, Math.floor(figures.writersInFlight / 4));
    const loads = [
      load(first!.url, operations, unique, writes, clients, onAnswer),
      load(second!.url, operations, unique, writes, clients, onAnswer),
    ];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const beforeDown = acknowledged(writes).length;
    await server().stopServer('immediate');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await server().startServer();
    const back = Date.now();
    // Served again: a write acknowledged after the restart, by each sandbox.
    const ackedAfter = () => acknowledged(writes).length;
    const countAtRestart = ackedAfter();
    while (ackedAfter() < countAtRestart + 20 && Date.now() - back < 30_000)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const recoveredMs = Date.now() - back;
    await Promise.all(loads.map((running) => running.stop()));

    const lost = await lostWrites(second!.url, writes);
    const serverErrors = [...statuses].filter(([status]) => status >= 500 && status !== 503);
    console.log(
      summaryLine('PostgreSQL stopped (immediate) and started again under load on two sandboxes', {
        'acknowledged before the stop': beforeDown,
        acknowledged: acknowledged(writes).length,
        lost: lost.length,
        answers: JSON.stringify(Object.fromEntries(statuses)),
        'serving again after ms': recoveredMs,
      }),
    );
    expect(lost, 'acknowledged writes lost').toEqual([]);
    expect(serverErrors, 'answers 5xx other than 503').toEqual([]);
    expect(statuses.get(0) ?? 0, 'requests without an answer').toBe(0);
    expect(statuses.get(503) ?? 0, 'answers 503 while the database was down').toBeGreaterThan(0);
    expect(JSON.parse(unavailableBodies[0] ?? '{}')).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE' });
    expect(ackedAfter(), 'writes acknowledged after the restart').toBeGreaterThanOrEqual(countAtRestart + 20);
  });

  it('refuses to start when its database cannot be reached, saying where it tried, with exit code 2', async () => {
    const unreachable = `postgres://sandbox:hunter2@127.0.0.1:${server().port + 7}/nowhere`;
    const failure = await startSandboxProcess({ env: { STORE: 'postgres', DATABASE_URL: unreachable } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StartFailed);
    expect((failure as StartFailed).exitCode).toBe(2);
    expect((failure as StartFailed).output).toMatch(
      /cannot reach the database at postgres:\/\/sandbox:\*\*\*@127\.0\.0\.1:\d+\/nowhere/,
    );
    expect((failure as StartFailed).output).not.toContain('hunter2');
  });
});
