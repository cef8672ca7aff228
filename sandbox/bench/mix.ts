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

export interface Measured {
  target: string;
  /** Which round of the run (from 1); the targets take turns, one round each. */
  round: number;
  result: Pick<Result, 'requests' | 'latency' | 'non2xx' | 'errors' | 'duration'> & { requests: Result['requests'] };
}

/**
 * One row per target and round, then each target's median row (when there are several rounds), and the
 * throughput ratio of each target to the last (the sandbox on each store it ran with, to Prism): of their
 * medians, and round by round. Rounds alternate between the targets, so a spell of load from elsewhere on
 * the machine lowers one round of each rather than every round of one; the median then sets such a round
 * aside.
 */
export function formatTable(rows: readonly Measured[]): string {
  const targets = [...new Set(rows.map((row) => row.target))];
  const rounds = Math.max(...rows.map((row) => row.round));
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors'];
  const line = (
    label: string,
    throughput: number,
    p50: number,
    p99: number,
    total: number,
    non2xx: number,
    errors: number,
  ): string[] => [
    label,
    throughput.toFixed(0),
    p50.toFixed(1),
    p99.toFixed(1),
    String(total),
    String(non2xx),
    String(errors),
  ];
  const lines = rows.map(({ target, round, result }) =>
    line(
      rounds > 1 ? `${target} #${round}` : target,
      result.requests.average,
      result.latency.p50,
      result.latency.p99,
      result.requests.total,
      result.non2xx,
      result.errors,
    ),
  );
  /** Each target's rounds summed up once: the median row, the ratio and the failure lines all read it. */
  const summaries = targets.map((target) => {
    const own = rows.filter((row) => row.target === target).map((row) => row.result);
    const sum = (pick: (result: Measured['result']) => number): number =>
      own.reduce((total, result) => total + pick(result), 0);
    return {
      target,
      throughput: median(own.map((result) => result.requests.average)),
      p50: median(own.map((result) => result.latency.p50)),
      p99: median(own.map((result) => result.latency.p99)),
      total: sum((result) => result.requests.total),
      non2xx: sum((result) => result.non2xx),
      errors: sum((result) => result.errors),
    };
  });
  if (rounds > 1)
    for (const t of summaries)
      lines.push(line(`${t.target} median`, t.throughput, t.p50, t.p99, t.total, t.non2xx, t.errors));
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((cells) => cells[column]!.length)));
  const format = (cells: string[]): string =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  const table = [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(format)];
  // Every other target against the last one (Prism), each sandbox store on its own line.
  const baseline = summaries.at(-1);
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
      `${measured.target}/${baseline.target} throughput ratio: ${ratio.toFixed(1)}x (target: at least 5x)${rounds > 1 ? `; round by round: ${byRound.join(', ')}` : ''}`,
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
