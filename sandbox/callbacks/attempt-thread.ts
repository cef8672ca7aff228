// Callback attempts made in a thread of their own: under the bench's mix an attempt over node:http (the client
// request, its agent, the socket's writes and reads, the answer's parsing) cost the sandbox's main thread a
// large part of a disbursement's time, and the sandbox is bound by that one thread while the machine has more
// cores. The main thread posts each attempt's built request to the thread (attempt-worker.ts), those started in
// one turn of its event loop in one message, and gets back what the attempt got or why it failed; the pool of
// connections, the attempt's timer and the bounded read of the answer live in the thread. The thread is
// started at the first attempt and holds the process open only while attempts are under way. A thread that
// dies or cannot start fails each attempt it had with an error saying so (recorded and retried as any failed
// attempt); the next attempt starts a new one.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AttemptAnswer, AttemptRequest, HttpAttemptOptions } from './http-attempt.js';

/** An attempt posted to the thread: its number and request. */
export type Started = [id: number, request: AttemptRequest];
/** What the thread posts back for an attempt: its answer, or its error as data. */
export type Outcome = [
  id: number,
  result: AttemptAnswer | { failed: { name: string; message: string; cause?: string } },
];

export interface AttemptThreadOptions extends HttpAttemptOptions {
  /** Told of each thread started (tests end one mid-attempt, or wait for its end). */
  onThread?: (worker: Worker) => void;
}

export interface AttemptThread {
  /** As HttpAttempts.send (http-attempt.ts); also rejects when the thread ends before the answer. */
  send(request: AttemptRequest): Promise<AttemptAnswer>;
  /** Ends the thread and its pooled connections; resolves once it has ended. */
  close(): Promise<void>;
}

interface Pending {
  resolve: (answer: AttemptAnswer) => void;
  reject: (error: Error) => void;
}

interface Running {
  worker: Worker;
  /** Its attempts not answered yet, posted or about to be. */
  pending: Map<number, Pending>;
  /** Why it failed, if it did (an error thrown in it, a module it could not load). */
  error?: Error;
}

/** Run from its TypeScript source (tsx, vitest), or from the built package's JavaScript. */
const fromSource = import.meta.url.endsWith('.ts');

/** From source: the thread's modules bundled into one, made at the first start in this process. */
let bundled: URL | undefined;

/**
 * From source, the thread runs its modules bundled by esbuild (tsx's own compiler) from their TypeScript: on Node
 * 20 a worker runs neither the main thread's loader hooks nor tsx's `--import`, and registering tsx in each thread
 * cost 0.3-0.5 s of CPU per start (a thread per dispatcher; tests and mutant copies open many), the bundle about
 * 0.1 s once and a start from it 0.06 s.
 */
function sourceBundle(entry: URL): URL {
  if (!bundled) {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
    const [output] = esbuild.buildSync({
      entryPoints: [fileURLToPath(entry)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
    }).outputFiles;
    if (!output) throw new Error(`esbuild made nothing of ${fileURLToPath(entry)}`);
    bundled = new URL(`data:text/javascript,${encodeURIComponent(output.text)}`);
  }
  return bundled;
}

function startWorker(options: HttpAttemptOptions): Worker {
  const entry = new URL(`./attempt-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  // None of the process's command-line options: a module it preloads (`--import`, as the bench loads its probe)
  // may be TypeScript, which the thread cannot load, and the thread's own code needs none of them.
  return new Worker(fromSource ? sourceBundle(entry) : entry, { workerData: { options }, execArgv: [] });
}

/** The error an attempt rejects with: as the thread saw it (name, message, cause). */
function rebuilt({ name, message, cause }: { name: string; message: string; cause?: string }): Error {
  const error = new Error(message, cause === undefined ? undefined : { cause: new Error(cause) });
  error.name = name;
  return error;
}

export function createAttemptThread(options: AttemptThreadOptions): AttemptThread {
  const { onThread, ...http } = options;
  let running: Running | undefined;
  let nextId = 0;
  let queued: Started[] = [];

  const start = (): Running => {
    const worker = startWorker(http);
    const thread: Running = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (outcomes: Outcome[]) => {
      for (const [id, result] of outcomes) {
        const waiting = thread.pending.get(id);
        if (!waiting) continue;
        thread.pending.delete(id);
        if ('failed' in result) waiting.reject(rebuilt(result.failed));
        else waiting.resolve(result);
      }
      if (thread.pending.size === 0) worker.unref();
    });
    worker.on('error', (error) => {
      thread.error = error;
    });
    worker.on('exit', (code) => {
      if (running === thread) running = undefined;
      const why = thread.error ? `failed (${thread.error.message})` : `ended (exit code ${code})`;
      for (const waiting of thread.pending.values())
        waiting.reject(new Error(`the callbacks' sending thread ${why} before the attempt had an answer`));
      thread.pending.clear();
    });
    onThread?.(worker);
    return thread;
  };

  const flush = (): void => {
    const started = queued;
    queued = [];
    // Those whose thread ended before they were posted have failed with it: they are not made.
    const thread = running;
    const posted = thread ? started.filter(([id]) => thread.pending.has(id)) : [];
    if (thread && posted.length > 0) thread.worker.postMessage(posted);
  };

  return {
    send: (request) =>
      new Promise<AttemptAnswer>((resolve, reject) => {
        running ??= start();
        const id = nextId++;
        // While an attempt is under way the process stays open, as it would for its socket.
        if (running.pending.size === 0) running.worker.ref();
        running.pending.set(id, { resolve, reject });
        if (queued.push([id, request]) === 1) setImmediate(flush);
      }),
    close: async () => {
      const thread = running;
      running = undefined;
      if (thread) await thread.worker.terminate();
    },
  };
}
