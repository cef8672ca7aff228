// The callbacks' sending thread (attempt-thread.ts starts it): makes the attempts posted to it over node:http
// (http-attempt.ts) and posts their outcomes back, those settled in one turn of its event loop together.
import { parentPort, workerData } from 'node:worker_threads';
import { createHttpAttempts, type HttpAttemptOptions } from './http-attempt.js';
import type { Outcome, Started } from './attempt-thread.js';

const port = parentPort;
if (!port) throw new Error('attempt-worker runs as a worker thread');
const attempts = createHttpAttempts((workerData as { options: HttpAttemptOptions }).options);

let outcomes: Outcome[] = [];
const flush = (): void => {
  const settled = outcomes;
  outcomes = [];
  port.postMessage(settled);
};
const settle = (outcome: Outcome): void => {
  if (outcomes.push(outcome) === 1) setImmediate(flush);
};
/** An error as data: an Error's own fields, which a message does not carry whole. */
const failure = (error: unknown): Outcome[1] =>
  error instanceof Error
    ? {
        failed: {
          name: error.name,
          message: error.message,
          ...(error.cause instanceof Error ? { cause: error.cause.message } : {}),
        },
      }
    : { failed: { name: 'Error', message: String(error) } };

port.on('message', (started: Started[]) => {
  for (const [id, request] of started)
    attempts.send(request).then(
      (answer) => settle([id, answer]),
      (error: unknown) => settle([id, failure(error)]),
    );
});
