// The `payments-sandbox listen` loop against a sandbox in this process with no callback URL configured: each
// callback reaches the local receiver as the sandbox would have sent it and the receiver's answer is what the
// sandbox records; a receiver that is down is recorded as no answer; a poll that finds no sandbox is retried
// with a growing pause; and what stops it (a signal, a refused key, no sandbox at the start) is said in a line.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxOpenapiPath } from '@payments-contract/contract';
import { DEFAULT_TEST_CALLBACK_TOKEN, DEFAULT_TEST_SECRET_KEY } from '../config.js';
import type { RunningSandbox } from '../main.js';
import {
  closedPort,
  startListening as startListeningTo,
  startLocalSandbox,
  startRecordingReceiver,
  type ReceivedCallback,
  type RecordingReceiver,
} from './testing.js';
import { runCommand } from './commands.js';
import type { ListenOptions } from './listen.js';
import { trigger } from './trigger.js';

let sandbox: RunningSandbox;
let receiver: RecordingReceiver;
let received: ReceivedCallback[];
/** What the receiver answers next. */
let answerStatus = 200;

beforeAll(async () => {
  receiver = await startRecordingReceiver(() => answerStatus);
  received = receiver.received;
  // No callback URL: only a listener can bring these callbacks anywhere.
  sandbox = await startLocalSandbox({ CALLBACK_RETRY_DELAY_MS: '100' });
}, 60000);

afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
});

/** A listener of this file's sandbox, forwarding to its receiver unless told otherwise. */
const startListening = (options: Partial<ListenOptions> = {}) =>
  startListeningTo({ baseUrl: sandbox.url, secretKey: DEFAULT_TEST_SECRET_KEY, forwardTo: receiver.url, ...options });

const control = (path: string) =>
  fetch(`${sandbox.url}${path}`, {
    headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_TEST_SECRET_KEY}:`).toString('base64')}` },
  }).then((response) => response.json() as Promise<Record<string, unknown>[]>);

interface Delivery {
  id: string;
  state: string;
  payload: unknown;
  attempts: Record<string, unknown>[];
}

/** The recorded delivery of the newest e-wallet payment callback, once `done` holds. */
async function ewalletDelivery(done: (delivery: Delivery) => boolean): Promise<Delivery> {
  let newest: Delivery | undefined;
  await expect
    .poll(
      async () => {
        [newest] = (await control('/sandbox/callbacks?webhook=ewalletPayment')) as unknown as Delivery[];
        return newest !== undefined && done(newest);
      },
      { timeout: 15000, interval: 50 },
    )
    .toBe(true);
  return newest!;
}

const fire = () => trigger({ baseUrl: sandbox.url, secretKey: DEFAULT_TEST_SECRET_KEY, kind: 'ewallet.payment' });

describe('payments-sandbox listen', () => {
  it('brings each callback, as the sandbox would send it, to the receiver, and reports its answer back', async () => {
    const listener = startListening();
    await expect.poll(() => listener.output.stdout, { timeout: 10000 }).toContain('Ready: forwarding');
    const before = received.length;
    answerStatus = 500;
    await fire();
    // The receiver's 500 fails the attempt; the retry comes to the listener again and its 200 acknowledges.
    await expect.poll(() => received.length - before, { timeout: 15000 }).toBeGreaterThanOrEqual(1);
    answerStatus = 200;
    const delivery = await ewalletDelivery((d) => d.state === 'delivered');
    expect(delivery.attempts.map((attempt) => [attempt.status, attempt.forwarded])).toEqual([
      [500, true],
      [200, true],
    ]);
    const [first, second] = received.slice(before);
    for (const callback of [first!, second!]) {
      expect(callback.headers['x-callback-token']).toBe(DEFAULT_TEST_CALLBACK_TOKEN);
      expect(callback.headers['content-type']).toBe('application/json');
      expect(callback.body).toEqual(delivery.payload);
    }
    await listener.stop();
    const lines = listener.output.stdout.split('\n').filter((line) => line.includes(delivery.id));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\S+Z {2}ewallet\.payment {2}delivery [0-9a-f]{24} {2}attempt 1 {2}-> 500 /);
    expect(lines[1]).toMatch(/attempt 2 {2}-> 200 /);
    expect(listener.output.stdout).toMatch(/Stopped listening\.\n$/);
    expect(listener.output.stderr).toBe('');
    // Stopped, it is no longer live: a callback now goes where callbacks go without a listener (no URL: failed).
    await fire();
    expect(await ewalletDelivery((d) => d.state !== 'pending')).toMatchObject({
      state: 'failed',
      failure_reason: 'no callback URL configured',
    });
  }, 60000);

  it('reports a receiver that does not answer as no answer, which the sandbox records for the attempt', async () => {
    const listener = startListening({ forwardTo: `http://127.0.0.1:${await closedPort()}/callbacks` });
    await expect.poll(() => listener.output.stdout, { timeout: 10000 }).toContain('Ready: forwarding');
    await fire();
    const delivery = await ewalletDelivery((d) => d.attempts.length > 0);
    expect(delivery.attempts[0]).toMatchObject({ status: null, forwarded: true });
    expect(String(delivery.attempts[0]!.error)).toContain('ECONNREFUSED');
    expect(listener.output.stdout).toMatch(/attempt 1 {2}-> no answer: .*ECONNREFUSED/);
    await listener.stop();
  }, 60000);

  it('tries a poll that found no sandbox again after a growing pause, then goes on', async () => {
    // The first poll (which makes the listener live) goes through; the three after it find no sandbox.
    let polls = 0;
    const flaky = (request: Request): Promise<Response> =>
      request.url.endsWith('/sandbox/listeners/next') && [2, 3, 4].includes(++polls)
        ? Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNRESET') }))
        : fetch(request);
    const listener = startListening({ fetch: flaky, backoffMs: 20, maxBackoffMs: 40 });
    await expect.poll(() => listener.output.stdout, { timeout: 10000 }).toContain('connected to the sandbox again');
    const pauses = [...listener.output.stderr.matchAll(/trying again in ([\d.]+) s/g)].map((match) => match[1]);
    expect(pauses).toEqual(['0.02', '0.04', '0.04']);
    expect(listener.output.stderr).toContain(
      'payments-sandbox listen: no answer from the sandbox (fetch failed: connect ECONNRESET); trying again in 0.02 s\n',
    );
    const before = received.length;
    await fire();
    await expect.poll(() => received.length, { timeout: 15000 }).toBeGreaterThan(before);
    await listener.stop();
  }, 60000);

  it('says in one line, exit 1, when the key is refused or no sandbox answers at the start', async () => {
    const refused = await startListening({ secretKey: 'sk_test_not_a_key_of_this_sandbox' }).done;
    expect(refused).toBe(1);
    const unreachable = startListening({ baseUrl: `http://127.0.0.1:${await closedPort()}` });
    expect(await unreachable.done).toBe(1);
    expect(unreachable.output.stderr).toMatch(
      /^payments-sandbox listen: no answer from the sandbox at http:\/\/127\.0\.0\.1:\d+ \(.*ECONNREFUSED.*\)\n$/,
    );
    const key = startListening({ secretKey: 'sk_test_not_a_key_of_this_sandbox' });
    await key.done;
    expect(key.output.stderr).toMatch(
      /^payments-sandbox listen: the sandbox at \S+ refused the key: 401 INVALID_API_KEY/,
    );
    expect(key.output.stderr.split('\n')).toHaveLength(2);
  }, 30000);

  it('refuses a command line without a receiver, or with one that is not an http URL (exit 2)', async () => {
    let stderr = '';
    const streams = { stdout: { write: () => true }, stderr: { write: (text: string) => ((stderr += text), true) } };
    const env = { PAYMENTS_API_KEY: DEFAULT_TEST_SECRET_KEY };
    expect(await runCommand(['listen', '--base-url', sandbox.url], env, streams)).toBe(2);
    expect(stderr).toContain('--forward-to URL is required');
    expect(await runCommand(['listen', '--forward-to', 'ftp://127.0.0.1/x'], env, streams)).toBe(2);
    expect(stderr).toContain('not an http or https URL');
    expect(await runCommand(['listen', '--forward-to', receiver.url], {}, streams)).toBe(2);
    expect(stderr).toContain('set PAYMENTS_API_KEY');
  });

  it("answers the contract's first example of a poll, the valid request tools send, at once", async () => {
    const contract = JSON.parse(readFileSync(sandboxOpenapiPath, 'utf8'));
    const examples = contract.paths['/sandbox/listeners/next'].post.requestBody.content['application/json'].examples;
    const [first] = Object.values(examples) as { value: unknown }[];
    const started = performance.now();
    const answer = await fetch(`${sandbox.url}/sandbox/listeners/next`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${DEFAULT_TEST_SECRET_KEY}:`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(first!.value),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ forwards: [] });
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
