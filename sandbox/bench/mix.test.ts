import type { Request as CannonRequest, Result } from 'autocannon';
import { describe, expect, it } from 'vitest';
import { formatTable, goalOf, mixBodies, mixRequests } from './mix.js';

/** A measured round: `average` req/s for 10 s. */
const result = (average: number, p50: number, p99: number, non2xx = 0) =>
  ({
    requests: { average, total: average * 10 },
    latency: { p50, p99 },
    non2xx,
    errors: 0,
    duration: 10,
  }) as unknown as Result;

describe('the benchmark mix', () => {
  const bodies = mixBodies();
  const requests = mixRequests({
    merchants: [{ authorization: 'Basic eA==', fixedVirtualAccountId: 'fva-1' }],
    disbursement: bodies.disbursement,
    runId: 'r',
  });

  it('is 60% FVA reads, 20% disbursement creations, 20% balance reads', () => {
    const shape = requests.map((request) => `${request.method ?? 'GET'} ${request.path ?? ''}`);
    expect(shape.filter((line) => line === 'GET /callback_virtual_accounts/fva-1')).toHaveLength(3);
    expect(shape.filter((line) => line === 'POST /disbursements')).toHaveLength(1);
    expect(shape.filter((line) => line === 'GET /balance')).toHaveLength(1);
  });

  it("creates each disbursement from the contract's example with a fresh external_id and idempotency key", () => {
    const create = requests.find((request) => request.method === 'POST')!;
    const setup = create.setupRequest;
    if (typeof setup !== 'function') throw new Error('the creation prepares each request itself');
    const prepare = (): CannonRequest => setup({ ...create }, {});
    const [first, second] = [prepare(), prepare()];
    const body = JSON.parse(String(first.body)) as Record<string, unknown>;
    expect(body).toEqual({ ...bodies.disbursement, external_id: 'bench-r-1' });
    expect(first.headers?.['x-idempotency-key']).toBe('bench-r-1');
    expect(second.headers?.['x-idempotency-key']).toBe('bench-r-2');
    expect(first.headers?.authorization).toBe('Basic eA==');
  });

  it('spread over several merchants, gives each the same cycle with its own key and FVA, and keeps external ids unique across them', () => {
    const spread = mixRequests({
      merchants: [
        { authorization: 'Basic YQ==', fixedVirtualAccountId: 'fva-a' },
        { authorization: 'Basic Yg==', fixedVirtualAccountId: 'fva-b' },
      ],
      disbursement: bodies.disbursement,
      runId: 'r',
    });
    expect(spread.map((request) => `${request.headers?.authorization ?? ''} ${request.path ?? ''}`)).toEqual([
      'Basic YQ== /callback_virtual_accounts/fva-a',
      'Basic YQ== /callback_virtual_accounts/fva-a',
      'Basic YQ== /callback_virtual_accounts/fva-a',
      ' /disbursements',
      'Basic YQ== /balance',
      'Basic Yg== /callback_virtual_accounts/fva-b',
      'Basic Yg== /callback_virtual_accounts/fva-b',
      'Basic Yg== /callback_virtual_accounts/fva-b',
      ' /disbursements',
      'Basic Yg== /balance',
    ]);
    const prepared = spread
      .filter((request) => request.method === 'POST')
      .map((create) => (create.setupRequest as (r: CannonRequest, c: object) => CannonRequest)({ ...create }, {}));
    expect(prepared.map((request) => request.headers?.authorization)).toEqual(['Basic YQ==', 'Basic Yg==']);
    expect(prepared.map((request) => request.headers?.['x-idempotency-key'])).toEqual(['bench-r-1', 'bench-r-2']);
  });

  it('prints one row per target and the throughput ratio', () => {
    const table = formatTable([
      { target: 'sandbox', round: 1, result: result(6000, 1.2, 4.5) },
      { target: 'prism', round: 1, result: result(1000, 9, 30) },
    ]);
    expect(table).toMatch(/^target\s+req\/s\s+p50 ms\s+p99 ms/);
    expect(table).toMatch(/sandbox\s+6000\s+1\.2\s+4\.5\s+60000/);
    expect(table).toMatch(/prism\s+1000\s+9\.0\s+30\.0/);
    expect(table).toContain('sandbox/prism throughput ratio: 6.0x');
    expect(table).not.toContain('not comparable');

    const failing = formatTable([
      { target: 'sandbox', round: 1, result: result(6000, 1.2, 4.5, 3401) },
      { target: 'prism', round: 1, result: result(1000, 9, 30) },
    ]);
    expect(failing).toContain('not comparable: sandbox failed 3401 requests (3401 non-2xx, 0 errors)');
  });

  it('gives the ratio of each target to the last: the sandbox on each store to Prism', () => {
    const table = formatTable([
      { target: 'sandbox journal', round: 1, result: result(6000, 1.2, 4.5) },
      { target: 'sandbox sqlite', round: 1, result: result(4000, 1.5, 6) },
      { target: 'prism', round: 1, result: result(1000, 9, 30) },
    ]);
    expect(table).toContain('sandbox journal/prism throughput ratio: 6.0x');
    expect(table).toContain('sandbox sqlite/prism throughput ratio: 4.0x');
  });

  it("with rounds in turn, adds each target's median and gives the ratio of the medians and round by round", () => {
    const table = formatTable([
      { target: 'sandbox', round: 1, result: result(6000, 1, 4) },
      { target: 'prism', round: 1, result: result(1000, 9, 30) },
      { target: 'sandbox', round: 2, result: result(3000, 2, 9) },
      { target: 'prism', round: 2, result: result(1200, 8, 20) },
      { target: 'sandbox', round: 3, result: result(6600, 1, 5) },
      { target: 'prism', round: 3, result: result(1100, 9, 25) },
    ]);
    expect(table).toMatch(/sandbox #2\s+3000\s+2\.0\s+9\.0\s+30000/);
    expect(table).toMatch(/sandbox median\s+6000\s+1\.0\s+5\.0\s+156000\s+0\s+0/);
    expect(table).toMatch(/prism median\s+1100\s+9\.0\s+25\.0\s+33000/);
    expect(table).toContain('sandbox/prism throughput ratio: 5.5x; round by round: 6.0x, 2.5x, 6.0x');
  });

  it("gives a sandbox's CPU per request and the share of the time its event loop sat idle; Prism's stay blank", () => {
    const table = formatTable([
      // 60,000 requests for 6 s of CPU: 100 µs each; idle 2.5 s of 10.
      {
        target: 'sandbox',
        round: 1,
        result: result(6000, 1.2, 4.5),
        sandbox: { wallMs: 10_000, cpuMs: 6000, idleMs: 2500 },
      },
      { target: 'prism', round: 1, result: result(1000, 9, 30) },
    ]);
    expect(table).toMatch(/CPU µs\/req\s+idle %$/m);
    expect(table).toMatch(/^sandbox\s+6000\s+1\.2\s+4\.5\s+60000\s+0\s+0\s+100\s+25$/m);
    expect(table).toMatch(/^prism\s+1000\s+9\.0\s+30\.0\s+10000\s+0\s+0\s+-\s+-$/m);
  });

  /** One round of each target (name, req/s, p99 ms), Prism last, judged with the goals for `merchants`. */
  const judged = (merchants: number, ...targets: [string, number, number][]): string =>
    formatTable(
      targets.map(([target, average, p99]) => ({ target, round: 1, result: result(average, 2, p99) })),
      (target) => goalOf(target, merchants),
    );

  it('holds each target to its goal against the same run: the journal to 5x Prism and a shorter tail, SQLite to 3x', () => {
    const table = judged(1, ['sandbox journal', 6000, 12], ['sandbox sqlite', 3500, 6], ['prism', 1000, 30]);
    expect(table).toContain('sandbox journal/prism throughput ratio: 6.0x\n  goal: at least 5x prism: 6.00x, met');
    expect(table).toContain("goal: p99 at most prism's (30.0 ms) and at most 10 ms: 12.0 ms, NOT met");
    expect(table).toContain('sandbox sqlite/prism throughput ratio: 3.5x\n  goal: at least 3x prism: 3.50x, met');
  });

  it('gives the ratio a goal judged to the hundredth, so that one just under the goal never reads as met', () => {
    const table = judged(1, ['sandbox sqlite', 5204, 7], ['prism', 1758, 12]);
    expect(table).toContain('sandbox sqlite/prism throughput ratio: 3.0x\n  goal: at least 3x prism: 2.96x, NOT met');
  });

  it('holds one sandbox on PostgreSQL to 1.5x its figure from before for one merchant, and two to at least one over several', () => {
    expect(goalOf('sandbox postgres x1', 1)).toEqual({ reqPerSecond: 1258.5 });
    expect(goalOf('sandbox postgres x2', 1)).toBeUndefined();
    expect(goalOf('sandbox postgres x2', 4)).toEqual({ atLeastTarget: 'sandbox postgres x1' });
    expect(
      judged(4, ['sandbox postgres x1', 1300, 40], ['sandbox postgres x2', 1200, 50], ['prism', 1000, 30]),
    ).toContain("goal: at least sandbox postgres x1's 1300 req/s: NOT met");
    expect(judged(1, ['sandbox postgres x1', 1300, 40], ['prism', 1000, 30])).toContain(
      'goal: at least 1259 req/s (1.5x the 839 measured before): met',
    );
  });
});
