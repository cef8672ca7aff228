// The request mix the benchmark drives at each target, and the table it prints. Bodies come from the
// contract's own request examples, so both targets get requests the contract calls valid, and each
// disbursement gets a fresh external_id and idempotency key (a replay would measure the idempotency store).
import type { Request as CannonRequest, Result } from 'autocannon';
import { readFileSync } from 'node:fs';
import { median } from '@payments-contract/conformance/testing';
import { openapiPath } from '@payments-contract/contract';
import { pathToFileURL } from 'node:url';

export const bundledContractPath = new URL(pathToFileURL(openapiPath));

interface ExampleSet {
  [name: string]: { value: unknown };
}
interface Operation {
  requestBody?: { content: Record<string, { examples?: ExampleSet }> };
  responses: Record<string, { content?: Record<string, { examples?: ExampleSet }> }>;
}
type Contract = { paths: Record<string, Record<string, Operation>> };

function operation(contract: Contract, path: string, method: string): Operation {
  const found = contract.paths[path]?.[method];
  if (!found) throw new Error(`the contract has no ${method.toUpperCase()} ${path}`);
  return found;
}

function example(examples: ExampleSet | undefined, name: string, where: string): Record<string, unknown> {
  const value = examples?.[name]?.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`the contract has no example ${name} for ${where}`);
  return value as Record<string, unknown>;
}

export interface MixBodies {
  /** The body of the FVA the sandbox stores before the run (the contract's open-account example). */
  fixedVirtualAccount: Record<string, unknown>;
  /** The disbursement created by the mix (the contract's other-bank example). */
  disbursement: Record<string, unknown>;
  /** An FVA id from the contract's examples, for a target that stores nothing (Prism answers any id). */
  exampleFixedVirtualAccountId: string;
}

export function mixBodies(contractPath: URL | string = bundledContractPath): MixBodies {
  const contract = JSON.parse(readFileSync(contractPath, 'utf8')) as Contract;
  const createFva = operation(contract, '/callback_virtual_accounts', 'post');
  const createDisbursement = operation(contract, '/disbursements', 'post');
  const fvaResponse = example(
    createFva.responses['200']?.content?.['application/json']?.examples,
    'openAccount',
    'createFixedVirtualAccount 200',
  );
  return {
    fixedVirtualAccount: example(
      createFva.requestBody?.content['application/json']?.examples,
      'openAccount',
      'createFixedVirtualAccount',
    ),
    disbursement: example(
      createDisbursement.requestBody?.content['application/json']?.examples,
      'otherBank',
      'createDisbursement',
    ),
    exampleFixedVirtualAccountId: String(fvaResponse.id),
  };
}

/** One merchant the mix acts for: its key (as an Authorization header) and the FVA stored for it. */
export interface MixMerchant {
  authorization: string;
  fixedVirtualAccountId: string;
}

export interface MixOptions {
  /** Each cycle of the mix goes to every merchant in turn (one, unless the run spreads over several). */
  merchants: readonly MixMerchant[];
  disbursement: Record<string, unknown>;
  /** Keeps external ids and idempotency keys of one run apart from another's. */
  runId: string;
}

/**
 * One cycle of the mix per merchant, which autocannon repeats on every connection: 3 reads of the merchant's
 * stored FVA, 1 disbursement creation, 1 balance read (60/20/20).
 */
export function mixRequests(options: MixOptions): CannonRequest[] {
  let sequence = 0;
  return options.merchants.flatMap((merchant) => merchantCycle(merchant, options, () => ++sequence));
}

function merchantCycle(merchant: MixMerchant, options: MixOptions, next: () => number): CannonRequest[] {
  const headers = { authorization: merchant.authorization };
  const read: CannonRequest = {
    method: 'GET',
    path: `/callback_virtual_accounts/${encodeURIComponent(merchant.fixedVirtualAccountId)}`,
    headers,
  };
  const create: CannonRequest = {
    method: 'POST',
    path: '/disbursements',
    setupRequest: (request) => {
      const unique = `${options.runId}-${next()}`;
      return {
        ...request,
        headers: { ...headers, 'content-type': 'application/json', 'x-idempotency-key': `bench-${unique}` },
        body: JSON.stringify({ ...options.disbursement, external_id: `bench-${unique}` }),
      };
    },
  };
  const balance: CannonRequest = { method: 'GET', path: '/balance', headers };
  return [read, read, read, create, balance];
}

/** What the sandbox process did during a measurement (bench/probe.ts): none for Prism. */
export interface ProcessUse {
  wallMs: number;
  /** CPU time of the sandbox processes, every thread. */
  cpuMs: number;
  /** Time their event loops sat idle (summed over the processes, as `wallMs` is). */
  idleMs: number;
}

export interface Measured {
  target: string;
  /** Which round of the run (from 1); the targets take turns, one round each. */
  round: number;
  result: Pick<Result, 'requests' | 'latency' | 'non2xx' | 'errors' | 'duration'> & { requests: Result['requests'] };
  sandbox?: ProcessUse;
}

/**
 * What a target is held to (issue 26), against figures of the same run: throughput a multiple of the
 * baseline's (Prism's) median, a p99 at most the baseline's and at most a bound, an absolute throughput, or
 * at least another target's median.
 */
export interface Goal {
  timesBaseline?: number;
  p99AtMostBaselineAndMs?: number;
  reqPerSecond?: number;
  atLeastTarget?: string;
}

/** PostgreSQL, one sandbox, one merchant, measured before the work of issue 26 (req/s). */
export const POSTGRES_BEFORE_REQ_PER_SECOND = 839;

/**
 * The goals of each target the bench names: the journal store five times Prism with a shorter tail, SQLite
 * three times; one sandbox on PostgreSQL 1.5 times its figure from before (for one merchant, the mix it was
 * measured with), and several sandboxes sharing a database at least what one serves (spread over merchants:
 * one merchant's writes run one at a time however many sandboxes serve them).
 */
export function goalOf(target: string, merchants: number): Goal | undefined {
  if (target === 'sandbox journal') return { timesBaseline: 5, p99AtMostBaselineAndMs: 10 };
  if (target === 'sandbox sqlite') return { timesBaseline: 3 };
  const instances = /^sandbox postgres x(\d+)$/.exec(target)?.[1];
  if (instances === undefined) return undefined;
  if (instances === '1') return merchants === 1 ? { reqPerSecond: 1.5 * POSTGRES_BEFORE_REQ_PER_SECOND } : undefined;
  return merchants > 1 ? { atLeastTarget: 'sandbox postgres x1' } : undefined;
}

const fixed = (value: number | undefined, digits: number): string =>
  value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
/** CPU microseconds per request answered. */
const cpuPerRequest = (use: ProcessUse | undefined, requests: number): number | undefined =>
  use && requests > 0 ? (use.cpuMs * 1000) / requests : undefined;
const idleShare = (use: ProcessUse | undefined): number | undefined =>
  use && use.wallMs > 0 ? (100 * use.idleMs) / use.wallMs : undefined;
const definedMedian = (values: (number | undefined)[]): number | undefined => {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : median(known);
};

/**
 * One row per target and round, then each target's median row (when there are several rounds), then each
 * target against the last (the sandbox on each store it ran with, against Prism): the ratio of the medians,
 * round by round, and the goals (`goals`) met or not. Rounds alternate between the targets, so a spell of load
 * from elsewhere on the machine lowers one round of each rather than every round of one; the median then
 * sets such a round aside. A sandbox's row also gives its CPU per request and the share of the time its
 * event loop sat idle.
 */
export function formatTable(
  rows: readonly Measured[],
  goals: (target: string) => Goal | undefined = () => undefined,
): string {
  const targets = [...new Set(rows.map((row) => row.target))];
  const rounds = Math.max(...rows.map((row) => row.round));
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors', 'CPU µs/req', 'idle %'];
  interface Line {
    label: string;
    throughput: number;
    p50: number;
    p99: number;
    total: number;
    non2xx: number;
    errors: number;
    cpu: number | undefined;
    idle: number | undefined;
  }
  const cells = (line: Line): string[] => [
    line.label,
    line.throughput.toFixed(0),
    line.p50.toFixed(1),
    line.p99.toFixed(1),
    String(line.total),
    String(line.non2xx),
    String(line.errors),
    fixed(line.cpu, 0),
    fixed(line.idle, 0),
  ];
  const lines = rows.map(
    ({ target, round, result, sandbox }): Line => ({
      label: rounds > 1 ? `${target} #${round}` : target,
      throughput: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      total: result.requests.total,
      non2xx: result.non2xx,
      errors: result.errors,
      cpu: cpuPerRequest(sandbox, result.requests.total),
      idle: idleShare(sandbox),
    }),
  );
  /** Each target's rounds summed up once: the median row, the ratio and the failure lines all read it. */
  const summaries = targets.map((target): Line & { target: string } => {
    const own = rows.filter((row) => row.target === target);
    const sum = (pick: (result: Measured['result']) => number): number =>
      own.reduce((total, row) => total + pick(row.result), 0);
    return {
      target,
      label: `${target} median`,
      throughput: median(own.map((row) => row.result.requests.average)),
      p50: median(own.map((row) => row.result.latency.p50)),
      p99: median(own.map((row) => row.result.latency.p99)),
      total: sum((result) => result.requests.total),
      non2xx: sum((result) => result.non2xx),
      errors: sum((result) => result.errors),
      cpu: definedMedian(own.map((row) => cpuPerRequest(row.sandbox, row.result.requests.total))),
      idle: definedMedian(own.map((row) => idleShare(row.sandbox))),
    };
  });
  if (rounds > 1) lines.push(...summaries);
  const texts = lines.map(cells);
  const widths = header.map((title, column) => Math.max(title.length, ...texts.map((line) => line[column]!.length)));
  const format = (line: string[]): string =>
    line
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  const table = [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...texts.map(format)];
  // Every other target against the last one (Prism), each sandbox store on its own line.
  const baseline = summaries.at(-1);
  const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
  for (const measured of summaries.slice(0, -1)) {
    if (baseline === undefined || baseline.throughput <= 0) break;
    const ratio = measured.throughput / baseline.throughput;
    const byRound = Array.from({ length: rounds }, (_, index) => {
      const of = (target: string) =>
        rows.find((row) => row.target === target && row.round === index + 1)?.result.requests.average ?? 0;
      return of(baseline.target) > 0 ? `${(of(measured.target) / of(baseline.target)).toFixed(1)}x` : '-';
    });
    if (measured === summaries[0]) table.push('');
    table.push(
      `${measured.target}/${baseline.target} throughput ratio: ${ratio.toFixed(1)}x${rounds > 1 ? `; round by round: ${byRound.join(', ')}` : ''}`,
    );
    const goal = goals(measured.target);
    if (goal?.timesBaseline !== undefined)
      // The ratio judged, to the hundredth: the line above rounds it, and 2.96x printed as 3.0x read as met.
      table.push(
        `  goal: at least ${goal.timesBaseline}x ${baseline.target}: ${ratio.toFixed(2)}x, ${met(ratio >= goal.timesBaseline)}`,
      );
    if (goal?.p99AtMostBaselineAndMs !== undefined) {
      const bound = Math.min(baseline.p99, goal.p99AtMostBaselineAndMs);
      table.push(
        `  goal: p99 at most ${baseline.target}'s (${baseline.p99.toFixed(1)} ms) and at most ${goal.p99AtMostBaselineAndMs} ms: ${measured.p99.toFixed(1)} ms, ${met(measured.p99 <= bound)}`,
      );
    }
    if (goal?.reqPerSecond !== undefined)
      table.push(
        `  goal: at least ${goal.reqPerSecond.toFixed(0)} req/s (1.5x the ${POSTGRES_BEFORE_REQ_PER_SECOND} measured before): ${met(measured.throughput >= goal.reqPerSecond)}`,
      );
    const other = summaries.find((summary) => summary.target === goal?.atLeastTarget);
    if (other)
      table.push(
        `  goal: at least ${other.target}'s ${other.throughput.toFixed(0)} req/s: ${met(measured.throughput >= other.throughput)}`,
      );
  }
  // An answer that is not a success is cheaper (or dearer) than the work the mix asks for: such a run
  // does not measure the mix.
  for (const t of summaries) {
    if (t.non2xx > 0 || t.errors > 0)
      table.push(
        `not comparable: ${t.target} failed ${t.non2xx + t.errors} requests (${t.non2xx} non-2xx, ${t.errors} errors)`,
      );
  }
  return table.join('\n');
}
