// `npm test`: the repository's checks as parts, each an npm script, and at the end one line per part with its
// wall time and status, and the total. Parts of one stage run side by side; stages run one after another. The
// unit tests use every core alone. The mutant catalogue keeps both cores busy most of its run, and the
// reliability suite, which runs its files one at a time and mostly waits on its sandboxes, about a third of them
// (measured: 111 s of CPU over its 163 s alone): side by side they finish well before one after the other would,
// and neither judges time so finely that the other disturbs it (the reliability suite passes at a load of 10 on
// two cores; a catalogue run that cannot judge a mutant in time judges it again alone). The PostgreSQL cluster's
// full profile (the unit files that run alone, .ci/vitest.config.ts) mostly waits too (41 s of CPU in 144 s
// beside those two, where it passed); four unit files at once starve it, so it runs in that last stage rather
// than after the unit batch. Lint and typecheck (about 55 s of CPU together, 34 s of wall time as a stage of
// their own) run in that stage too, whose parts leave the cores idle a third of the time.
// The first part that fails stops the run (the others of its stage are stopped) and its exit code is the run's.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';

export interface Part {
  name: string;
  /** The npm script it runs. */
  script: string;
}

/** Stages in order; the parts of a stage run at the same time. */
export const STAGES: Part[][] = [
  [{ name: 'unit', script: 'test:unit:batch' }],
  [
    { name: 'mutants', script: 'conformance:mutants' },
    { name: 'reliability', script: 'test:reliability:ci' },
    { name: 'unit (cluster)', script: 'test:unit:alone' },
    { name: 'lint', script: 'lint' },
    { name: 'typecheck', script: 'typecheck' },
  ],
];

export interface PartOutcome {
  name: string;
  /** Undefined for a part that did not run (an earlier part failed). */
  code?: number;
  /** Stopped because another part of its stage failed. */
  stopped?: boolean;
  wallMs?: number;
}

/** Starts a part: alone, its output streams; beside others, it is held back and printed whole when it ends. */
export interface Runner {
  start(part: Part, alone: boolean): { done: Promise<number>; stop(): void };
}

/** Runs the stages; stops at the first failing part. Outcomes of every part, in the order of STAGES. */
export async function runStages(stages: Part[][], runner: Runner): Promise<PartOutcome[]> {
  const outcomes: PartOutcome[] = [];
  let failed = false;
  for (const stage of stages) {
    if (failed) {
      outcomes.push(...stage.map((part) => ({ name: part.name })));
      continue;
    }
    const running = stage.map((part) => ({
      part,
      started: performance.now(),
      ...runner.start(part, stage.length === 1),
    }));
    const stageOutcomes: PartOutcome[] = stage.map((part) => ({ name: part.name }));
    await Promise.all(
      running.map(async (run, index) => {
        const code = await run.done;
        const outcome = stageOutcomes[index] as PartOutcome;
        outcome.code = code;
        outcome.wallMs = performance.now() - run.started;
        if (code !== 0 && !failed) {
          failed = true;
          for (const [other, sibling] of running.entries())
            if (other !== index && stageOutcomes[other]?.code === undefined) {
              (stageOutcomes[other] as PartOutcome).stopped = true;
              sibling.stop();
            }
        }
      }),
    );
    outcomes.push(...stageOutcomes);
  }
  return outcomes;
}

/** The run's exit code: that of the first part that failed (not one stopped because of it), else 0. */
export function exitCode(outcomes: PartOutcome[]): number {
  return outcomes.find((o) => o.code !== undefined && o.code !== 0 && !o.stopped)?.code ?? 0;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** One line per part (name, status, wall time) and the total. */
export function report(outcomes: PartOutcome[], totalMs: number): string {
  const width = Math.max(...outcomes.map((o) => o.name.length), 'total'.length) + 2;
  const status = (o: PartOutcome): string =>
    o.code === undefined ? 'not run' : o.stopped ? 'stopped' : o.code === 0 ? 'passed' : `FAILED (exit ${o.code})`;
  const lines = outcomes.map((o) =>
    `  ${o.name.padEnd(width)}${status(o).padEnd(17)}${o.wallMs === undefined ? '' : seconds(o.wallMs).padStart(9)}`.trimEnd(),
  );
  const verdict = exitCode(outcomes) === 0 ? 'passed' : 'FAILED';
  return [
    'npm test: time of each part',
    ...lines,
    `  ${'total'.padEnd(width)}${verdict.padEnd(17)}${seconds(totalMs).padStart(9)}`,
  ].join('\n');
}

/** Each part as `npm run <script>` in a process group of its own, so that stopping it stops its children. */
export const npmRunner: Runner = {
  start(part, alone) {
    const child = spawn('npm', ['run', '--silent', part.script], {
      stdio: ['ignore', alone ? 'inherit' : 'pipe', alone ? 'inherit' : 'pipe'],
      detached: true,
    });
    const held: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => held.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => held.push(chunk));
    const done = new Promise<number>((settle) => {
      child.on('close', (code, signal) => {
        if (!alone)
          process.stdout.write(`\n── ${part.name} (npm run ${part.script}) ──\n${Buffer.concat(held).toString()}`);
        settle(code ?? 128 + (signal ? constants.signals[signal] : 0));
      });
    });
    return {
      done,
      stop: () => {
        if (child.pid !== undefined && child.exitCode === null)
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {
            // Already gone.
          }
      },
    };
  },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const outcomes = await runStages(STAGES, npmRunner);
  console.log(`\n${report(outcomes, performance.now() - started)}`);
  process.exitCode = exitCode(outcomes);
}
