// Callback attempts made in a thread of their own (attempt-thread.ts): the main thread only posts them, a thread
// that dies fails its attempts with an error and the next attempt gets a new one, and closing the sender leaves
// neither the thread nor a connection behind.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { createAttemptSender, type AttemptSender } from './send-attempt.js';
import { startHangingReceiver, startReceiver, startReceiverThread } from './testing.js';

const closing: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A sender as the dispatcher makes one; `threads` gets each thread it starts. */
function sender(timeoutMs: number, threads: Worker[] = []): AttemptSender {
  const made = createAttemptSender({
    timeoutMs,
    readLimit: 1024,
    maxSockets: 4,
    onThread: (worker) => void threads.push(worker),
  });
  closing.push(() => made.close());
  return made;
}

const delivery = (url: string) =>
  ({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-callback-token': 'cbt_1' },
    body: '{"id":"d1"}',
  }) as const;

/** Blocks this thread, its event loop included, for `ms`. */
const blockFor = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('callback attempts in a thread of their own', () => {
  it('makes the attempt off the main thread: its timeout ends it on time while the main thread is blocked', async () => {
    const receiver = await startReceiverThread();
    closing.push(() => receiver.close());
    const send = sender(300);
    // The thread started and connected, so the next attempt goes out at once.
    expect(await send.prepare(delivery(receiver.url))()).toEqual({ status: 200, bytes: 2, cut: false });
    const attempt = send.prepare(delivery(`${receiver.url}/hang`))();
    const failed = expect(attempt).rejects.toMatchObject({ name: 'TimeoutError' });
    // Once the attempt is handed over (the main thread's next turn), nothing of it needs the main thread.
    await new Promise((resolve) => setImmediate(resolve));
    blockFor(2_000);
    const unblocked = Date.now();
    await failed;
    // Made on the main thread, the attempt's timer could only have fired after the block.
    const closedAt = await receiver.hangClosedAt();
    expect(closedAt).toBeDefined();
    expect(closedAt!).toBeLessThan(unblocked);
  });

  it('fails the attempts of a thread that ended with an error saying so; the next attempt starts a new thread', async () => {
    const hanging = await startHangingReceiver();
    closing.push(() => hanging.close());
    const threads: Worker[] = [];
    const send = sender(10_000, threads);
    const attempt = send.prepare(delivery(hanging.url))();
    await hanging.waitFor(1, 10_000);
    await threads[0]!.terminate();
    await expect(attempt).rejects.toThrow(/the callbacks' sending thread ended .* before the attempt had an answer/);

    const receiver = await startReceiver(() => 202);
    closing.push(() => receiver.close());
    expect(await send.prepare(delivery(receiver.url))()).toEqual({ status: 202, bytes: 2, cut: false });
    expect(threads).toHaveLength(2);
  });

  it('closes its thread and the thread’s pooled connections when it is closed', async () => {
    let open = 0;
    const server: Server = createServer((request, response) => {
      open++;
      request.socket.once('close', () => open--);
      request.resume();
      request.on('end', () => response.end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const threads: Worker[] = [];
    const send = sender(5_000, threads);
    expect(
      (await send.prepare(delivery(`http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`))()).status,
    ).toBe(200);
    const ended = new Promise<number>((resolve) => threads[0]!.once('exit', resolve));
    expect(open).toBe(1); // kept for the next attempt
    await send.close();
    await ended;
    await expect.poll(() => open, { timeout: 2_000 }).toBe(0);
  });

  it('does not hold the process open once its attempts are answered, nor take up what the process preloads', async () => {
    // A process that makes one attempt, closes its receiver and leaves the sender open ends by itself. It preloads
    // a TypeScript module, as the bench loads its probe into the sandbox: the thread, which cannot load one, does not.
    const script = `
      import { createServer } from 'node:http';
      import { createAttemptSender } from ${JSON.stringify(fileURLToPath(new URL('./send-attempt.ts', import.meta.url)))};
      const server = createServer((request, response) => (request.resume(), request.on('end', () => response.end('{}'))));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const sender = createAttemptSender({ timeoutMs: 5000, readLimit: 1024, maxSockets: 1, idleConnectionMs: 60000 });
      const url = 'http://127.0.0.1:' + server.address().port + '/cb';
      const answer = await sender.prepare({ url, method: 'POST', headers: {}, body: '{}' })();
      server.close();
      server.closeAllConnections();
      console.log(answer.status);`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        '--import',
        fileURLToPath(new URL('./mask-credentials.ts', import.meta.url)),
        '--input-type=module',
        '--eval',
        script,
      ],
      { timeout: 30_000 },
    );
    expect(stdout.trim()).toBe('200');
  }, 40_000);
});
