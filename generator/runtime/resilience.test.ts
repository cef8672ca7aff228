import { describe, expect, it } from 'vitest';
import type { FetchOutcome } from './client.js';
import {
  CallTimeoutError,
  OutcomeUnknownError,
  runCall,
  sameRequest,
  type AttemptInput,
  type AttemptReport,
  type CallOptions,
  type CallPlan,
  type OperationPolicy,
} from './resilience.js';

// Policies in the shape the generator writes them (generator/emit/client.ts, retryPolicy).
const NOTHING_DONE = [
  { status: 429, errorCode: 'RATE_LIMIT_EXCEEDED' },
  { status: 503, errorCode: 'SERVICE_UNAVAILABLE' },
];
const READ: OperationPolicy = { operationId: 'getThing', safe: true, retryable: NOTHING_DONE };
const WRITE: OperationPolicy = { operationId: 'createThing', safe: false, retryable: NOTHING_DONE };
const KEYED = (recoverable: boolean): OperationPolicy => ({
  operationId: 'createPayout',
  safe: false,
  retryable: NOTHING_DONE,
  idempotency: { replay: { status: 400, errorCode: 'DUPLICATE_TRANSACTION_ERROR' }, successStatus: 200, recoverable },
});

/** What one attempt meets: an answer (status, body), a network failure, or nothing until abandoned. */
type Step = { status: number; body: unknown; headers?: Record<string, string> } | { fail: unknown } | 'hang';

/** openapi-fetch's outcome for an answer: text for a success, parsed JSON for an error. */
function outcome(step: { status: number; body: unknown; headers?: Record<string, string> }): FetchOutcome {
  const response = new Response(JSON.stringify(step.body), { status: step.status, headers: step.headers ?? {} });
  return response.ok ? { data: JSON.stringify(step.body), response } : { error: step.body, response };
}

function scripted(steps: Step[]): { send: (attempt: AttemptInput) => Promise<FetchOutcome>; sent: AttemptInput[] } {
  const sent: AttemptInput[] = [];
  return {
    sent,
    send: async (attempt) => {
      sent.push(attempt);
      const step = steps[sent.length - 1] ?? 'hang';
      if (step === 'hang') return new Promise<never>(() => undefined);
      if ('fail' in step) throw step.fail;
      return outcome(step);
    },
  };
}

const fetchFailed = (code: string): Error =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
const FAST: CallOptions = { retries: { initialDelayMs: 1, maxDelayMs: 5 } };
const PAYOUT = { external_id: 'p-1', amount: 10000 };

async function run(policy: OperationPolicy, steps: Step[], extra: Partial<CallPlan> = {}, options: CallOptions = FAST) {
  const { send, sent } = scripted(steps);
  const reports: AttemptReport[] = [];
  const pending = runCall(
    { policy, documented: [200, 400, 429, 500, 503], headerFields: {}, idempotencyKey: undefined, send, ...extra },
    { ...options, onAttempt: (report) => reports.push(report) },
  );
  return { pending, sent, reports };
}

describe('runCall: when a request is sent again', () => {
  const cases: [string, OperationPolicy, Step[], number, number][] = [
    [
      'a read after a 500',
      READ,
      [
        { status: 500, body: { error_code: 'SERVER_ERROR' } },
        { status: 200, body: {} },
      ],
      2,
      200,
    ],
    ['a read after a cut connection', READ, [{ fail: fetchFailed('ECONNRESET') }, { status: 200, body: {} }], 2, 200],
    [
      'a write after a 503 x-retryable says did nothing',
      WRITE,
      [
        { status: 503, body: { error_code: 'SERVICE_UNAVAILABLE' } },
        { status: 200, body: {} },
      ],
      2,
      200,
    ],
    [
      'a write after a 429',
      WRITE,
      [
        { status: 429, body: { error_code: 'RATE_LIMIT_EXCEEDED' } },
        { status: 200, body: {} },
      ],
      2,
      200,
    ],
    [
      'a write whose connection was refused (never sent)',
      WRITE,
      [{ fail: fetchFailed('ECONNREFUSED') }, { status: 200, body: {} }],
      2,
      200,
    ],
    [
      'not a write after a 500: its outcome is unknown',
      WRITE,
      [{ status: 500, body: { error_code: 'SERVER_ERROR' } }],
      1,
      500,
    ],
    [
      'not a write after a 503 with another code (the direct debit’s INVALID_PAYMENT_METHOD_ERROR)',
      WRITE,
      [{ status: 503, body: { error_code: 'INVALID_PAYMENT_METHOD_ERROR' } }],
      1,
      503,
    ],
    [
      'not a keyed write without a recovery after a 500 (the direct debit)',
      KEYED(false),
      [{ status: 500, body: { error_code: 'SERVER_ERROR' } }],
      1,
      500,
    ],
    ['not after a 400', READ, [{ status: 400, body: { error_code: 'API_VALIDATION_ERROR' } }], 1, 400],
  ];
  it.each(cases)('%s', async (_name, policy, steps, attempts, status) => {
    const { pending, sent } = await run(policy, steps);
    expect((await pending).status).toBe(status);
    expect(sent).toHaveLength(attempts);
  });

  it('waits Retry-After seconds before repeating a 503', async () => {
    const { pending, reports } = await run(
      WRITE,
      [
        { status: 503, body: { error_code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': '1' } },
        { status: 200, body: {} },
      ],
      {},
      { retries: { initialDelayMs: 1, maxDelayMs: 2_000 } },
    );
    const started = Date.now();
    expect((await pending).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(reports[0]).toMatchObject({ status: 503, errorCode: 'SERVICE_UNAVAILABLE', next: 'retry', delayMs: 1000 });
  });

  it('ends the call with the answer when Retry-After asks for longer than maxDelayMs', async () => {
    const { pending, sent } = await run(WRITE, [
      { status: 429, body: { error_code: 'RATE_LIMIT_EXCEEDED' }, headers: { 'Retry-After': '60' } },
    ]);
    expect((await pending).status).toBe(429);
    expect(sent).toHaveLength(1);
  });

  it('stops at maxAttempts, with the last answer', async () => {
    const busy = { status: 503, body: { error_code: 'SERVICE_UNAVAILABLE' } };
    const { pending, sent } = await run(
      READ,
      [busy, busy, busy, busy],
      {},
      { retries: { maxAttempts: 3, initialDelayMs: 1 } },
    );
    expect((await pending).status).toBe(503);
    expect(sent).toHaveLength(3);
  });

  it('sends once with retries: false', async () => {
    const { pending, sent } = await run(
      READ,
      [{ status: 500, body: { error_code: 'SERVER_ERROR' } }],
      {},
      { retries: false },
    );
    expect((await pending).status).toBe(500);
    expect(sent).toHaveLength(1);
  });
});

describe('runCall: idempotency keys', () => {
  it('makes one key for a call that gives none and sends it on every attempt', async () => {
    const { pending, sent } = await run(KEYED(false), [
      { status: 503, body: { error_code: 'SERVICE_UNAVAILABLE' } },
      { status: 200, body: {} },
    ]);
    await pending;
    expect(sent[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]?.idempotencyKey).toBe(sent[0]?.idempotencyKey);
  });

  it("sends the caller's key as given", async () => {
    const { pending, sent } = await run(KEYED(false), [{ status: 200, body: {} }], { idempotencyKey: 'order-1' });
    await pending;
    expect(sent[0]?.idempotencyKey).toBe('order-1');
  });
});

describe('runCall: recovery of a lost answer', () => {
  const replay = { status: 400, body: { error_code: 'DUPLICATE_TRANSACTION_ERROR', message: 'used' } };
  const lookupAnswering = (...answers: Step[]) => {
    const { send } = scripted(answers);
    return { request: PAYOUT, lookup: (signal: AbortSignal) => send({ signal, idempotencyKey: '' }) };
  };

  it('answers the original, marked recovered, when a repeat after a cut connection meets the replay answer', async () => {
    const original = { id: 'd-1', external_id: 'p-1', amount: 10000, status: 'PENDING' };
    const other = { id: 'd-0', external_id: 'p-1', amount: 5000, status: 'COMPLETED' };
    const { pending, reports } = await run(KEYED(true), [{ fail: fetchFailed('ECONNRESET') }, replay], {
      recovery: lookupAnswering({ status: 200, body: [other, original] }),
    });
    expect(await pending).toMatchObject({ ok: true, status: 200, data: original, recovered: true });
    expect(reports.map((report) => `${report.kind}:${report.next}`)).toEqual([
      'request:retry',
      'request:recover',
      'recovery:done',
    ]);
  });

  it('looks again while the original is not found yet (still being carried out)', async () => {
    const original = { id: 'd-1', external_id: 'p-1', amount: 10000 };
    const { pending } = await run(KEYED(true), [{ status: 500, body: { error_code: 'SERVER_ERROR' } }, replay], {
      recovery: lookupAnswering({ status: 404, body: { error_code: 'NOT_FOUND' } }, { status: 200, body: [original] }),
    });
    expect(await pending).toMatchObject({ ok: true, data: original, recovered: true });
  });

  it('throws OutcomeUnknownError when the lookup never finds a match', async () => {
    const { pending } = await run(KEYED(true), [{ fail: fetchFailed('ECONNRESET') }, replay], {
      recovery: lookupAnswering(
        ...Array.from({ length: 5 }, () => ({ status: 200, body: [{ external_id: 'p-1', amount: 1 }] })),
      ),
    });
    await expect(pending).rejects.toBeInstanceOf(OutcomeUnknownError);
  });

  it("returns the replay answer as it is when no attempt of this call may have acted (the caller's key was used before)", async () => {
    const { pending } = await run(KEYED(true), [replay], { recovery: lookupAnswering() });
    expect(await pending).toMatchObject({ ok: false, status: 400, error: replay.body });
  });

  it('does not repeat a keyed write the contract cannot recover after a cut connection: OutcomeUnknownError, with the key', async () => {
    const { pending, sent } = await run(KEYED(false), [{ fail: fetchFailed('ECONNRESET') }]);
    const error = await pending.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).idempotencyKey).toBe(sent[0]?.idempotencyKey);
    expect(sent).toHaveLength(1);
  });
});

describe('runCall: timeouts', () => {
  it('abandons an attempt at attemptTimeoutMs and repeats a read', async () => {
    const { pending, reports } = await run(
      READ,
      ['hang', { status: 200, body: {} }],
      {},
      { ...FAST, attemptTimeoutMs: 50 },
    );
    expect((await pending).status).toBe(200);
    expect(reports[0]).toMatchObject({ timedOut: true, next: 'retry' });
  });

  it('ends the call at timeoutMs with CallTimeoutError', async () => {
    const { pending } = await run(
      READ,
      ['hang', 'hang', 'hang'],
      {},
      { ...FAST, attemptTimeoutMs: 10_000, timeoutMs: 100 },
    );
    await expect(pending).rejects.toBeInstanceOf(CallTimeoutError);
  });

  it('throws OutcomeUnknownError for a write whose attempt timed out (it may have been carried out)', async () => {
    const { pending, sent } = await run(WRITE, ['hang'], {}, { ...FAST, attemptTimeoutMs: 50 });
    await expect(pending).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(sent).toHaveLength(1);
  });
});

describe('sameRequest', () => {
  it.each([
    ['the same fields', { a: 1, b: 'x' }, { a: 1, b: 'x', id: 'd' }, true],
    ['a field the object does not show (account_number)', { a: 1, secret: 'n' }, { a: 1 }, true],
    ['a field that differs', { a: 1 }, { a: 2 }, false],
    ['lists compared by value', { e: ['x@y.z'] }, { e: ['x@y.z'] }, true],
    ['not an object', { a: 1 }, null, false],
  ])('%s', (_name, request, found, want) => {
    expect(sameRequest(request, found)).toBe(want);
  });
});
