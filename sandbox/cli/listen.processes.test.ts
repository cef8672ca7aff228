// The daily loop as a developer runs it, each part in a process of its own: the sandbox started as `npm start`
// starts it, whose callback URL it cannot reach (a receiver on a laptop, say); `payments-sandbox listen
// --forward-to` a local receiver; then `trigger` for each of the six kinds and `events resend` of one. The
// receiver gets every callback with the merchant's token, the resent one too, and the sandbox records each
// attempt as forwarded with the receiver's answer.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_CALLBACK_TOKEN, DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { startSandboxProcess, type SandboxProcess } from '../reliability/sandbox-process.js';
import { repoRoot } from '../testing/repo-root.js';
import { runCommand } from './commands.js';
import { closedPort, startRecordingReceiver, type RecordingReceiver } from './testing.js';
import { TRIGGER_KINDS } from './trigger.js';

interface Delivery {
  id: string;
  event: string;
  state: string;
  payload: unknown;
  attempts: { status: number | null; forwarded?: boolean }[];
}

const env = { PAYMENTS_API_KEY: DEFAULT_TEST_SECRET_KEY };
let sandbox: SandboxProcess;
let receiver: RecordingReceiver;

beforeAll(async () => {
  receiver = await startRecordingReceiver();
  sandbox = await startSandboxProcess({
    env: { SANDBOX_CALLBACK_URL: `http://127.0.0.1:${await closedPort()}/callbacks` },
  });
}, 90000);

afterAll(async () => {
  await sandbox?.remove();
  await receiver?.close();
});

/** Runs a command as the bin does, its output captured. */
async function command(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCommand([...argv, '--base-url', sandbox.url], env, {
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: (text: string) => ((stderr += text), true) },
  });
  return { code, stdout, stderr };
}

const deliveries = async (): Promise<Delivery[]> =>
  (await fetch(`${sandbox.url}/sandbox/callbacks`, {
    headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_TEST_SECRET_KEY}:`).toString('base64')}` },
  }).then((response) => response.json())) as Delivery[];

const receivedTimes = (payload: unknown): number =>
  receiver.received.filter((callback) => isDeepStrictEqual(callback.body, payload)).length;

describe('payments-sandbox listen, trigger and events resend, each in its own process', () => {
  it('brings the six kinds of callback and a resent one to the local receiver, each recorded as forwarded', async () => {
    const started = performance.now();
    const listener = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(repoRoot, 'sandbox/main.ts'),
        'listen',
        '--forward-to',
        receiver.url,
        '--base-url',
        sandbox.url,
      ],
      {
        cwd: repoRoot,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    listener.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    listener.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => listener.once('exit', resolve));
    try {
      await expect.poll(() => stdout, { timeout: 30000, interval: 100 }).toContain('Ready: forwarding');

      for (const kind of Object.keys(TRIGGER_KINDS)) {
        const result = await command(['trigger', kind]);
        expect(result.stderr, kind).toBe('');
        expect(result.code, kind).toBe(0);
      }
      // Every callback the triggers made reached the receiver, through the listener only.
      await expect
        .poll(async () => (await deliveries()).every((d) => d.state === 'delivered'), { timeout: 20000 })
        .toBe(true);
      const made = await deliveries();
      expect(new Set(made.map((d) => d.event))).toEqual(new Set(Object.keys(TRIGGER_KINDS)));
      for (const delivery of made) {
        expect(receivedTimes(delivery.payload), delivery.event).toBe(1);
        expect(delivery.attempts).toEqual([expect.objectContaining({ status: 200, forwarded: true })]);
      }

      const ewallet = made.find((d) => d.event === 'ewallet.payment')!;
      const resent = await command(['events', 'resend', ewallet.id]);
      expect(resent.code).toBe(0);
      await expect.poll(() => receivedTimes(ewallet.payload), { timeout: 20000 }).toBe(2);
      expect(receiver.received.length).toBe(made.length + 1);
      expect(receiver.received.every((callback) => callback.token === DEFAULT_TEST_CALLBACK_TOKEN)).toBe(true);
      const again = (await deliveries()).find((d) => d.id !== ewallet.id && d.event === 'ewallet.payment');
      expect(again?.attempts).toEqual([expect.objectContaining({ status: 200, forwarded: true })]);

      // A line per callback, with the receiver's answer.
      await expect.poll(() => stdout.match(/ {2}-> 200 /g)?.length ?? 0).toBe(receiver.received.length);
    } finally {
      listener.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/Stopped listening\.\n$/);
    expect(stderr).toBe('');
    expect(performance.now() - started).toBeLessThan(60000);
  }, 90000);
});
