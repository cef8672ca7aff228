// Trials run in worker processes: one process is one core, and a trial (a sandbox and the suite against it,
// both in one process) keeps its core busy, so the catalogue spreads over `count` processes, each taking a
// few trials at once (most of a trial is waiting on sockets and timers). With one worker the trials run here.
import { type ChildProcess, fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTrial, type Trial, type TrialResult } from './runner.js';

export interface TrialPool {
  run(trial: Trial): Promise<TrialResult>;
  close(): void;
}

/** What a worker is sent and what it answers (worker.ts). */
export interface TrialRequest {
  id: number;
  trial: Trial;
}
export interface TrialAnswer {
  id: number;
  result: TrialResult;
}

const workerScript = join(dirname(fileURLToPath(import.meta.url)), 'worker.ts');

interface Worker {
  process: ChildProcess;
  pending: Map<number, (result: TrialResult) => void>;
}

/** `count` worker processes (1: this process); each trial goes to the worker with the fewest in flight. */
export function trialPool(count: number): TrialPool {
  if (count <= 1) return { run: runTrial, close: () => undefined };
  let nextId = 0;
  const workers: Worker[] = Array.from({ length: count }, () => {
    // TypeScript through tsx, packages entered at their sources, whatever loaded this module (a test runner too).
    const child = fork(workerScript, [], {
      execArgv: ['--conditions=source', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const worker: Worker = { process: child, pending: new Map() };
    child.on('message', (answer: TrialAnswer) => {
      worker.pending.get(answer.id)?.(answer.result);
      worker.pending.delete(answer.id);
    });
    // A worker that dies takes its trials with it: each becomes an error, never a silent pass.
    child.on('exit', (code, signal) => {
      for (const settle of worker.pending.values())
        settle({
          failedResults: [],
          notRunResults: [],
          failures: {},
          keysInCommands: [],
          wallMs: 0,
          error: `the worker process ended (${signal ?? `exit ${code}`})`,
        });
      worker.pending.clear();
    });
    return worker;
  });
  return {
    run(trial) {
      const worker = workers.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
      const id = nextId++;
      return new Promise((settle) => {
        worker.pending.set(id, settle);
        worker.process.send({ id, trial } satisfies TrialRequest);
      });
    },
    close() {
      for (const worker of workers) if (worker.process.connected) worker.process.disconnect();
    },
  };
}
