// `payments-sandbox trigger` and `events resend` against a real sandbox on 127.0.0.1, its callbacks sent to a
// local receiver: each of the six kinds brings its callback with the merchant's token, a resend brings one
// again, and what the command cannot do it says in one line with the documented exit status.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_CALLBACK_TOKEN, DEFAULT_TEST_SECRET_KEY, usage } from '../config.js';
import { main, type RunningSandbox } from '../main.js';
import {
  closedPort,
  startLocalSandbox,
  startRecordingReceiver,
  type ReceivedCallback,
  type RecordingReceiver,
} from './testing.js';
import { TRIGGER_KINDS } from './trigger.js';

let sandbox: RunningSandbox;
let receiver: RecordingReceiver;
let received: ReceivedCallback[];
const env = () => ({ PAYMENTS_API_KEY: DEFAULT_TEST_SECRET_KEY });

/** Runs the bin's main with this command line, its output captured. */
async function run(argv: string[], environment: Record<string, string> = env(), baseUrl = sandbox.url) {
  let stdout = '';
  let stderr = '';
  const write = (target: 'out' | 'err') => (text: string) => {
    if (target === 'out') stdout += text;
    else stderr += text;
    return true;
  };
  const saved = [process.stdout.write, process.stderr.write] as const;
  process.stdout.write = write('out') as typeof process.stdout.write;
  process.stderr.write = write('err') as typeof process.stderr.write;
  try {
    const code = await main([...argv, '--base-url', baseUrl], environment);
    return { code, stdout, stderr };
  } finally {
    [process.stdout.write, process.stderr.write] = saved;
  }
}

async function waitFor<T>(what: string, find: () => T | undefined, timeoutMs = 15000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  receiver = await startRecordingReceiver();
  received = receiver.received;
  sandbox = await startLocalSandbox({ SANDBOX_CALLBACK_URL: receiver.url });
}, 60000);

afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
});

/** The callbacks the sandbox recorded, newest first (the control API's list). */
async function deliveries() {
  const response = await fetch(`${sandbox.url}/sandbox/callbacks`, {
    headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_TEST_SECRET_KEY}:`).toString('base64')}` },
  });
  return (await response.json()) as { id: string; event: string; payload: Record<string, unknown> }[];
}

describe('payments-sandbox trigger', () => {
  it('brings a callback of each of the six kinds to the receiver, with the callback token', async () => {
    for (const kind of Object.keys(TRIGGER_KINDS)) {
      const before = received.length;
      const result = await run(['trigger', kind]);
      expect(result.stderr, kind).toBe('');
      expect(result.code, kind).toBe(0);
      expect(result.stdout).toContain(`triggered ${kind}`);
      // Every object made is printed, as the API answered it, with its id.
      const lines = result.stdout.trim().split('\n').slice(0, -1);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(/^[a-z_ ()-]+: \{/);
      // The receiver got a callback the sandbox recorded as one of this kind, its body exactly the payload.
      const ofKind = (await deliveries()).filter((delivery) => delivery.event === kind);
      await waitFor(`a ${kind} callback`, () =>
        received
          .slice(before)
          .find((callback) => ofKind.some((delivery) => isDeepStrictEqual(delivery.payload, callback.body))),
      );
    }
    expect(received.every((callback) => callback.token === DEFAULT_TEST_CALLBACK_TOKEN)).toBe(true);
  }, 120000);

  it('--fail ends in that failure code, and refuses a code the test values do not list, naming them', async () => {
    const before = received.length;
    const failed = await run(['trigger', 'disbursement.finished', '--fail', 'INVALID_DESTINATION']);
    expect(failed.code).toBe(0);
    const callback = await waitFor('the failed disbursement', () =>
      received.slice(before).find((c) => c.body.status === 'FAILED'),
    );
    expect(callback.body.failure_code).toBe('INVALID_DESTINATION');

    const unknown = await run(['trigger', 'ewallet.payment', '--fail', 'NOT_A_CODE']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--fail NOT_A_CODE: not a failure code of ewallet.payment');
    expect(unknown.stderr).toContain('USER_DECLINED_THE_TRANSACTION');
    const none = await run(['trigger', 'fixed_payment_code.paid', '--fail', 'INVALID_DESTINATION']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('has no failure to simulate');
  }, 60000);

  it('--set changes a field of the creating request, and refuses an unknown field naming the known ones', async () => {
    const set = await run(['trigger', 'ewallet.payment', '--set', 'amount=123456']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('"amount":123456');
    const unknown = await run(['trigger', 'ewallet.payment', '--set', 'colour=red']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no field colour; its fields: external_id');
    const notNumber = await run(['trigger', 'ewallet.payment', '--set', 'amount=lots']);
    expect(notNumber.code).toBe(2);
    expect(notNumber.stderr).toContain('--set amount: expected a number');
  }, 60000);

  it('refuses an unknown kind and a missing key (exit 2); a refused or unanswered request is exit 1, in one line', async () => {
    const kind = await run(['trigger', 'invoice.paid']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('the kinds: fixed_virtual_account.paid');
    const key = await run(['trigger', 'ewallet.payment'], {});
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('set PAYMENTS_API_KEY');
    const refused = await run(['trigger', 'ewallet.payment'], {
      PAYMENTS_API_KEY: 'sk_test_not_a_key_of_this_sandbox',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/createEwalletPayment: 401/);
    // Nothing listens on a port just closed: one line saying so, no stack trace.
    const unreachable = await run(['trigger', 'ewallet.payment'], env(), `http://127.0.0.1:${await closedPort()}`);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^payments-sandbox trigger: .*no answer.*ECONNREFUSED[^\n]*\n$/);
  }, 60000);
});

describe('the commands named in the help', () => {
  it("the sandbox's --help names listen, trigger and events resend, and each answers its own --help (exit 0)", async () => {
    expect(usage()).toContain('payments-sandbox trigger KIND');
    expect(usage()).toContain('payments-sandbox events resend ID');
    expect(usage()).toContain('payments-sandbox listen --forward-to URL');
    for (const command of [['trigger'], ['events'], ['listen']]) {
      const help = await run([...command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: PAYMENTS_API_KEY=KEY payments-sandbox ${command[0]} `));
    }
  });
});

describe('payments-sandbox events resend', () => {
  it('sends a recorded callback again to the receiver', async () => {
    const delivery = (await deliveries()).find((recorded) => recorded.event === 'ewallet.payment');
    expect(delivery).toBeDefined();
    const before = received.length;
    const result = await run(['events', 'resend', delivery!.id]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`resent ${delivery!.id}`);
    const again = await waitFor('the resent callback', () =>
      received.slice(before).find((callback) => callback.body.id === delivery!.payload.id),
    );
    expect(again.token).toBe(DEFAULT_TEST_CALLBACK_TOKEN);
  }, 30000);

  it('says which delivery it could not find (exit 1) and what it expects (exit 2)', async () => {
    const missing = await run(['events', 'resend', 'no-such-delivery']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/resend no-such-delivery: 404/);
    const usage = await run(['events', 'replay']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('expected: events resend ID');
  }, 30000);
});
