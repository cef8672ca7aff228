// In a process of its own: signals are process-wide, and the test runner has its own listeners.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { STOP_SIGNALS, type StopSignal } from './stop-signals.js';

// A server that takes 300 ms to stop, as one closing its listeners and its store does.
const server = `
import { onStopSignal } from ${JSON.stringify(new URL('./stop-signals.ts', import.meta.url).href)};
onStopSignal((signal) => {
  console.log('stopping on ' + signal);
  setTimeout(() => { console.log('stopped'); process.exit(0); }, 300);
});
setInterval(() => {}, 60_000);
console.log('ready');
`;

/**
 * Starts the server, sends `first` once it is ready and `then` once it has begun stopping (signals sent at
 * the same instant reach a multi-threaded process in no set order), and returns how it ended.
 */
async function signalled([first, ...then]: [StopSignal, ...StopSignal[]]): Promise<{
  code: number | null;
  output: string;
}> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', server], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const printed = (text: string): Promise<void> =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (!output.includes(text)) return;
          child.stdout.off('data', check);
          resolve();
        };
        child.stdout.on('data', check);
        check();
      });
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await printed('ready');
    child.kill(first);
    if (then.length > 0) {
      await printed('stopping on');
      for (const signal of then) child.kill(signal);
    }
    return { code: await exited, output };
  } finally {
    child.kill('SIGKILL');
  }
}

describe('onStopSignal', () => {
  it.each(STOP_SIGNALS)(
    'turns %s into a clean stop',
    async (signal) => {
      expect(await signalled([signal])).toEqual({ code: 0, output: `ready\nstopping on ${signal}\nstopped\n` });
    },
    30_000,
  );

  it('stops once, and is not killed halfway, when more signals come while it stops (Ctrl-C under npm delivers SIGINT twice)', async () => {
    expect(await signalled(['SIGINT', 'SIGINT', 'SIGTERM'])).toEqual({
      code: 0,
      output: 'ready\nstopping on SIGINT\nstopped\n',
    });
  }, 30_000);
});
