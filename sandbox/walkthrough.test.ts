// The README's walkthrough as a reader runs it: terminal 1's receiver and terminal 2's sandbox as written, and
// terminal 3's blocks pasted, in order, into an interactive bash and an interactive zsh (their defaults, no
// start-up files: zsh then takes `?` as a glob and `#` as a word, not a comment), twice in each against the
// same sandbox and data, as a reader who tries it again meets it. Only what cannot be as written is changed:
// the ports (127.0.0.1:3000 and :8787 may be taken on the machine running the tests) and the waits (the
// sandbox's countdown is 300 ms here instead of 3 s, so each `sleep 4` sleeps 1 s).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess } from './reliability/sandbox-process.js';

type SandboxProcess = Awaited<ReturnType<typeof startSandboxProcess>>;

const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
const section = /^## Walkthrough[^\n]*\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
const [receiverBlock = '', sandboxBlock = '', ...pastedBlocks] = blocks;

const README_SANDBOX = 'http://127.0.0.1:3000';
const README_RECEIVER = '127.0.0.1:8787';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

interface Pass {
  output: string;
  run: string;
}

/** Pastes terminal 3's blocks into an interactive shell reading them from its input, as a terminal would. */
function paste(shell: 'bash' | 'zsh', script: string, home: string): Promise<Pass> {
  const args = shell === 'bash' ? ['--norc', '--noprofile', '-i'] : ['-f', '-i'];
  const child = spawn(shell, args, {
    env: { PATH: process.env.PATH, HOME: home, TERM: 'dumb', HISTFILE: '/dev/null' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Interactive bash echoes what it reads: the marker is matched as printed, not as typed.
  child.stdin.end(`${script}\nprintf 'walkthrough run %s.\\n' "$RUN"\nexit\n`);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => resolve({ output, run: /walkthrough run (\d+)\./.exec(output)?.[1] ?? '' }));
  });
}

let sandbox: SandboxProcess;
let receiver: ChildProcess;
let received = '';
let script = '';
const home = mkdtempSync(join(tmpdir(), 'walkthrough-home-'));

beforeAll(async () => {
  const receiverAt = `127.0.0.1:${await freePort()}`;
  const local = (text: string): string => text.replaceAll(README_RECEIVER, receiverAt);
  // Terminal 1, as written but for its port (`listen(8787,` names it without the host).
  receiver = spawn('bash', ['-c', receiverBlock.replace('listen(8787,', `listen(${receiverAt.split(':')[1]},`)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  receiver.stdout?.on('data', (chunk: Buffer) => (received += chunk.toString()));
  // Terminal 2: its variables, and the sandbox as `npx payments-sandbox` runs it.
  const written = /^((?:[A-Z_]+=\S+ )*)npx payments-sandbox\n$/.exec(sandboxBlock);
  if (!written) throw new Error(`terminal 2 is no longer \`VARIABLES npx payments-sandbox\`: ${sandboxBlock}`);
  const env = Object.fromEntries(
    (written[1] ?? '')
      .trim()
      .split(/\s+/)
      .map((assignment) => [assignment.split('=')[0] ?? '', local(assignment.slice(assignment.indexOf('=') + 1))]),
  );
  sandbox = await startSandboxProcess({ env: { ...env, SANDBOX_AUTO_PROGRESS_DELAY_MS: '300' } });
  script = [
    'sleep() { command sleep 1; }',
    ...pastedBlocks.map((block) => local(block.replaceAll(README_SANDBOX, sandbox.url.replace(/\/$/, '')))),
  ].join('\n');
}, 120_000);

afterAll(async () => {
  receiver?.kill();
  await sandbox?.remove();
  rmSync(home, { recursive: true, force: true });
});

describe('the sandbox README walkthrough', () => {
  it('has a receiver, a sandbox, and blocks to paste', () => {
    expect(receiverBlock).toContain('createServer');
    expect(pastedBlocks.length).toBeGreaterThanOrEqual(5);
  });

  const passes: { shell: 'bash' | 'zsh'; time: number }[] = [
    { shell: 'bash', time: 1 },
    { shell: 'bash', time: 2 },
    { shell: 'zsh', time: 1 },
    { shell: 'zsh', time: 2 },
  ];
  const seenRuns = new Set<string>();

  it.each(passes)(
    'runs in $shell, pass $time: every step answered, every outcome and callback as the README says',
    async ({ shell }) => {
      const before = received.length;
      const { output, run } = await paste(shell, script, home);
      expect(run).toMatch(/^\d+$/);
      expect(seenRuns.has(run)).toBe(false);
      seenRuns.add(run);
      // A shell that refused a line, a step that failed, an id that was not there.
      expect(output).not.toMatch(/command not found|no matches found|parse error|syntax error|undefined|error_code/);
      expect(output).toMatch(
        new RegExp(
          `"external_id":"payout-demo-${run}"[^\\n]*"status":"COMPLETED"|"status":"COMPLETED"[^\\n]*"external_id":"payout-demo-${run}"`,
        ),
      );
      expect(output).toMatch(/"failure_code":"INVALID_DESTINATION"/);
      expect(output).toMatch(
        new RegExp(
          `"external_id":"order-demo-${run}"[^\\n]*"status":"FAILED"|"status":"FAILED"[^\\n]*"external_id":"order-demo-${run}"`,
        ),
      );
      expect(output).toMatch(
        new RegExp(
          `"reference_id":"INV-demo-${run}"[^\\n]*"status":"COMPLETED"|"status":"COMPLETED"[^\\n]*"reference_id":"INV-demo-${run}"`,
        ),
      );
      // Terminal 1 printed this pass's callbacks: the account's payment, both disbursements, the e-wallet
      // payment and the direct debit (to its own callback_url).
      await expect
        .poll(() => received.slice(before), { timeout: 10_000 })
        .toMatch(new RegExp(`^/direct-debit [^\\n]*INV-demo-${run}`, 'm'));
      const callbacks = received.slice(before);
      for (const id of [`va-demo-${run}`, `payout-demo-${run}`, `payout-fail-${run}`, `order-demo-${run}`])
        expect(callbacks).toMatch(new RegExp(`^/callbacks [^\\n]*"${id}"`, 'm'));
    },
    60_000,
  );
});
