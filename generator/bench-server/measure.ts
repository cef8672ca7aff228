// The server benchmark behind `npm run bench:server` (bench.ts reads its command line and loads this only to
// run it): the generated router on the generated Node listener, side by side with Fastify 5, Hono on
// @hono/node-server and a bare node:http ceiling, all doing the same work (Basic authentication,
// ajv validation of the contract's schemas, trivial in-memory handlers, the contract's error answers; see
// scenario.ts). First checks that every target answers valid, invalid and unauthenticated requests alike
// (same status, same body), then measures each load on each target in alternating rounds with autocannon and
// prints req/s, p50 and p99, the CPU time each target's process spent per request (the figure other work on a
// shared machine moves least), each target's ratio to the generated router, its share of the ceiling, and
// the goals. Figures, not assertions: the machine is shared, so nothing here fails on a slow run.
//
// The ceiling writes each answer as soon as it is made, as node:http servers (Fastify, Hono) do; the
// generated listener writes the answers of one turn of the event loop together (node-listener.ts,
// AnswerBatch), which costs the kernel less per answer, so it can pass the ceiling.
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { median } from '@payments-contract/conformance/testing';
import { EQUIVALENCE_CASES, LOADS, type BenchRequest, type Load } from './requests.js';
import type { TargetName } from './server-process.js';

const SERVER_PROCESS = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const REFERENCE: TargetName = 'generated';
const CEILING: TargetName = 'bare';
const PEER: TargetName = 'fastify';
const GOALS = { throughputOverPeer: 1.1, ceilingShareOnReads: 0.85 };

interface Running {
  name: TargetName;
  url: string;
  /** The CPU time the target's process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts a target in its own process; extra node flags (a profiler) come from BENCH_SERVER_NODE_OPTIONS. */
async function startTarget(name: TargetName): Promise<Running> {
  const flags = (process.env.BENCH_SERVER_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', SERVER_PROCESS, name], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const found = /listening on (\S+)/.exec(output);
      if (found?.[1]) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${String(code)} before listening:\n${output}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    url,
    cpuMicros: () =>
      new Promise((resolve) => {
        child.once('message', (usage: NodeJS.CpuUsage) => resolve(usage.user + usage.system));
        child.send('cpu-usage');
      }),
    async stop() {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function send(url: string, request: BenchRequest): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { notJson: text };
  }
  return { status: response.status, body };
}

/** Every difference between a target's answers and the generated router's, as lines; none when they agree. */
async function differences(targets: readonly Running[]): Promise<string[]> {
  const found: string[] = [];
  const reference = targets.find((target) => target.name === REFERENCE) ?? targets[0]!;
  for (const { name, request } of EQUIVALENCE_CASES) {
    const expected = await send(reference.url, request);
    for (const target of targets) {
      if (target === reference) continue;
      const answer = await send(target.url, request);
      if (answer.status !== expected.status)
        found.push(`${name}: ${target.name} answered ${answer.status}, ${reference.name} ${expected.status}`);
      else if (!isDeepStrictEqual(answer.body, expected.body))
        found.push(
          `${name}: ${target.name} answered ${JSON.stringify(answer.body)}, ${reference.name} ${JSON.stringify(expected.body)}`,
        );
    }
  }
  return found;
}

interface Measured {
  target: TargetName;
  load: Load;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** CPU time of the target's process per request, in microseconds. */
  cpuPerRequest: number;
  /** Answers with another status than the load's, connection errors and timeouts. */
  unexpected: number;
}

function cannon(url: string, load: Load, seconds: number, connections: number): Promise<autocannon.Result> {
  const { method, path, headers, body } = load.request;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}${path}`,
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        duration: seconds,
        connections,
        timeout: 10,
      },
      (error, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
  });
}

async function measure(target: Running, load: Load, seconds: number, connections: number): Promise<Measured> {
  const cpuBefore = await target.cpuMicros();
  const result = await cannon(target.url, load, seconds, connections);
  const cpu = (await target.cpuMicros()) - cpuBefore;
  const expectedClass = `${String(load.status)[0]}xx` as '2xx' | '4xx';
  return {
    target: target.name,
    load,
    requestsPerSecond: result.requests.total / (result.duration || seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerRequest: cpu / Math.max(1, result.requests.total),
    unexpected: result.requests.total - result[expectedClass] + result.errors + result.timeouts,
  };
}

const pad = (cells: readonly string[], widths: readonly number[]): string =>
  cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ');

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map(
      (row, index) =>
        (index === 1 ? `${widths.map((width) => '-'.repeat(width)).join('  ')}\n` : '') + pad(row, widths),
    )
    .join('\n');
}

interface Summary {
  target: TargetName;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
  unexpected: number;
  rounds: number[];
}

function summarize(measured: readonly Measured[], load: Load, targets: readonly TargetName[]): Summary[] {
  return targets.map((target) => {
    const own = measured.filter((row) => row.load === load && row.target === target);
    return {
      target,
      requestsPerSecond: median(own.map((row) => row.requestsPerSecond)),
      p50: median(own.map((row) => row.p50)),
      p99: median(own.map((row) => row.p99)),
      cpuPerRequest: median(own.map((row) => row.cpuPerRequest)),
      unexpected: own.reduce((sum, row) => sum + row.unexpected, 0),
      rounds: own.map((row) => row.requestsPerSecond),
    };
  });
}

/** The table of one load and the goals it is held to. */
export function report(load: Load, summaries: readonly Summary[]): string {
  const of = (name: TargetName): Summary | undefined => summaries.find((summary) => summary.target === name);
  const reference = of(REFERENCE);
  const ceiling = of(CEILING);
  const peer = of(PEER);
  const rows = [
    [
      'target',
      'req/s',
      'p50 ms',
      'p99 ms',
      'CPU µs/req',
      `× ${REFERENCE}`,
      `% of ${CEILING}`,
      'rounds (req/s)',
      'unexpected',
    ],
  ];
  for (const summary of summaries) {
    rows.push([
      summary.target,
      summary.requestsPerSecond.toFixed(0),
      summary.p50.toFixed(1),
      summary.p99.toFixed(1),
      summary.cpuPerRequest.toFixed(0),
      reference ? (summary.requestsPerSecond / reference.requestsPerSecond).toFixed(2) : '-',
      ceiling ? `${((100 * summary.requestsPerSecond) / ceiling.requestsPerSecond).toFixed(0)}%` : '-',
      summary.rounds.map((value) => value.toFixed(0)).join(' '),
      String(summary.unexpected),
    ]);
  }
  const goals: string[] = [];
  if (reference && peer) {
    const ratio = reference.requestsPerSecond / peer.requestsPerSecond;
    goals.push(
      `throughput ${ratio.toFixed(2)}× ${PEER} (goal ≥ ${GOALS.throughputOverPeer}×): ${ratio >= GOALS.throughputOverPeer ? 'met' : 'NOT met'}`,
    );
    goals.push(
      `p99 ${reference.p99.toFixed(1)} ms vs ${PEER} ${peer.p99.toFixed(1)} ms (goal ≤): ${reference.p99 <= peer.p99 ? 'met' : 'NOT met'}`,
    );
  }
  if (reference && ceiling && load.read) {
    const share = reference.requestsPerSecond / ceiling.requestsPerSecond;
    goals.push(
      `${(100 * share).toFixed(0)}% of the ${CEILING} ceiling (goal ≥ ${100 * GOALS.ceilingShareOnReads}%): ${share >= GOALS.ceilingShareOnReads ? 'met' : 'NOT met'}`,
    );
  }
  return `${load.name} (answers ${load.status})\n${table(rows)}\n${goals.map((goal) => `  ${goal}`).join('\n')}`;
}

export interface BenchOptions {
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
}

/** Starts `names`, checks they answer alike, measures every load on each; prints the figures. */
export async function benchServer(names: readonly TargetName[], options: BenchOptions): Promise<number> {
  const log = (text: string): void => void process.stderr.write(`${text}\n`);

  const running: Running[] = [];
  try {
    for (const name of names) running.push(await startTarget(name));
    const found = await differences(running);
    if (found.length > 0) {
      log(
        `The targets do not answer alike, so their figures would not compare:\n${found.map((line) => `  ${line}`).join('\n')}`,
      );
      return 1;
    }
    log(
      `equivalence: ${running.length} targets answer ${EQUIVALENCE_CASES.length} requests alike (valid, invalid, unauthenticated; statuses and bodies).`,
    );
    for (const target of running) {
      log(`${target.name}: warming up (${options.warmup} s per load)...`);
      for (const load of LOADS) await cannon(target.url, load, options.warmup, options.connections);
    }
    const measured: Measured[] = [];
    for (let round = 0; round < options.rounds; round++) {
      for (const load of LOADS) {
        // A different target goes first in each round, so none is always measured right after another's load.
        const order = running.map((_, index) => running[(index + round) % running.length]!);
        log(
          `round ${round + 1} of ${options.rounds}: ${load.name} on ${order.map((target) => target.name).join(', ')}...`,
        );
        for (const target of order) measured.push(await measure(target, load, options.duration, options.connections));
      }
    }
    const [load1, load5] = loadavg();
    console.log(
      `\n${availableParallelism()} CPUs; load average ${load1?.toFixed(1) ?? '?'} (1 min), ${load5?.toFixed(1) ?? '?'} (5 min) when the run ended; other work on the machine lowers every figure.`,
    );
    console.log(
      `${options.connections} connections, ${options.rounds} rounds of ${options.duration} s per load and target (medians), targets in rotating order, each in its own process; autocannon in this one.\n`,
    );
    for (const load of LOADS) console.log(`${report(load, summarize(measured, load, names))}\n`);
    return 0;
  } finally {
    await Promise.all(running.map((target) => target.stop()));
  }
}
