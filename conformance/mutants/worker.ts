// A worker process of the catalogue (workers.ts): runs each trial it is sent and answers its result.
import { runTrial } from './runner.js';
import type { TrialAnswer, TrialRequest } from './workers.js';

process.on('message', (request: TrialRequest) => {
  void runTrial(request.trial).then((result) => process.send?.({ id: request.id, result } satisfies TrialAnswer));
});
// The parent lets go when every trial has answered; nothing of ours is left to wait for.
process.on('disconnect', () => process.exit(0));
