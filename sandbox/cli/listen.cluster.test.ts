// `listen` with two sandboxes on one PostgreSQL database: a listener polling sandbox A gets the callback of a
// change made through sandbox B (held and attempted by B), and B records it as forwarded with the answer.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_CALLBACK_TOKEN, DEFAULT_TEST_SECRET_KEY } from '../config.js';
import type { RunningSandbox } from '../main.js';
import { useThrowawayPostgres } from '../store/postgres/testing/test-database.js';
import {
  closedPort,
  startListening,
  startLocalSandbox,
  startRecordingReceiver,
  type RecordingReceiver,
} from './testing.js';
import { trigger } from './trigger.js';

interface Delivery {
  id: string;
  state: string;
  payload: unknown;
  attempts: Record<string, unknown>[];
}

const { server } = useThrowawayPostgres();
let a: RunningSandbox;
let b: RunningSandbox;
let receiver: RecordingReceiver;

beforeAll(async () => {
  receiver = await startRecordingReceiver();
  // The merchant's URL is one neither sandbox can reach: only the listener brings the callback anywhere.
  const env = {
    STORE: 'postgres',
    DATABASE_URL: server().url,
    SANDBOX_CALLBACK_URL: `http://127.0.0.1:${await closedPort()}/callbacks`,
  };
  a = await startLocalSandbox(env);
  b = await startLocalSandbox(env);
}, 60000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await receiver?.close();
});

/** The newest e-wallet payment callback a sandbox lists. */
const newestOn = async (sandbox: RunningSandbox): Promise<Delivery | undefined> =>
  (
    (await fetch(`${sandbox.url}/sandbox/callbacks?webhook=ewalletPayment`, {
      headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_TEST_SECRET_KEY}:`).toString('base64')}` },
    }).then((response) => response.json())) as Delivery[]
  )[0];

describe('payments-sandbox listen, several sandboxes on one database', () => {
  it('brings the callback of a change made through another sandbox than the one it polls', async () => {
    const listener = startListening({
      baseUrl: a.url,
      secretKey: DEFAULT_TEST_SECRET_KEY,
      forwardTo: receiver.url,
    });
    try {
      await expect.poll(() => listener.output.stdout, { timeout: 10000 }).toContain('Ready: forwarding');
      // The other sandbox reads the live listeners every 250 ms: a callback of the next moment may still go to the URL.
      await new Promise((resolve) => setTimeout(resolve, 600));
      await trigger({ baseUrl: b.url, secretKey: DEFAULT_TEST_SECRET_KEY, kind: 'ewallet.payment' });
      // Held and attempted by B (the sandbox the change was made through), recorded there as forwarded.
      let delivery: Delivery | undefined;
      await expect.poll(async () => (delivery = await newestOn(b))?.state, { timeout: 20000 }).toBe('delivered');
      expect(delivery!.attempts).toEqual([expect.objectContaining({ status: 200, forwarded: true })]);
      const [callback] = receiver.received.filter((c) => isDeepStrictEqual(c.body, delivery!.payload));
      expect(callback?.token).toBe(DEFAULT_TEST_CALLBACK_TOKEN);
      expect(listener.output.stdout).toContain(`delivery ${delivery!.id}  attempt 1  -> 200`);
    } finally {
      expect(await listener.stop()).toBe(0);
    }
  }, 60000);
});
