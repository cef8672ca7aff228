// The benchmark behind `npm run bench:diff` (bench.ts reads its command line and loads this only to run it): the
// time to read two bundled contracts and diff the service contract against a copy of itself with 20 changes
// (target: under 1 s), median of several runs. A figure, not an assertion.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '@payments-contract/conformance/testing';
import type { JsonObject } from '@payments-contract/model/types';
import { readWorkingContract } from '../releases/changelog.js';
import { diffContracts } from './diff.js';
import { groupByChange } from './format.js';
import { loadContract } from './load.js';

const RUNS = Number(process.env.BENCH_DIFF_RUNS ?? 7);

/** A loosely typed view for editing a copy of the contract in place (paths known to exist in it). */
type Node = Record<string, unknown>;
const at = (doc: Node | JsonObject, ...path: string[]): Node =>
  path.reduce<Node>((node, key) => node[key] as Node, doc as Node);

/** Twenty changes across the rule families, each one a finding the check must make. */
export function twentyChanges(doc: JsonObject): JsonObject {
  const copy = structuredClone(doc) as Node;
  const schemas = at(copy, 'components', 'schemas');
  const disbursement = at(schemas, 'CreateDisbursementRequest');
  at(disbursement, 'properties', 'external_id').maxLength = 500; // 1 request bound tightened
  at(disbursement, 'properties').reference = { type: 'string' }; // 2 optional request field
  (disbursement.required as string[]).push('description'); // 3 field made required
  at(disbursement, 'allOf', '2', 'then', 'allOf', '0', 'properties', 'amount').maximum = 50000000; // 4 conditional limit
  at(disbursement, 'allOf', '0', 'then', 'allOf', '0', 'properties', 'account_number')['x-error-codes'] = {
    pattern: 'API_VALIDATION_ERROR',
  }; // 5 rule → code
  delete at(schemas, 'Disbursement', 'properties').email_bcc; // 6 response field removed
  const paths = at(copy, 'paths');
  delete paths['/balance']; // 7 operation removed
  paths['/ping'] = { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } }; // 8 operation added
  const createDisbursement = at(paths, '/disbursements', 'post');
  at(createDisbursement, 'responses')['409'] = { description: 'conflict' }; // 9 status added
  createDisbursement['x-validation-error'] = { status: 422, error_code: 'API_VALIDATION_ERROR' }; // 10
  delete at(createDisbursement, 'x-error-triggers').DUPLICATE_TRANSACTION_ERROR; // 11 trigger removed
  const ewallet = at(paths, '/ewallets', 'post', 'x-test-mode');
  (ewallet.outcomes as Node[])[0]!.failure_code = 'ACCOUNT_BLOCKED_ERROR'; // 12 test value outcome
  ewallet.default_outcome = { status: 'PENDING' }; // 13 default outcome
  const hooks = at(copy, 'webhooks');
  at(hooks, 'disbursement.finished', 'post', 'x-delivery').attempts = 1; // 14 fewer attempts
  at(hooks, 'ewallet.payment', 'post', 'x-delivery').retry_interval_seconds = 5; // 15 shorter spacing
  delete hooks['fixed_payment_code.paid']; // 16 callback kind removed
  const machines = at(copy, 'x-state-machines');
  (at(machines, 'disbursement').states as string[]).push('REVERSED'); // 17 state added
  (at(machines, 'disbursement').transitions as Node[]).push({
    from: 'COMPLETED',
    trigger: { event: 'reversed' },
    to: 'REVERSED',
  }); // 18 transition added
  (at(machines, 'ewalletPayment').transitions as Node[]).pop(); // 19 transition removed
  ((copy['x-decisions'] as Node[])[0] as Node).decision = 'Every successful call answers 200 or 201.'; // 20 decision changed
  return copy as JsonObject;
}

/** Runs the benchmark and prints its figure; the command line was read by bench.ts. */
export function benchDiff(): number {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-diff-'));
  try {
    const oldFile = join(scratch, 'old.json');
    const newFile = join(scratch, 'new.json');
    const working = readWorkingContract();
    writeFileSync(oldFile, JSON.stringify(working));
    writeFileSync(newFile, JSON.stringify(twentyChanges(working)));
    const times: number[] = [];
    let changes = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const result = diffContracts(loadContract(oldFile, 'service').doc, loadContract(newFile, 'service').doc);
      times.push(performance.now() - started);
      changes = groupByChange(result.findings).length;
    }
    process.stdout.write(
      `read + diff of the service contract against a copy with 20 changes: ${Math.round(median(times))} ms median of ${RUNS} (first run ${Math.round(times[0]!)} ms, target under 1000 ms); ${changes} changes reported\n`,
    );
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
