// Body and header limits, each on both sides of its edge: a body exactly at the cap is read, one byte more
// (declared, or arriving in chunks with no length) is the documented 413; a header section past the server's
// limit is the documented 431, one just under it is served. Every answer is JSON, and the sandbox serves the
// next request after each. What a scope keeps of its own is bounded too: a clock moved century by century
// stops, refused with a 400, before the dates it writes would need a fifth digit, and settings sent with
// megabytes of unknown fields store none of them, so neither that merchant nor another one slows down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { DEFAULT_MAX_BODY_BYTES } from '@payments-contract/server/runtime/router';
import { TEST_KEYS, type TestKeyName } from '../testing/index.js';
import { routerLevelAnswers } from './contract-facts.js';
import {
  baseOf,
  bodyPlus,
  baseText,
  VALID_AUTHORIZATION,
  variantRequest,
  type Base,
  type Variant,
} from './hostile-cases.js';
import { useSandbox } from './fixtures.js';
import { createJudge } from './judge.js';
import { controlContract, serviceContract } from './live-conformance.js';
import { sendRaw, serialize, type RawOutcome } from './raw-http.js';
import { figures, summaryLine } from './scale.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

const KiB = 1024;
const cap = DEFAULT_MAX_BODY_BYTES;
/** Node's default limit of a request's header section (--max-http-header-size), which the sandbox keeps. */
const HEADER_LIMIT = 16 * KiB;

/** What an edge case must get: a documented refusal, or anything but it. */
type Wanted = { refusal: number } | { not: number };

interface Edge {
  name: string;
  variant: (base: Base) => Variant;
  wanted: Wanted;
}

/** The base body padded with an unknown field to exactly `size` bytes. */
function padded(base: Base, size: number): string {
  const empty = bodyPlus(base, '{"reliability_pad":""}');
  return bodyPlus(base, `{"reliability_pad":"${'p'.repeat(size - Buffer.byteLength(empty))}"}`);
}

const EDGES: Edge[] = [
  { name: 'body exactly at the cap', variant: (base) => ({ body: padded(base, cap) }), wanted: { not: 413 } },
  {
    name: 'body one byte over the cap',
    variant: (base) => ({ body: padded(base, cap + 1) }),
    wanted: { refusal: 413 },
  },
  {
    name: 'chunked body exactly at the cap',
    variant: (base) => ({ body: padded(base, cap), chunkBytes: 64 * KiB }),
    wanted: { not: 413 },
  },
  {
    name: 'chunked body one byte over the cap',
    variant: (base) => ({ body: padded(base, cap + 1), chunkBytes: 64 * KiB }),
    wanted: { refusal: 413 },
  },
  {
    name: 'chunked body of 8 MiB',
    variant: (base) => ({ body: padded(base, 8 * cap), chunkBytes: 64 * KiB }),
    wanted: { refusal: 413 },
  },
  {
    name: 'body of 8 MiB with a length',
    variant: (base) => ({ body: padded(base, 8 * cap) }),
    wanted: { refusal: 413 },
  },
  {
    name: 'declared 1 GiB, nothing sent',
    variant: () => ({ body: '', headers: [['Content-Length', String(1024 * cap)]] }),
    wanted: { refusal: 413 },
  },
  {
    name: 'valid body in 1-byte chunks',
    variant: (base) => ({ body: baseText(base), chunkBytes: 1 }),
    wanted: { not: 413 },
  },
  {
    name: 'headers just under the limit',
    variant: (base) => ({ body: baseText(base), headers: [['X-Pad', 'h'.repeat(HEADER_LIMIT - 2 * KiB)]] }),
    wanted: { not: 431 },
  },
  {
    name: 'one header over the limit',
    variant: (base) => ({ body: baseText(base), headers: [['X-Pad', 'h'.repeat(HEADER_LIMIT + KiB)]] }),
    wanted: { refusal: 431 },
  },
  {
    name: '400 headers over the limit',
    variant: (base) => ({
      body: baseText(base),
      headers: Array.from({ length: 400 }, (_, i) => [`X-Pad-${i}`, 'h'.repeat(64)] as const),
    }),
    wanted: { refusal: 431 },
  },
  {
    name: 'request target over the limit',
    variant: (base) => ({ body: baseText(base), target: `${base.path}?pad=${'q'.repeat(HEADER_LIMIT + KiB)}` }),
    wanted: { refusal: 431 },
  },
  {
    name: 'request target of 8 KiB',
    variant: (base) => ({ body: baseText(base), target: `${base.path}?pad=${'q'.repeat(8 * KiB)}` }),
    wanted: { not: 431 },
  },
];

describe('body and header limits', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess();
  });
  afterAll(async () => {
    await sandbox?.remove();
  });

  it('answers each limit on both sides of its edge with a JSON answer, and serves the next request', async () => {
    const contracts = [serviceContract, controlContract];
    const judge = createJudge(contracts);
    const codes = routerLevelAnswers(contracts);
    // The first operation that requires a JSON body: where every limit applies.
    const operation = serviceContract.model.operations.find(
      (o) => o.body?.required && o.body.mediaTypes.includes('application/json'),
    );
    if (!operation) throw new Error('the contract has no operation requiring a JSON body');
    const base = baseOf(serviceContract, operation, sandbox.url, 'http://127.0.0.1:9/callbacks');
    const ping = serialize({ method: 'GET', target: '/balance', headers: [['Authorization', VALID_AUTHORIZATION]] });
    const wrong: string[] = [];
    const lines: string[] = [];
    for (const edge of EDGES) {
      const outcome: RawOutcome = await sendRaw(
        serialize(variantRequest(base, edge.variant(base), VALID_AUTHORIZATION)),
        { port: sandbox.port, timeoutMs: figures.requestTimeoutMs },
      );
      const judged = judge(outcome, { operation, authenticated: true });
      const code =
        outcome.kind === 'answer'
          ? (JSON.parse(outcome.body.toString('utf8') || '{}') as { error_code?: unknown }).error_code
          : undefined;
      const status = outcome.kind === 'answer' ? outcome.status : outcome.kind;
      const asWanted =
        'refusal' in edge.wanted
          ? status === edge.wanted.refusal && code === codes.get(edge.wanted.refusal)
          : status !== edge.wanted.not && judged.verdict === 'ok';
      const next = await sendRaw(ping, { port: sandbox.port, timeoutMs: figures.requestTimeoutMs });
      lines.push(
        `  ${edge.name}: ${status}${typeof code === 'string' ? ` ${code}` : ''} in ${Math.round(outcome.ms)} ms; next request ${next.kind === 'answer' ? next.status : next.kind}`,
      );
      if (!asWanted || judged.verdict !== 'ok')
        wrong.push(
          `${edge.name}: wanted ${'refusal' in edge.wanted ? `${edge.wanted.refusal} ${codes.get(edge.wanted.refusal)}` : `anything but ${edge.wanted.not}`}, got ${judged.verdict} ${judged.detail}`,
        );
      if (next.kind !== 'answer' || next.status !== 200)
        wrong.push(`${edge.name}: the next request got ${next.kind === 'answer' ? next.status : next.kind}`);
    }
    console.log(
      summaryLine('body and header limits', {
        edges: EDGES.length,
        operation: operation.operationId,
        'body cap': cap,
        'header limit': HEADER_LIMIT,
        wrong: wrong.length,
      }),
    );
    for (const line of lines) console.log(line);
    expect(wrong).toEqual([]);
  });
});

/** One control or service request of a test key, with its answer's status, body and time. */
async function send(
  sandbox: SandboxProcess,
  key: TestKeyName,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; json: Record<string, unknown>; bytes: number; ms: number }> {
  const started = performance.now();
  const headers: Record<string, string> = {
    authorization: basicAuthorization({ username: TEST_KEYS[key], password: '' }),
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${sandbox.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return {
    status: response.status,
    json: JSON.parse(text) as Record<string, unknown>,
    bytes: Buffer.byteLength(text),
    ms: performance.now() - started,
  };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

describe('what a scope keeps of its own', () => {
  // Rate limits off: 40 large updates and the reads beside them in one second passed the control group's
  // limit, and a 429 would hide what the settings' size does to the answers.
  const started = useSandbox({ env: { SANDBOX_RATE_LIMITS: 'false' } });

  it('stops the clock before its dates need a fifth digit: the refused advance moves nothing, and dates are written after it', async () => {
    const { sandbox } = started;
    const marker = controlContract.doc['x-clock-advance'];
    const latest = isObject(marker) && typeof marker.latest === 'string' ? marker.latest : '';
    expect(latest).not.toBe('');
    const century = 3_155_760_000_000;
    const advance = (ms: number) =>
      send(sandbox, 'aTest', 'POST', '/sandbox/clock/advance', JSON.stringify({ milliseconds: ms }));
    let answer = await advance(century);
    let accepted = 0;
    for (; answer.status === 200 && accepted < 200; accepted++) answer = await advance(century);
    const before = await send(sandbox, 'aTest', 'GET', '/sandbox/clock');
    const refusedAgain = await advance(century);
    const after = await send(sandbox, 'aTest', 'GET', '/sandbox/clock');
    const account = await send(
      sandbox,
      'aTest',
      'POST',
      '/callback_virtual_accounts',
      JSON.stringify({ external_id: 'reliability-clock', bank_code: 'BCA', name: 'Toko Sinar Jaya' }),
    );
    console.log(
      summaryLine('clock range', {
        'advances of 100 years accepted': accepted,
        refused: `${answer.status} ${String(answer.json.error_code)}`,
        'clock at': String(before.json.now),
        latest,
        'account created': account.status,
        'its default expiry': String(account.json.expiration_date),
      }),
    );
    expect(answer).toMatchObject({ status: 400, json: { error_code: 'API_VALIDATION_ERROR' } });
    expect(refusedAgain.status).toBe(400);
    expect(after.json.offset_ms).toBe(before.json.offset_ms);
    expect(String(before.json.now) <= latest).toBe(true);
    expect(account.status).toBe(200);
    expect(String(account.json.expiration_date)).toMatch(/^\d{4}-/);
  });

  it('stores no unknown settings field: 40 updates of 0.9 MB leave the settings their size, and no read slows down', async () => {
    const { sandbox } = started;
    const updates = 40;
    const pad = 'p'.repeat(900 * 1024);
    const readsOf = async (key: TestKeyName, count: number): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) times.push((await send(sandbox, key, 'GET', '/sandbox/settings')).ms);
      return times;
    };
    const baseline = await send(sandbox, 'aTest', 'GET', '/sandbox/settings');
    const otherBefore = await readsOf('bTest', 20);
    const statuses = new Map<number, number>();
    let otherMaxMs = 0;
    const updateMs: number[] = [];
    for (let i = 0; i < updates; i++) {
      const body = `{"__proto__":{"polluted":true},"constructor":{"prototype":{}},"unknown_${i}":"${pad}","ewallet_auto_resolve":${i % 2 === 0}}`;
      const [update, other] = await Promise.all([
        send(sandbox, 'aTest', 'PATCH', '/sandbox/settings', body),
        send(sandbox, 'bTest', 'GET', '/sandbox/settings'),
      ]);
      statuses.set(update.status, (statuses.get(update.status) ?? 0) + 1);
      updateMs.push(update.ms);
      otherMaxMs = Math.max(otherMaxMs, other.ms);
    }
    const settings = await send(sandbox, 'aTest', 'GET', '/sandbox/settings');
    const ownAfter = await readsOf('aTest', 20);
    const otherAfter = await readsOf('bTest', 20);
    console.log(
      summaryLine('settings size', {
        updates,
        'bytes sent each': pad.length,
        statuses: [...statuses].map(([status, count]) => `${count}x${status}`).join(' '),
        'settings bytes before': baseline.bytes,
        'settings bytes after': settings.bytes,
        'update median ms': Math.round(median(updateMs)),
        'own read median ms after': median(ownAfter).toFixed(1),
        "other merchant's read median ms before/after": `${median(otherBefore).toFixed(1)}/${median(otherAfter).toFixed(1)}`,
        "other merchant's slowest read during ms": Math.round(otherMaxMs),
      }),
    );
    expect([...statuses.keys()]).toEqual([200]);
    expect(Object.keys(settings.json).sort()).toEqual(Object.keys(baseline.json).sort());
    expect(settings.bytes).toBeLessThan(baseline.bytes + 100);
    expect(median(ownAfter)).toBeLessThan(50);
    expect(median(otherAfter)).toBeLessThan(50);
  });
});
