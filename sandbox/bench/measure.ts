// The benchmark behind `npm run bench` (bench.ts reads its command line and loads this only to run it): the
// sandbox and the Prism mock of the same contract, side by side on loopback, each driven with the same request
// mix (reads of a stored FVA, disbursement creations, balance reads: 60/20/20)
// by autocannon for a fixed time after a warm-up; prints one table with requests/s, p50 and p99 latency,
// non-2xx answers, the sandbox's CPU per request and idle share (bench/probe.ts, loaded into each sandbox),
// the sandbox/Prism throughput ratio and the goals of issue 26 against the same run, met or not. Both run as
// their own processes, so neither shares an event loop with the load generator. Figures only: nothing here
// passes or fails.
//
// --store names the stores to run the sandbox on (default: the sandbox's default, journal); with several, a
// sandbox runs on each, and every round measures each of them and Prism in turn. For postgres, a throwaway
// PostgreSQL server is started, and --instances says how many sandboxes share one database of it: each count
// is a target of its own (its own database), the connections split evenly between its sandboxes, their
// figures summed (requests) or the worst taken (latency). --merchants spreads the mix over that many merchants
// (each with its own key, FVA and balance), as a shared test environment serves many teams: one merchant's
// writes run one at a time whatever the number of sandboxes (the store's promise), several merchants' side
// by side.
//
// After its warm-up and each of its measurements, a sandbox is left to finish what those requests started
// (the disbursements' automatic outcomes and their callbacks) before the next target is measured, so that
// no target pays for another's background work.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import autocannon, { type Request as CannonRequest } from 'autocannon';
import { startPrism } from '@payments-contract/conformance/testing';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { DEFAULT_AUTO_PROGRESS_DELAY_MS } from '../platform/auto-resolve.js';
import { repoRoot } from '../testing/repo-root.js';
import pg from 'pg';
import type { StoreChoice } from '../store/open-store.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../store/postgres/testing/throwaway.js';
import {
  bundledContractPath,
  formatTable,
  goalOf,
  mixBodies,
  mixRequests,
  type Measured,
  type MixMerchant,
  type ProcessUse,
} from './mix.js';
import type { ProbeAnswer } from './probe.js';
import { SANDBOX_ENTRY, startScriptNodeFlags } from '../testing/start-script.js';

interface SandboxProcess {
  url: string;
  /** What the process did since the last call (or since it started): bench/probe.ts answers it. */
  probe(): Promise<ProbeAnswer>;
  stop(): Promise<void>;
}

/** Loaded into each sandbox to answer `probe`. */
const PROBE = join(repoRoot, 'sandbox/bench/probe.ts');
/** The most of a starting sandbox's output kept, to show why it did not start: its last lines. */
const KEPT_OUTPUT_CHARS = 16 * 1024;

/**
 * The sandbox as `npm start` runs it, in a throwaway data directory, except that response validation (a
 * development aid that checks the sandbox's own answers) and the rate limits are off; request validation
 * stays on, as in Prism.
 */
async function startSandboxProcess(
  dataDir: string,
  store: StoreChoice,
  callbackUrl: string,
  merchantsEnv: string,
  databaseUrl?: string,
): Promise<SandboxProcess> {
  const args = [
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--store',
    store,
    '--callback-url',
    callbackUrl,
    '--validate-responses',
    'false',
    ...(databaseUrl ? ['--database-url', databaseUrl] : []),
  ];
  const child: ChildProcess = spawn(
    process.execPath,
    [...startScriptNodeFlags(repoRoot), '--import', PROBE, join(repoRoot, SANDBOX_ENTRY), ...args],
    {
      cwd: repoRoot,
      // The IPC channel carries the probe's answers.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Rate limits off: the bench measures how much the sandbox serves, which a key's limit would cap.
      env: {
        ...process.env,
        SANDBOX_SECRET_KEY: DEFAULT_TEST_SECRET_KEY,
        SANDBOX_MERCHANTS: merchantsEnv,
        SANDBOX_RATE_LIMITS: 'false',
      },
    },
  );
  // Only until it listens, and only the last lines: what says why it did not start.
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-KEPT_OUTPUT_CHARS);
  };
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sandbox did not start in 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer): void => {
      keep(chunk);
      const found = /listening on (\S+)/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', keep);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the sandbox exited (${String(code)}) before listening:\n${output}`));
    });
  });
  // From now on its output is drained, not kept: its log (a line per request) so that it never blocks on a
  // full pipe, its errors passed on to the bench's own stderr. Keeping every line in one growing string, and
  // searching it again, loaded the process that generates the load.
  output = '';
  child.stdout?.removeAllListeners('data');
  child.stdout?.resume();
  child.stderr?.removeAllListeners('data');
  child.stderr?.pipe(process.stderr);
  return {
    url,
    probe: () =>
      new Promise<ProbeAnswer>((resolve, reject) => {
        child.once('message', (answer) => resolve(answer as ProbeAnswer));
        if (!child.send('probe')) reject(new Error('the sandbox did not take the probe'));
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      process.removeListener('exit', killOnExit);
    },
  };
}

/** The sandbox's default merchant, then `count - 1` more the sandboxes are given in SANDBOX_MERCHANTS. */
function benchMerchants(count: number): { id: string; key: string; authorization: string }[] {
  const keys = [
    DEFAULT_TEST_SECRET_KEY,
    ...Array.from({ length: count - 1 }, (_, index) => `sk_test_bench_merchant_${index + 2}`),
  ];
  return keys.map((key, index) => ({
    id: index === 0 ? 'default' : `bench-merchant-${index + 1}`,
    key,
    authorization: basicAuthorization({ username: key, password: '' }),
  }));
}

/** The merchant endpoint that acknowledges every callback (receiver.ts), started in a process of its own. */
async function startReceiver(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'sandbox/bench/receiver.ts')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
    void exited.then((code) => reject(new Error(`the callback receiver exited (${String(code)}) before listening`)));
  });
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      process.removeListener('exit', killOnExit);
    },
  };
}

async function post(url: string, authorization: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** Far more disbursement creations per second than any run makes: the balance must never be what stops one. */
const CREATIONS_PER_SECOND_CEILING = 50_000;
/** The control API's largest single top-up. */
const LARGEST_TOP_UP = 1_000_000_000_000;

/**
 * Tops the sandbox's balance up so that every disbursement of the run is paid for: the default balance
 * covers some 40,000 of the mix's disbursements, which a fast run spends, and insufficient-balance errors
 * would then be measured instead of creations.
 */
async function fundDisbursements(url: string, authorization: string, amount: number, seconds: number): Promise<void> {
  for (let needed = amount * CREATIONS_PER_SECOND_CEILING * seconds; needed > 0; needed -= LARGEST_TOP_UP) {
    await post(`${url}/sandbox/balance/top_up`, authorization, { amount: Math.min(needed, LARGEST_TOP_UP) });
  }
}

function run(
  url: string,
  requests: CannonRequest[],
  seconds: number,
  connections: number,
  title: string,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, requests, duration: seconds, connections, title, timeout: 10 }, (error, result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result),
    );
  });
}

export interface BenchOptions {
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  merchants: number;
}

/** Several sandboxes driven at once as one target: requests summed, the worst latency of them. */
function together(results: autocannon.Result[]): Measured['result'] {
  const [first] = results;
  if (!first || results.length === 1) return first!;
  const sum = (pick: (result: autocannon.Result) => number): number =>
    results.reduce((total, result) => total + pick(result), 0);
  const worst = (pick: (result: autocannon.Result) => number): number => Math.max(...results.map(pick));
  return {
    requests: { ...first.requests, average: sum((r) => r.requests.average), total: sum((r) => r.requests.total) },
    latency: { ...first.latency, p50: worst((r) => r.latency.p50), p99: worst((r) => r.latency.p99) },
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    duration: worst((r) => r.duration),
  };
}

/**
 * One round of `target` (one sandbox, or several sharing a database, each driven with its share of the
 * connections at the same time); the first round of each target starts with its warm-up.
 */
async function measure(
  target: BenchTarget,
  round: number,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<Measured> {
  const { name, urls, requests } = target;
  const connections = Math.max(1, Math.round(options.connections / urls.length));
  if (round === 1) {
    log(`${name}: warming up for ${options.warmup} s...`);
    await Promise.all(urls.map((url) => run(url, requests(), options.warmup, connections, `${name} warm-up`)));
    await settle(target, log);
  }
  log(
    `${name}: round ${round} of ${options.rounds}, measuring for ${options.duration} s with ${options.connections} connections...`,
  );
  const probes = target.sandboxes ?? [];
  await Promise.all(probes.map((sandbox) => sandbox.probe()));
  const result = together(
    await Promise.all(urls.map((url) => run(url, requests(), options.duration, connections, name))),
  );
  const used = await Promise.all(probes.map((sandbox) => sandbox.probe()));
  await settle(target, log);
  return { target: name, round, result, ...(used.length > 0 ? { sandbox: summed(used) } : {}) };
}

/** Several sandboxes' use of the machine as one: their CPU and idle time summed, as their wall time is. */
function summed(answers: readonly ProbeAnswer[]): ProcessUse {
  return answers.reduce(
    (total, answer) => ({
      wallMs: total.wallMs + answer.wallMs,
      cpuMs: total.cpuMs + answer.cpuMs,
      idleMs: total.idleMs + answer.idleMs,
    }),
    { wallMs: 0, cpuMs: 0, idleMs: 0 },
  );
}

interface BenchTarget {
  name: string;
  urls: string[];
  /** The sandbox processes measured (none for Prism). */
  sandboxes?: SandboxProcess[];
  requests: () => CannonRequest[];
  /** The merchants' Authorization headers, for a sandbox: whose background work `settle` waits for. */
  authorizations?: string[];
}

/** Longest wait for a sandbox's background work after a measurement. */
const SETTLE_LIMIT_MS = 120_000;

/**
 * Waits until a sandbox's background work from the requests just measured is done: the disbursements'
 * automatic outcomes (due after the delay) and the callbacks they queue. Without this, the target measured
 * next paid for it on the same two cores, and the order of the targets decided part of the ranking.
 */
async function settle(target: BenchTarget, log: (line: string) => void): Promise<void> {
  const { authorizations, urls } = target;
  if (!authorizations) return;
  const started = performance.now();
  await sleep(DEFAULT_AUTO_PROGRESS_DELAY_MS + 500);
  // Sandboxes sharing a database list the same deliveries: asking the first is enough.
  const pendingOf = async (authorization: string): Promise<number> =>
    (
      (await (
        await fetch(`${urls[0]!}/sandbox/callbacks?state=pending`, { headers: { authorization } })
      ).json()) as unknown[]
    ).length;
  while ((await Promise.all(authorizations.map(pendingOf))).some((pending) => pending > 0)) {
    if (performance.now() - started > SETTLE_LIMIT_MS)
      throw new Error(`${target.name}: callbacks still pending ${SETTLE_LIMIT_MS / 1000} s after the measurement`);
    await sleep(250);
  }
  log(
    `${target.name}: background work done ${((performance.now() - started) / 1000).toFixed(1)} s after the measurement`,
  );
}

async function createDatabase(server: ThrowawayPostgres, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return server.urlOf(name);
}

/** Starts the targets, drives the mix at each in rounds, prints the table; the options were read by bench.ts. */
export async function benchSandbox(
  options: BenchOptions,
  stores: readonly StoreChoice[],
  instanceCounts: readonly number[],
): Promise<number> {
  const log = (line: string): void => console.error(line);
  const merchants = benchMerchants(options.merchants);
  const merchantsEnv = JSON.stringify(
    merchants.slice(1).map(({ id, key }) => ({
      id,
      keys: { test: key, live: key.replace(/^sk_test_/, 'sk_live_') },
      callback_tokens: { test: `cb_${id}_test`, live: `cb_${id}_live` },
    })),
  );
  const bodies = mixBodies();
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'));
  const receiver = await startReceiver();
  const stops: (() => Promise<void>)[] = [receiver.stop, async () => rmSync(dataDir, { recursive: true, force: true })];
  try {
    log(`starting the sandbox (${stores.join(', ')}) and Prism...`);
    const runId = Date.now().toString(36);
    const mix = (mixMerchants: MixMerchant[], target: string) => () =>
      mixRequests({
        merchants: mixMerchants,
        disbursement: bodies.disbursement,
        runId: `${runId}-${target}-${Math.random().toString(36).slice(2, 8)}`,
      });
    const targets: BenchTarget[] = [];
    /** Funds each merchant through the first sandbox and stores the FVA the mix reads; the others share its database. */
    const addTarget = async (name: string, sandboxes: SandboxProcess[]) => {
      const urls = sandboxes.map((sandbox) => sandbox.url);
      const mixMerchants: MixMerchant[] = [];
      for (const { authorization } of merchants) {
        await fundDisbursements(
          urls[0]!,
          authorization,
          Number(bodies.disbursement.amount),
          options.warmup + options.rounds * options.duration,
        );
        const stored = await post(`${urls[0]!}/callback_virtual_accounts`, authorization, {
          ...bodies.fixedVirtualAccount,
          external_id: `bench-${runId}-${targets.length}`,
        });
        mixMerchants.push({ authorization, fixedVirtualAccountId: String(stored.id) });
      }
      targets.push({
        name,
        urls,
        sandboxes,
        requests: mix(mixMerchants, name),
        authorizations: merchants.map(({ authorization }) => authorization),
      });
    };
    for (const store of stores) {
      if (store !== 'postgres') {
        const sandbox = await startSandboxProcess(join(dataDir, store), store, receiver.url, merchantsEnv);
        stops.unshift(sandbox.stop);
        await addTarget(`sandbox ${store}`, [sandbox]);
        continue;
      }
      const server = await startThrowawayPostgres();
      stops.unshift(server.stop);
      for (const count of instanceCounts) {
        const databaseUrl = await createDatabase(server, `bench_${count}`);
        const sandboxes: SandboxProcess[] = [];
        for (let n = 0; n < count; n++) {
          const sandbox = await startSandboxProcess(
            join(dataDir, `postgres-${count}-${n}`),
            store,
            receiver.url,
            merchantsEnv,
            databaseUrl,
          );
          stops.unshift(sandbox.stop);
          sandboxes.push(sandbox);
        }
        await addTarget(`sandbox postgres x${count}`, sandboxes);
      }
    }
    const prism = await startPrism({ specPath: bundledContractPath.pathname });
    stops.unshift(prism.stop);
    targets.push({
      name: 'prism',
      urls: [prism.url],
      requests: mix(
        merchants.map(({ authorization }) => ({
          authorization,
          fixedVirtualAccountId: bodies.exampleFixedVirtualAccountId,
        })),
        'prism',
      ),
    });

    const rows: Measured[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of targets) rows.push(await measure(target, round, options, log));
    }
    // Both targets and the load generator share this machine: a busy one lowers both, and the ratio is then
    // the figure to read.
    const [load] = loadavg();
    console.log(
      `\n${availableParallelism()} CPUs; load average ${load?.toFixed(1) ?? '?'} when the run ended (other work on the machine lowers every figure).`,
    );
    console.log(
      `Same contract, same mix (60% GET /callback_virtual_accounts/{id}, 20% POST /disbursements, 20% GET /balance) for ${options.merchants === 1 ? 'one merchant' : `${options.merchants} merchants in turn`}, ${options.connections} connections, ${options.rounds} rounds of ${options.duration} s each in turn after ${options.warmup} s of warm-up; request validation on in both; the sandbox's response validation off (--validate-responses false).\n`,
    );
    console.log(formatTable(rows, (target) => goalOf(target, options.merchants)));
    return 0;
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => console.error('bench: stopping failed:', error));
  }
}
