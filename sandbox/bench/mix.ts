// The request mix the benchmark drives at each target, and the table it prints. Bodies come from the
// contract's own request examples, so both targets get requests the contract calls valid, and each
// disbursement gets a fresh external_id and idempotency key (a replay would measure the idempotency store).
import type { Request as CannonRequest, Result } from 'autocannon';
import { readFileSync } from 'node:fs';

export const bundledContractPath = new URL('../../generated/openapi.json', import.meta.url);

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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`the contract has no example ${name} for ${where}`);
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
  const fvaResponse = example(createFva.responses['200']?.content?.['application/json']?.examples, 'openAccount', 'createFixedVirtualAccount 200');
  return {
    fixedVirtualAccount: example(createFva.requestBody?.content['application/json']?.examples, 'openAccount', 'createFixedVirtualAccount'),
    disbursement: example(createDisbursement.requestBody?.content['application/json']?.examples, 'otherBank', 'createDisbursement'),
    exampleFixedVirtualAccountId: String(fvaResponse.id),
  };
}

export interface MixOptions {
  authorization: string;
  fixedVirtualAccountId: string;
  disbursement: Record<string, unknown>;
  /** Keeps external ids and idempotency keys of one run apart from another's. */
  runId: string;
}

/**
 * One cycle of the mix, which autocannon repeats on every connection: 3 reads of the stored FVA, 1
 * disbursement creation, 1 balance read (60/20/20).
 */
export function mixRequests(options: MixOptions): CannonRequest[] {
  const headers = { authorization: options.authorization };
  const read: CannonRequest = { method: 'GET', path: `/callback_virtual_accounts/${encodeURIComponent(options.fixedVirtualAccountId)}`, headers };
  let sequence = 0;
  const create: CannonRequest = {
    method: 'POST',
    path: '/disbursements',
    setupRequest: (request) => {
      sequence += 1;
      const unique = `${options.runId}-${sequence}`;
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
  result: Pick<Result, 'requests' | 'latency' | 'non2xx' | 'errors' | 'duration'> & { requests: Result['requests'] };
}

/** One row per target and the throughput ratio of the first to the second. */
export function formatTable(rows: readonly Measured[]): string {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors'];
  const lines = rows.map(({ target, result }) => [
    target,
    result.requests.average.toFixed(0),
    result.latency.p50.toFixed(1),
    result.latency.p99.toFixed(1),
    String(result.requests.total),
    String(result.non2xx),
    String(result.errors),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: string[]): string => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  const table = [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...lines.map(format)];
  const [first, second] = rows;
  if (first && second && second.result.requests.average > 0) {
    const ratio = first.result.requests.average / second.result.requests.average;
    table.push('', `${first.target}/${second.target} throughput ratio: ${ratio.toFixed(1)}x (target: at least 5x)`);
  }
  // An answer that is not a success is cheaper (or dearer) than the work the mix asks for: such a run
  // does not measure the mix.
  for (const { target, result } of rows) {
    if (result.non2xx > 0 || result.errors > 0) table.push(`not comparable: ${target} failed ${result.non2xx + result.errors} requests (${result.non2xx} non-2xx, ${result.errors} errors)`);
  }
  return table.join('\n');
}
